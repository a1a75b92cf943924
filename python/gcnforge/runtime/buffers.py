"""Device buffers: an allocation on one backend with a NumPy shape and dtype.

Passing a NumPy array for a pointer argument copies it in and back around every launch;
a ``DeviceBuffer`` (``to_device``, ``empty``) stays on the device between launches, which
is what repeated launches and benchmarks want.
"""

from __future__ import annotations

import weakref

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.backend import Backend


class DeviceBuffer:
    """``nbytes`` of device memory at ``addr`` on ``backend``, viewed as ``shape``/``dtype``.
    Freed when garbage-collected or by ``free()``."""

    def __init__(self, backend: Backend, shape: tuple[int, ...], dtype: np.dtype):
        self.backend = backend
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self._size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self._size * self.dtype.itemsize
        # Zero-byte buffers still get a distinct, valid address.
        self.addr = backend.alloc(max(self.nbytes, 1))
        self._finalizer = weakref.finalize(self, backend.free, self.addr)
        # not at interpreter exit: the device runtime may already be gone then, and the
        # process's exit releases device memory anyway
        self._finalizer.atexit = False

    @property
    def size(self) -> int:
        return self._size

    def write(self, array: np.ndarray) -> None:
        a = np.ascontiguousarray(array)
        if a.nbytes != self.nbytes:
            raise Diagnostic(f"writing {a.nbytes} bytes into a device buffer of {self.nbytes} bytes")
        self.backend.copy_to(self.addr, a.tobytes())

    def numpy(self) -> np.ndarray:
        """A host copy of the contents."""
        raw = self.backend.copy_from(self.addr, self.nbytes) if self.nbytes else b""
        return np.frombuffer(bytearray(raw), dtype=self.dtype).reshape(self.shape)

    def free(self) -> None:
        self._finalizer()

    def __repr__(self) -> str:
        return (f"DeviceBuffer(shape={self.shape}, dtype={self.dtype}, {self.nbytes} bytes "
                f"at {self.addr:#x} on {self.backend.name})")


def to_device(array: np.ndarray, device: Backend | str | None = None) -> DeviceBuffer:
    """Copy a NumPy array (any shape; made C-contiguous) to a new device buffer."""
    from gcnforge.runtime.devices import get_device

    a = np.ascontiguousarray(array)
    buf = DeviceBuffer(get_device(device), a.shape, a.dtype)
    buf.write(a)
    return buf


def empty(shape: int | tuple[int, ...], dtype: object = np.float32, device: Backend | str | None = None) -> DeviceBuffer:
    """An uninitialised device buffer (the emulator's memory starts zeroed; a GPU's does not)."""
    from gcnforge.runtime.devices import get_device

    shp = (shape,) if isinstance(shape, int) else tuple(shape)
    return DeviceBuffer(get_device(device), shp, np.dtype(dtype))

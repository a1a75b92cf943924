"""Binding Python call arguments to a layout: validation, conversion, and staging of NumPy
arrays into device memory.

Everything here runs before a launch so that every mistake a caller can make (too many
arguments, an array where a scalar belongs, a float64 array for a ``float*``, a buffer
smaller than the layout says) is a Diagnostic naming the argument, never a wrong result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.backend import Backend
from gcnforge.runtime.buffers import DeviceBuffer
from gcnforge.runtime.kernargs import ArgField, ArgLayout


@dataclass
class Bound:
    """The result of binding: values for ``ArgLayout.pack``, the arrays to copy back after
    the launch, the temporaries to free, and the dynamic LDS bytes the LDS arguments need."""

    values: dict[str, object] = field(default_factory=dict)
    copy_back: list[tuple[DeviceBuffer, np.ndarray]] = field(default_factory=list)
    temporaries: list[DeviceBuffer] = field(default_factory=list)
    dynamic_lds: int = 0

    def finish(self, ok: bool) -> None:
        """Copy results back into the caller's arrays (only after a successful launch) and
        free the temporaries."""
        try:
            if ok:
                for buf, arr in self.copy_back:
                    res = buf.numpy()
                    if arr.flags.c_contiguous:
                        arr.reshape(-1).view(np.uint8)[:] = res.reshape(-1).view(np.uint8)
                    else:
                        arr[...] = res.reshape(arr.shape)
        finally:
            for b in self.temporaries:
                b.free()


def name_args(layout: ArgLayout, args: Sequence[object], kwargs: Mapping[str, object], kernel: str) -> dict[str, object]:
    """Positional arguments in layout order plus keywords -> {name: value}."""
    explicit = layout.explicit
    names = [f.name for f in explicit]
    if len(args) > len(explicit):
        raise Diagnostic(f"kernel '{kernel}' takes {len(explicit)} argument(s) ({', '.join(names)}), "
                         f"{len(args)} given")
    out = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise Diagnostic(f"kernel '{kernel}' has no argument '{k}'", notes=(f"arguments: {', '.join(names)}",))
        if k in out:
            raise Diagnostic(f"argument '{k}' of kernel '{kernel}' given twice (by position and by keyword)")
        out[k] = v
    missing = [n for n in names if n not in out]
    if missing:
        raise Diagnostic(f"kernel '{kernel}': missing argument(s) {', '.join(repr(m) for m in missing)}",
                         notes=(f"arguments in order: {', '.join(names)}",))
    return out


def _count(f: ArgField, named: Mapping[str, object]) -> int | None:
    """Minimum element count a pointer's layout declares (a product of integers and scalar
    arguments), or None."""
    if not f.count:
        return None
    n = 1
    for term in f.count:
        if isinstance(term, int):
            n *= term
            continue
        if term not in named:
            raise Diagnostic(f"argument '{f.name}': its element count names '{term}', which is not an argument")
        v = named[term]
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise Diagnostic(f"argument '{f.name}': element count term '{term}' must be an integer, got {v!r}")
        n *= int(v)
    return n


def bind(layout: ArgLayout, named: Mapping[str, object], backend: Backend, static_lds: int = 0) -> Bound:
    b = Bound()
    lds_cursor = static_lds
    try:
        for f in layout.explicit:
            v = named[f.name]
            if f.kind == "ptr":
                b.values[f.name] = _bind_pointer(f, v, named, backend, b)
            elif f.kind == "lds":
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or int(v) < 0:
                    raise Diagnostic(f"argument '{f.name}' is a __local pointer: pass its size in bytes (an int), got {v!r}")
                align = int(f.pointee_align or 4)
                lds_cursor = -(-lds_cursor // align) * align
                b.values[f.name] = lds_cursor
                lds_cursor += int(v)
            else:
                if isinstance(v, DeviceBuffer) or (isinstance(v, np.ndarray) and v.ndim > 0 and (f.type is None or f.type.lanes == 1)):
                    what = f"a {f.type}" if f.type else f"an untyped {f.size}-byte"
                    hint = ("pointers are passed as NumPy arrays or device buffers; scalars as numbers"
                            if f.type else "the metadata does not say what this argument is: declare a layout "
                            "(module.kernel(name, layout=ArgLayout.slots16([...])))")
                    raise Diagnostic(f"argument '{f.name}' takes {what} value, got an array/buffer", notes=(hint,))
                b.values[f.name] = v
        b.dynamic_lds = lds_cursor - static_lds
        return b
    except BaseException:
        b.finish(ok=False)
        raise


def _bind_pointer(f: ArgField, v: object, named: Mapping[str, object], backend: Backend, b: Bound) -> int:
    if v is None:
        return 0
    if isinstance(v, DeviceBuffer):
        if v.backend is not backend:
            raise Diagnostic(f"argument '{f.name}': buffer lives on the {v.backend.name} device, "
                             f"the launch is on {backend.name}")
        nbytes, itemsize, elems, dt = v.nbytes, v.dtype.itemsize, v.size, v.dtype
    elif isinstance(v, np.ndarray):
        if v.dtype.hasobject:
            raise Diagnostic(f"argument '{f.name}': an array of Python objects cannot be copied to the device")
        if v.dtype.byteorder == ">" or any(v.dtype[n].byteorder == ">" for n in (v.dtype.names or ())):
            raise Diagnostic(f"argument '{f.name}': big-endian dtype {v.dtype}; the GPU is little-endian",
                             notes=("convert with arr.astype(arr.dtype.newbyteorder('<'))",))
        nbytes, itemsize, elems, dt = v.nbytes, v.dtype.itemsize, v.size, v.dtype
    elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)  # a raw device address the caller manages
    else:
        raise Diagnostic(f"argument '{f.name}' is a pointer: pass a NumPy array or a device buffer, "
                         f"got {type(v).__name__}")
    if f.type is not None and itemsize != f.type.dtype.itemsize * (4 if f.type.lanes == 3 else f.type.lanes):
        raise Diagnostic(f"argument '{f.name}' points to {f.type} ({f.type.size}-byte elements) "
                         f"but the array has dtype {dt} ({itemsize}-byte elements)")
    need = _count(f, named)
    if need is not None and elems < need:
        terms = "*".join(str(t) for t in f.count)
        raise Diagnostic(f"argument '{f.name}': buffer has {elems} element(s), the layout needs "
                         f"{terms} = {need}")
    if isinstance(v, DeviceBuffer):
        return v.addr
    arr = v  # a host array: stage it
    buf = DeviceBuffer(backend, arr.shape, arr.dtype)
    b.temporaries.append(buf)
    if nbytes:
        backend.copy_to(buf.addr, np.ascontiguousarray(arr).tobytes())
    read_only = f.is_const or f.access == "read_only"
    if not read_only and arr.flags.writeable:
        b.copy_back.append((buf, arr))
    return buf.addr


def normalize_dims(d: object, what: str) -> tuple[int, int, int]:
    t = (d,) if isinstance(d, (int, np.integer)) else tuple(d)  # type: ignore[arg-type]
    if not 1 <= len(t) <= 3 or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in t):
        raise Diagnostic(f"{what} must be an int or a tuple of 1 to 3 ints, got {d!r}")
    t = tuple(int(x) for x in t) + (1,) * (3 - len(t))
    if any(x < 1 for x in t):
        raise Diagnostic(f"{what} {t} has a dimension below 1")
    if what == "block" and math.prod(t) > 1024:
        raise Diagnostic(f"block {t} has {math.prod(t)} work-items; gfx9 allows at most 1024")
    if what == "grid" and any(x >= 1 << 32 for x in t):
        raise Diagnostic(f"grid {t} exceeds 2^32 workgroups in a dimension")
    return t  # type: ignore[return-value]

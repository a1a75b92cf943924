"""The HIP backend: an AMD GPU through hip-python (``pip install 'gcnforge[hip]'``,
hip-python 10.0.0.0.1.2, whose ``from hip import hip`` module mirrors the HIP C API:
every call returns a tuple whose first element is the ``hipError_t``).

Launches use the HIP module API the way hand-written code objects are launched in C++:
``hipModuleLoadData`` on the code-object bytes, ``hipModuleGetFunction`` by symbol name, and
``hipModuleLaunchKernel`` with the whole kernarg segment passed through the ``extra`` array
``{HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
HIP_LAUNCH_PARAM_END}`` (HIP API reference, hipModuleLaunchKernel). The HIP runtime (ROCm clr,
``hipamd/src/hip_module.cpp``, ``ihipModuleLaunchKernel``) checks those three tags, copies each
explicit parameter its metadata declares from the buffer at the parameter's offset, and fills
the hidden arguments itself from a 3-dimensional NDRange; so the bytes gcnforge packed for
hidden arguments are ignored here (the emulator, which has no runtime of its own, uses them).
A code object whose metadata declares no ``.args`` (a hand-written ``.s``, a vendor ``.co``)
would get no explicit arguments from HIP, so a launch with an explicit layout
(``ArgLayout.slots16``) loads an image whose metadata lists the layout's arguments as by-value
entries at their offsets (``binary.metadata_patch``; the file on disk is unchanged). A kernel
with no explicit arguments is launched with a buffer size of 0, which current clr requires
(it refuses a non-empty buffer for a kernel that expects no arguments).

hip-python's ``hipGetDeviceProperties`` is ``(deviceId)`` in the PyPI 10.x packages and
``(prop, deviceId)`` in builds bundled with some ROCm releases: the backend detects which
once, from the function's signature (``device_properties``). ``device="hip:N"`` selects GPU N
of those HIP shows (``HIP_VISIBLE_DEVICES`` filters and renumbers them, as for every HIP
program).

Kernel time is measured with a pair of HIP events recorded around the launch on the same
stream (``hipEventElapsedTime``, milliseconds).
"""

from __future__ import annotations

import ctypes
import inspect
import logging
import os
import sys
from typing import Any

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.backend import LaunchResult

log = logging.getLogger("gcnforge.runtime")


# Every hip-python name this module uses (checked against the installed package in tests).
HIP_API_NAMES = (
    "hipGetDeviceCount", "hipSetDevice", "hipGetDeviceProperties", "hipDeviceProp_t", "hipGetErrorString",
    "hipError_t",
    "hipMalloc", "hipFree", "hipMemcpy", "hipMemcpyKind", "hipStreamCreate", "hipStreamDestroy",
    "hipModuleLoadData", "hipModuleGetFunction", "hipModuleLaunchKernel", "hipModuleUnload",
    "HIP_LAUNCH_PARAM_BUFFER_POINTER", "HIP_LAUNCH_PARAM_BUFFER_SIZE", "HIP_LAUNCH_PARAM_END",
    "hipEventCreate", "hipEventRecord", "hipEventSynchronize", "hipEventElapsedTime", "hipEventDestroy",
)


def device_properties(hip: Any, index: int) -> tuple[Any, Any]:
    """``(hipError_t, hipDeviceProp_t)`` for device ``index`` from either hip-python signature:
    ``hipGetDeviceProperties(deviceId)`` returning the properties, or
    ``hipGetDeviceProperties(prop, deviceId)`` filling a ``hipDeviceProp_t`` the caller made."""
    fn = hip.hipGetDeviceProperties
    try:
        params = inspect.signature(fn).parameters.values()
        nparams = None if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) else len(params)
    except (TypeError, ValueError):  # a builtin without a signature: ask by arity at call time
        nparams = None
    if nparams == 2:
        props = hip.hipDeviceProp_t()
        out = fn(props, index)
        err = out[0] if isinstance(out, tuple) else out
        return err, props
    if nparams == 1:
        err, props = fn(index)
        return err, props
    try:
        err, props = fn(index)
    except TypeError:
        props = hip.hipDeviceProp_t()
        out = fn(props, index)
        err = out[0] if isinstance(out, tuple) else out
    return err, props


class HipBackend:
    name = "hip"
    accepts_layout = True  # launch(layout=...): the explicit arguments HIP must be told about

    def __init__(self, device_index: int = 0):
        self.device_index = device_index
        self.name = "hip" if device_index == 0 else f"hip:{device_index}"
        self.unavailable_reason: str | None = None
        self._hip: Any = None
        self._checked: bool | None = None
        self._props: Any = None
        self._modules: dict[int, tuple[Any, Any, dict[str, Any]]] = {}

    # -- discovery ------------------------------------------------------------------------
    def _import(self) -> Any:
        if self._hip is None:
            try:
                from hip import hip  # hip-python
            except ImportError:
                self.unavailable_reason = "hip-python is not installed (pip install 'gcnforge[hip]')"
                return None
            self._hip = hip
        return self._hip

    def available(self) -> bool:
        """Whether this GPU can run kernels; never raises (the backend contract): every
        failure becomes ``unavailable_reason``."""
        if self._checked is not None:
            return self._checked
        self._checked = False
        try:
            return self._probe()
        except Exception as e:  # noqa: BLE001 -- a broken HIP install must read as "unavailable"
            self.unavailable_reason = f"probing HIP failed: {type(e).__name__}: {e}"
            return False

    def _probe(self) -> bool:
        hip = self._import()
        if hip is None:
            return False
        try:
            err, count = hip.hipGetDeviceCount()
        except RuntimeError as e:  # hip-python raises when libamdhip64.so cannot be opened
            self.unavailable_reason = f"the HIP runtime library could not be loaded ({e})"
            return False
        if err != hip.hipError_t.hipSuccess or count == 0:
            self.unavailable_reason = f"no AMD GPU found (hipGetDeviceCount: {self._errname(err)}, {count} devices)"
            return False
        if self.device_index >= count:
            vis = os.environ.get("HIP_VISIBLE_DEVICES")
            self.unavailable_reason = (f"GPU {self.device_index} requested, {count} present"
                                       + (f" (HIP_VISIBLE_DEVICES={vis})" if vis is not None else ""))
            return False
        try:
            self._call("hipSetDevice", self.device_index)
            self._properties()
        except Diagnostic as d:
            self.unavailable_reason = d.message
            return False
        self._checked = True
        return True

    def device_count(self) -> int:
        """GPUs HIP shows (0 when hip-python or the runtime is missing); never raises."""
        try:
            hip = self._import()
            if hip is None:
                return 0
            err, count = hip.hipGetDeviceCount()
            return int(count) if err == hip.hipError_t.hipSuccess else 0
        except Exception:  # noqa: BLE001
            return 0

    def _require(self) -> Any:
        if not self.available():
            raise Diagnostic(f"HIP device is not available: {self.unavailable_reason}")
        return self._hip

    def _errname(self, err: Any) -> str:
        name = getattr(err, "name", str(err))
        try:
            text = self._hip.hipGetErrorString(err)
            if isinstance(text, tuple):
                text = text[-1]
            if isinstance(text, bytes):
                text = text.decode(errors="replace")
            return f"{name} ({text})" if text else name
        except Exception:  # error printing must never hide the original error
            return name

    def _call(self, fn: str, *args: Any, **kw: Any) -> Any:
        """Call ``hip.<fn>``; raise a Diagnostic on a non-success hipError_t; return the
        remaining results (one value, or a tuple, or None)."""
        hip = self._hip
        out = getattr(hip, fn)(*args, **kw)
        res = out if isinstance(out, tuple) else (out,)
        err, rest = res[0], res[1:]
        if err != hip.hipError_t.hipSuccess:
            raise Diagnostic(f"{fn} failed: {self._errname(err)}")
        return None if not rest else rest[0] if len(rest) == 1 else rest

    def _properties(self) -> Any:
        if self._props is None:
            err, props = device_properties(self._hip, self.device_index)
            if err != self._hip.hipError_t.hipSuccess:
                raise Diagnostic(f"hipGetDeviceProperties failed: {self._errname(err)}")
            self._props = props
        return self._props

    @property
    def arch(self) -> str:
        self._require()
        name = self._properties().gcnArchName
        return name.decode() if isinstance(name, (bytes, bytearray)) else str(name)

    @property
    def cu_count(self) -> int:
        self._require()
        return int(self._properties().multiProcessorCount)

    @property
    def memory_bytes(self) -> int:
        self._require()
        return int(self._properties().totalGlobalMem)

    @property
    def product_name(self) -> str:
        self._require()
        name = self._properties().name
        return (name.decode(errors="replace") if isinstance(name, (bytes, bytearray)) else str(name)).strip("\0 ")

    # -- memory ---------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        self._require()
        return int(self._call("hipMalloc", int(nbytes)))

    def free(self, addr: int) -> None:
        # A DeviceBuffer finalizer may run while the interpreter shuts down, after hip-python's
        # own teardown: freeing then is pointless (the process releases the device) and unsafe.
        if self._checked and not sys.is_finalizing():
            self._call("hipFree", addr)

    def copy_to(self, addr: int, data: bytes) -> None:
        hip = self._require()
        src = bytearray(data)
        self._call("hipMemcpy", addr, src, len(src), hip.hipMemcpyKind.hipMemcpyHostToDevice)

    def copy_from(self, addr: int, n: int) -> bytes:
        hip = self._require()
        dst = bytearray(n)
        self._call("hipMemcpy", dst, addr, n, hip.hipMemcpyKind.hipMemcpyDeviceToHost)
        return bytes(dst)

    # -- streams --------------------------------------------------------------------------
    def create_stream(self) -> Any:
        self._require()
        return self._call("hipStreamCreate")

    def destroy_stream(self, stream: Any) -> None:
        self._call("hipStreamDestroy", stream)

    # -- launch ---------------------------------------------------------------------------
    def _image(self, code_object: Any, kernel_name: str, layout: Any) -> tuple[bytes, Any]:
        """The image to load and its cache key: the code object's own bytes, or (for an explicit
        layout whose arguments the metadata does not list) a copy whose metadata lists them."""
        from gcnforge.binary.metadata_patch import replace_metadata, uncovered_args, with_explicit_args

        image = bytes(code_object.data)
        if layout is None or not layout.explicit:
            return image, id(code_object)
        info = getattr(code_object, "kernels", {}).get(kernel_name)
        kmeta = dict(getattr(info, "metadata", None) or {})
        if not uncovered_args(kmeta, layout.explicit):
            return image, id(code_object)
        md = getattr(code_object, "metadata", None) or {}
        if not md.get("amdhsa.kernels"):
            raise Diagnostic(f"kernel '{kernel_name}': the code object has no AMDGPU metadata; HIP cannot "
                             "launch it", notes=("assemble it with a .amdgpu_metadata block listing the kernel",))
        patched = with_explicit_args(md, kernel_name, layout.explicit, layout.size)
        key = (id(code_object), kernel_name, tuple((f.name, f.offset, f.size) for f in layout.explicit))
        log.info("kernel %s: its metadata does not list the layout's arguments; loading a copy whose "
                 "metadata lists its %d arguments", kernel_name, len(layout.explicit))
        return replace_metadata(image, patched, f"kernel '{kernel_name}'"), key

    def _function(self, code_object: Any, kernel_name: str, layout: Any = None) -> Any:
        image, key = self._image(code_object, kernel_name, layout)
        if key not in self._modules:
            module = self._call("hipModuleLoadData", image)
            # keep the image alive with the module and the code object (id reuse guard)
            self._modules[key] = (module, (image, code_object), {})
        module, _keep, funcs = self._modules[key]
        if kernel_name not in funcs:
            funcs[kernel_name] = self._call("hipModuleGetFunction", module, kernel_name.encode())
        return funcs[kernel_name]

    def launch(self, code_object: Any, kernel_name: str, kernarg: bytes, grid: tuple[int, int, int],
               block: tuple[int, int, int], dynamic_lds: int = 0, sanitize: bool = False,
               stream: Any = None, trace: Any = None, sanitize_mode: str = "stop",
               layout: Any = None) -> LaunchResult:
        """Launch and time with HIP events. ``layout`` is the launch's ``ArgLayout``: its explicit
        arguments decide the buffer size HIP is given (0 without any) and, for an object whose
        metadata does not list them, the metadata of the image HIP loads."""
        hip = self._require()
        if trace is not None:
            raise Diagnostic("trace= needs the emulator; a GPU launch cannot be traced per instruction",
                             notes=("launch with device='emulator' to trace",))
        if sanitize:
            raise Diagnostic("sanitize=True needs the emulator; the HIP backend runs the kernel unchecked",
                             notes=("launch with device='emulator' to check memory accesses",))
        func = self._function(code_object, kernel_name, layout)
        if layout is None:
            layout = _metadata_layout(code_object, kernel_name)
        nbytes = len(kernarg) if layout is None or layout.explicit else 0
        args = ctypes.create_string_buffer(bytes(kernarg), max(len(kernarg), 1))
        size = ctypes.c_size_t(nbytes)
        extra = (ctypes.c_void_p * 5)(
            hip.HIP_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(args),
            hip.HIP_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size),
            hip.HIP_LAUNCH_PARAM_END,
        )
        start = self._call("hipEventCreate")
        try:
            stop = self._call("hipEventCreate")
        except BaseException:
            self._destroy_events((start,), pending=True)
            raise
        try:
            self._call("hipEventRecord", start, stream)
            self._call("hipModuleLaunchKernel", func, *grid, *block, int(dynamic_lds), stream, None, extra)
            self._call("hipEventRecord", stop, stream)
            self._call("hipEventSynchronize", stop)
            ms = float(self._call("hipEventElapsedTime", start, stop))
        except BaseException:
            self._destroy_events((start, stop), pending=True)
            raise
        self._destroy_events((start, stop), pending=False)
        return LaunchResult(backend=self.name, seconds=ms * 1e-3, modeled=False,
                            notes=("measured: HIP events",))

    def _destroy_events(self, events: tuple, pending: bool) -> None:
        """Destroy every event; a failure is raised only when no earlier error is in flight
        (``pending``), so a cleanup error never hides the launch's own error."""
        first: Diagnostic | None = None
        for ev in events:
            try:
                self._call("hipEventDestroy", ev)
            except Diagnostic as d:
                log.warning("hipEventDestroy: %s", d.message)
                first = first or d
        if first is not None and not pending:
            raise first

    def close(self) -> None:
        """Unload every module this backend loaded (hipModuleUnload); every one is attempted,
        the first failure is raised after."""
        first: Diagnostic | None = None
        for module, _keep, _funcs in self._modules.values():
            try:
                self._call("hipModuleUnload", module)
            except Diagnostic as d:
                first = first or d
        self._modules.clear()
        if first is not None:
            raise first

    def __repr__(self) -> str:
        if self._checked:
            return f"HipBackend(GPU {self.device_index}, {self.arch})"
        return f"HipBackend(unavailable: {self.unavailable_reason or 'not probed'})"


def _metadata_layout(code_object: Any, kernel_name: str) -> Any:
    """The layout the kernel's metadata describes (None without metadata for it)."""
    from gcnforge.runtime.kernargs import ArgLayout

    info = getattr(code_object, "kernels", {}).get(kernel_name)
    meta = getattr(info, "metadata", None)
    return ArgLayout.from_metadata(meta) if meta else None

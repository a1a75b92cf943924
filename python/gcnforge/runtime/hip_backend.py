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
hidden arguments are ignored here (the emulator, which has no runtime of its own, uses them),
and a code object whose metadata declares no ``.args`` gets no explicit arguments from HIP —
the backend logs a warning when it launches one with a non-empty explicit layout.

Kernel time is measured with a pair of HIP events recorded around the launch on the same
stream (``hipEventElapsedTime``, milliseconds).
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.backend import LaunchResult

log = logging.getLogger("gcnforge.runtime")


# Every hip-python name this module uses (checked against the installed package in tests).
HIP_API_NAMES = (
    "hipGetDeviceCount", "hipSetDevice", "hipGetDeviceProperties", "hipGetErrorString", "hipError_t",
    "hipMalloc", "hipFree", "hipMemcpy", "hipMemcpyKind", "hipStreamCreate", "hipStreamDestroy",
    "hipModuleLoadData", "hipModuleGetFunction", "hipModuleLaunchKernel", "hipModuleUnload",
    "HIP_LAUNCH_PARAM_BUFFER_POINTER", "HIP_LAUNCH_PARAM_BUFFER_SIZE", "HIP_LAUNCH_PARAM_END",
    "hipEventCreate", "hipEventRecord", "hipEventSynchronize", "hipEventElapsedTime", "hipEventDestroy",
)


class HipBackend:
    name = "hip"

    def __init__(self, device_index: int = 0):
        self.device_index = device_index
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
        if self._checked is not None:
            return self._checked
        self._checked = False
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
            self.unavailable_reason = f"device {self.device_index} requested, {count} present"
            return False
        self._call("hipSetDevice", self.device_index)
        self._checked = True
        return True

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
            self._props = self._call("hipGetDeviceProperties", self.device_index)
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

    # -- memory ---------------------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        self._require()
        return int(self._call("hipMalloc", int(nbytes)))

    def free(self, addr: int) -> None:
        if self._checked:
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
    def _function(self, code_object: Any, kernel_name: str) -> Any:
        key = id(code_object)
        if key not in self._modules:
            image = bytes(code_object.data)
            module = self._call("hipModuleLoadData", image)
            # keep the image alive with the module and the code object (id reuse guard)
            self._modules[key] = (module, (image, code_object), {})
        module, _keep, funcs = self._modules[key]
        if kernel_name not in funcs:
            funcs[kernel_name] = self._call("hipModuleGetFunction", module, kernel_name.encode())
        return funcs[kernel_name]

    def launch(self, code_object: Any, kernel_name: str, kernarg: bytes, grid: tuple[int, int, int],
               block: tuple[int, int, int], dynamic_lds: int = 0, sanitize: bool = False,
               stream: Any = None, trace: Any = None, sanitize_mode: str = "stop") -> LaunchResult:
        hip = self._require()
        if trace is not None:
            raise Diagnostic("trace= needs the emulator; a GPU launch cannot be traced per instruction",
                             notes=("launch with device='emulator' to trace",))
        if sanitize:
            raise Diagnostic("sanitize=True needs the emulator; the HIP backend runs the kernel unchecked",
                             notes=("launch with device='emulator' to check memory accesses",))
        func = self._function(code_object, kernel_name)
        info = getattr(code_object, "kernels", {}).get(kernel_name)
        if info is not None and ".args" not in (getattr(info, "metadata", None) or {}) and any(kernarg):
            log.warning("kernel %s declares no .args in its metadata; the HIP runtime copies only "
                        "declared arguments, so the packed kernarg bytes may not reach it", kernel_name)
        args = ctypes.create_string_buffer(bytes(kernarg), max(len(kernarg), 1))
        size = ctypes.c_size_t(len(kernarg))
        extra = (ctypes.c_void_p * 5)(
            hip.HIP_LAUNCH_PARAM_BUFFER_POINTER, ctypes.addressof(args),
            hip.HIP_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size),
            hip.HIP_LAUNCH_PARAM_END,
        )
        start = self._call("hipEventCreate")
        stop = self._call("hipEventCreate")
        try:
            self._call("hipEventRecord", start, stream)
            self._call("hipModuleLaunchKernel", func, *grid, *block, int(dynamic_lds), stream, None, extra)
            self._call("hipEventRecord", stop, stream)
            self._call("hipEventSynchronize", stop)
            ms = float(self._call("hipEventElapsedTime", start, stop))
        finally:
            self._call("hipEventDestroy", start)
            self._call("hipEventDestroy", stop)
        return LaunchResult(backend=self.name, seconds=ms * 1e-3, modeled=False,
                            notes=("measured: HIP events",))

    def close(self) -> None:
        """Unload every module this backend loaded (hipModuleUnload)."""
        for module, _keep, _funcs in self._modules.values():
            self._call("hipModuleUnload", module)
        self._modules.clear()

    def __repr__(self) -> str:
        if self._checked:
            return f"HipBackend(device {self.device_index}, {self.arch})"
        return f"HipBackend(unavailable: {self.unavailable_reason or 'not probed'})"

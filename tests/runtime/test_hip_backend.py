"""The HIP backend without a GPU: the failure path, the fallback, and the exact calls it
makes (checked against a fake ``hip`` module that records them). With an AMD GPU, the
``gpu``-marked test runs a clang-compiled kernel for real."""

import ctypes
import enum
import struct
import sys
import types

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.hip_backend import HIP_API_NAMES, HipBackend
from gcnforge.testing import IN_CI


def test_unavailable_without_gpu_or_hip_python():
    b = HipBackend()
    if b.available():
        pytest.skip("an AMD GPU is present")
    assert b.unavailable_reason and ("hip-python" in b.unavailable_reason or "HIP runtime" in b.unavailable_reason
                                     or "no AMD GPU" in b.unavailable_reason)
    with pytest.raises(Diagnostic, match="HIP device is not available"):
        b.alloc(16)
    assert "unavailable" in repr(b)


def _real_hip_python():
    """hip-python's ``hip.hip`` module. It is in the ``[test]`` extra: skip without it, except
    in CI, where its absence fails (as a missing LLVM oracle does)."""
    try:
        from hip import hip
    except ImportError:
        msg = "hip-python not installed (pip install -e '.[test]')"
        if IN_CI:
            pytest.fail(msg + " -- required in CI")
        pytest.skip(msg)
    return hip


def test_real_hip_python_has_every_name_we_call():
    hip = _real_hip_python()
    missing = [n for n in HIP_API_NAMES if not hasattr(hip, n)]
    assert not missing
    assert (hip.HIP_LAUNCH_PARAM_BUFFER_POINTER, hip.HIP_LAUNCH_PARAM_BUFFER_SIZE, hip.HIP_LAUNCH_PARAM_END) == (1, 2, 3)
    assert hip.hipError_t.hipSuccess.value == 0  # HIP's hipSuccess
    assert {"hipMemcpyHostToDevice", "hipMemcpyDeviceToHost"} <= set(hip.hipMemcpyKind.__members__)


_HANDLES = {"hipModuleLoadData": "ihipModule_t", "hipModuleGetFunction": "ihipModuleSymbol_t",
            "hipEventCreate": "ihipEvent_t", "hipStreamCreate": "ihipStream_t"}


def test_every_call_the_backend_makes_fits_the_real_hip_python(monkeypatch):
    """Drive the backend through alloc, copies, a stream, a launch with events, an error and
    unload, with every call it makes checked against the installed hip-python: the arguments
    must bind to the real function's signature and, where no HIP runtime library exists (as
    here), pass the real binding's own argument conversion, which runs before it tries to
    load libamdhip64 (a RuntimeError then means the arguments were accepted; a TypeError
    that they were not). The device itself is played by the fake."""
    import inspect

    import gcnforge.runtime as rt

    from .helpers import fake_co
    from .test_launch import SAXPY_META

    real = _real_hip_python()
    try:
        real.hipGetDeviceCount()
        probe = False  # a HIP runtime is present: real calls would act, so only bind signatures
    except RuntimeError:
        probe = True
    calls, used = [], set()
    fake = _fake_hip(calls)
    fake.hipModuleUnload = lambda m: (_Err.hipSuccess,)
    fake.hipStreamCreate = lambda: (_Err.hipSuccess, None)
    fake.hipStreamDestroy = lambda s: (_Err.hipSuccess,)
    malloc_ok = fake.hipMalloc
    fake.hipMalloc = lambda n: (_Err.hipErrorInvalidValue, 0) if n == 12345 else malloc_ok(n)

    def checked(name):
        fn, play = getattr(real, name), getattr(fake, name)
        sig = inspect.signature(fn)

        def call(*args, **kw):
            sig.bind(*args, **kw)  # TypeError if the backend's call shape is not the real one
            # hipGetErrorString cannot report the missing library (it prints an ignored exception)
            if probe and name != "hipGetErrorString":
                try:
                    fn(*args, **kw)
                except RuntimeError as e:  # arguments converted; then no libamdhip64.so
                    assert "libamdhip64" in str(e), e
            used.add(name)
            out = play(*[a.value if isinstance(a, enum.Enum) else a for a in args], **kw)
            res = out if isinstance(out, tuple) else (out,)
            err = real.hipError_t(int(res[0]))
            rest = res[1:]
            if name in _HANDLES:
                rest = (getattr(real, _HANDLES[name])(),)  # the handle types the real binding returns
            return (err, *rest)
        return call

    mod = types.SimpleNamespace()
    for n in HIP_API_NAMES:
        attr = getattr(real, n)
        setattr(mod, n, checked(n) if callable(attr) and not isinstance(attr, type) else attr)
    monkeypatch.setitem(sys.modules, "hip", types.SimpleNamespace(hip=mod))

    b = HipBackend()
    assert b.available() and b.arch == "gfx942:sramecc+:xnack-"
    co = fake_co("gfx942:sramecc+:xnack-", {"saxpy": SAXPY_META})
    co.data = b"\x7fELF-image"
    stream = b.create_stream()
    out = np.ones(64, np.float32)
    rt.load(co)["saxpy"](out, np.arange(64, dtype=np.float32), 64, 2.0, grid=1, block=64, device=b, stream=stream)
    np.testing.assert_array_equal(out, 2 * np.arange(64, dtype=np.float32) + 1)
    b.destroy_stream(stream)
    with pytest.raises(Diagnostic, match="hipMalloc failed: hipErrorInvalidValue"):
        b.alloc(12345)
    b.close()
    functions = {n for n in HIP_API_NAMES if callable(getattr(real, n)) and not isinstance(getattr(real, n), type)}
    assert used == functions, functions - used  # every function the backend names was exercised


class _Err(enum.IntEnum):
    hipSuccess = 0
    hipErrorInvalidValue = 1


def _fake_hip(calls, arch=b"gfx942:sramecc+:xnack-"):
    """A stand-in for hip-python's ``hip.hip`` module (same call shapes: tuples led by
    hipError_t). Memory is ctypes buffers addressed by their real host addresses."""
    mem = {}
    h = types.SimpleNamespace()
    h.hipError_t = _Err
    h.hipDeviceProp_t = types.SimpleNamespace
    h.hipMemcpyKind = types.SimpleNamespace(hipMemcpyHostToDevice=1, hipMemcpyDeviceToHost=2)
    h.HIP_LAUNCH_PARAM_BUFFER_POINTER, h.HIP_LAUNCH_PARAM_BUFFER_SIZE, h.HIP_LAUNCH_PARAM_END = 1, 2, 3
    h.hipGetDeviceCount = lambda: (_Err.hipSuccess, 1)
    h.hipSetDevice = lambda i: (_Err.hipSuccess,)
    h.hipGetErrorString = lambda e: b"invalid argument"
    h.hipGetDeviceProperties = lambda i: (_Err.hipSuccess, types.SimpleNamespace(gcnArchName=arch, multiProcessorCount=304))

    def malloc(n):
        buf = ctypes.create_string_buffer(n)
        mem[ctypes.addressof(buf)] = buf
        return _Err.hipSuccess, ctypes.addressof(buf)

    def memcpy(dst, src, n, kind):
        calls.append(("hipMemcpy", kind, n))
        if kind == 1:
            ctypes.memmove(dst, bytes(src), n)
        else:
            dst[:n] = ctypes.string_at(src, n)
        return (_Err.hipSuccess,)

    def launch(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
        arr = ctypes.cast(ctypes.addressof(extra), ctypes.POINTER(ctypes.c_void_p))
        tags = [arr[0], arr[2], arr[4]]
        size = ctypes.c_size_t.from_address(arr[3]).value
        kernarg = ctypes.string_at(arr[1], size)
        calls.append(("launch", f, (gx, gy, gz), (bx, by, bz), shmem, stream, params, tags, kernarg))
        # play saxpy: out[i] = a * x[i] + out[i]
        out, x, n, a = struct.unpack_from("<QQIf", kernarg)
        xs = np.frombuffer(ctypes.string_at(x, 4 * n), np.float32)
        os_ = np.frombuffer(ctypes.string_at(out, 4 * n), np.float32)
        ctypes.memmove(out, (a * xs + os_).astype(np.float32).tobytes(), 4 * n)
        return (_Err.hipSuccess,)

    h.hipMalloc = malloc
    h.hipFree = lambda p: (calls.append(("hipFree", p)), mem.pop(p), (_Err.hipSuccess,))[-1]
    h.hipMemcpy = memcpy
    h.hipModuleLoadData = lambda image: (calls.append(("load", bytes(image))), (_Err.hipSuccess, "module"))[-1]
    h.hipModuleGetFunction = lambda m, name: (calls.append(("getfn", m, name)), (_Err.hipSuccess, "fn"))[-1]
    h.hipModuleLaunchKernel = launch
    h.hipEventCreate = lambda: (_Err.hipSuccess, object())
    h.hipEventRecord = lambda e, s: (calls.append(("record", s)), (_Err.hipSuccess,))[-1]
    h.hipEventSynchronize = lambda e: (_Err.hipSuccess,)
    h.hipEventElapsedTime = lambda a, b: (_Err.hipSuccess, 0.25)
    h.hipEventDestroy = lambda e: (_Err.hipSuccess,)
    return h


@pytest.fixture
def fake_hip(monkeypatch):
    calls = []
    h = _fake_hip(calls)
    h.hipModuleUnload = lambda m: (calls.append(("unload", m)), (_Err.hipSuccess,))[-1]
    missing = [n for n in HIP_API_NAMES if not hasattr(h, n) and n not in ("hipStreamCreate", "hipStreamDestroy")]
    assert not missing
    monkeypatch.setitem(sys.modules, "hip", types.SimpleNamespace(hip=h))
    return h, calls


def test_launch_builds_the_extra_array_and_times_with_events(fake_hip):
    import gcnforge.runtime as rt

    from .helpers import fake_co
    from .test_launch import SAXPY_META

    h, calls = fake_hip
    b = HipBackend()
    assert b.available() and b.arch == "gfx942:sramecc+:xnack-" and b.cu_count == 304
    co = fake_co("gfx942:sramecc+:xnack-", {"saxpy": SAXPY_META})
    co.data = b"\x7fELF-image"
    k = rt.load(co)["saxpy"]
    out = np.ones(100, np.float32)
    r = k(out, np.arange(100, dtype=np.float32), 100, 2.0, grid=(1, 1, 1), block=(128, 1, 1), device=b)
    np.testing.assert_array_equal(out, 2 * np.arange(100, dtype=np.float32) + 1)
    assert r.seconds == pytest.approx(0.25e-3) and not r.modeled
    assert ("load", b"\x7fELF-image") in calls and ("getfn", "module", b"saxpy") in calls
    (launch,) = [c for c in calls if c[0] == "launch"]
    _, fn, grid, block, shmem, stream, params, tags, kernarg = launch
    assert fn == "fn" and grid == (1, 1, 1) and block == (128, 1, 1) and shmem == 0 and params is None
    assert tags == [1, 2, 3]  # BUFFER_POINTER, BUFFER_SIZE, END
    assert len(kernarg) == 280
    # events recorded on the launch stream around the launch; temporaries freed
    assert [c for c in calls if c[0] == "record"] == [("record", None), ("record", None)]
    assert len([c for c in calls if c[0] == "hipFree"]) == 2
    # a second launch reuses the loaded module
    k(out, np.zeros(100, np.float32), 100, 0.0, grid=1, block=128, device=b)
    assert len([c for c in calls if c[0] == "load"]) == 1
    b.close()
    assert ("unload", "module") in calls


def test_hip_errors_become_diagnostics(fake_hip):
    h, calls = fake_hip
    h.hipMalloc = lambda n: (_Err.hipErrorInvalidValue, 0)
    b = HipBackend()
    with pytest.raises(Diagnostic, match="hipMalloc failed: hipErrorInvalidValue \\(invalid argument\\)"):
        b.alloc(8)


def test_sanitize_needs_the_emulator(fake_hip):
    b = HipBackend()
    with pytest.raises(Diagnostic, match="sanitize=True needs the emulator"):
        b.launch(object(), "k", b"", (1, 1, 1), (64, 1, 1), sanitize=True)


@pytest.mark.gpu
def test_saxpy_on_a_real_gpu(tmp_path):
    b = HipBackend()
    if not b.available():
        pytest.skip(f"no AMD GPU: {b.unavailable_reason}")
    from gcnforge.testing import require_llvm

    import gcnforge.runtime as rt

    from .helpers import compile_cl

    tools = require_llvm("clang", "ld.lld")
    co = compile_cl(tmp_path, """
__kernel void saxpy(__global float* out, __global const float* x, uint n, float a) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = a * x[i] + out[i];
}""", tools)
    k = rt.load(co)["saxpy"]
    x = np.random.default_rng(0).random(1000, dtype=np.float32)
    out = np.ones(1000, np.float32)
    k(out, x, 1000, 3.0, grid=(4, 1, 1), block=(256, 1, 1), device="hip")
    np.testing.assert_allclose(out, 3 * x + 1, rtol=1e-6)


@pytest.mark.gpu
def test_slots16_kernel_on_a_real_gpu():
    b = HipBackend()
    if not b.available():
        pytest.skip(f"no AMD GPU: {b.unavailable_reason}")
    from pathlib import Path

    import gcnforge.runtime as rt
    from gcnforge.binary import assemble
    from gcnforge.runtime.kernargs import ArgLayout

    text = (Path(__file__).parent / "data" / "vadd_slots16.s").read_text()
    k = rt.load(assemble(text)).kernel("vadd", layout=ArgLayout.slots16(
        ["out:f32*[n]", "a:f32*[n]", "b:f32*[n]", "n:u32", "scale:f32"]))
    a, c = np.arange(300, dtype=np.float32), np.ones(300, np.float32)
    out = np.zeros(300, np.float32)
    r = k(out=out, a=a, b=c, n=300, scale=2.0, grid=(5, 1, 1), block=(64, 1, 1), device="hip")
    np.testing.assert_array_equal(out, 2 * (a + 1))
    assert not r.modeled and r.seconds > 0

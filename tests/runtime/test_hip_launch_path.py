"""The HIP launch path where ROCm's runtime differs from the emulator (issue 32), without a GPU:
hip-python's real types and signatures, a stand-in only for the device itself.

* an explicit layout on an object whose metadata lists no ``.args``: the image HIP loads lists
  the layout's arguments (read back by LLVM 22's ``llvm-readelf --notes``, not by gcnforge);
* a kernel with no explicit arguments gets a buffer size of 0;
* both ``hipGetDeviceProperties`` signatures, filling hip-python's own ``hipDeviceProp_t``;
* error paths keep the first error and release what they created; ``available()`` never raises;
* ``device='hip:N'`` and ``gcnforge devices``; device-buffer finalizers at interpreter exit.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
import yaml

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.hip_backend import HIP_API_NAMES, HipBackend

DATA = Path(__file__).parent / "data"


def _real_hip():
    from .test_hip_backend import _real_hip_python

    return _real_hip_python()


def _write_c_string(props, getter: str, text: bytes) -> None:
    """Write ``text`` into the char-array field ``getter`` reads of a real ``hipDeviceProp_t``
    (the bindings expose no setter for char arrays): find the field's offset in the struct by
    writing a marker at each offset until the getter reads it back, as HIP's runtime would
    fill the struct."""
    base = props.as_c_void_p().value
    size = props.c_sizeof()
    marker = b"\x01gcnforge-probe\x02"
    for off in range(size - len(marker)):
        saved = ctypes.string_at(base + off, len(marker))
        ctypes.memmove(base + off, marker, len(marker))
        got = getattr(props, getter)
        got = got if isinstance(got, bytes) else str(got).encode()
        ctypes.memmove(base + off, saved, len(marker))
        if got.startswith(marker):
            ctypes.memmove(base + off, text + b"\0", len(text) + 1)
            return
    raise AssertionError(f"no offset of hipDeviceProp_t reads back as {getter}")


def _props(real, arch=b"gfx942:sramecc+:xnack-", name=b"AMD Instinct MI300X", cus=304, mem=192 << 30):
    p = real.hipDeviceProp_t()
    _write_c_string(p, "gcnArchName", arch)
    _write_c_string(p, "name", name)
    p.multiProcessorCount = cus
    p.totalGlobalMem = mem
    return p


class _Device:
    """The device side: memory as ctypes buffers at their host addresses, launches recorded."""

    def __init__(self, real, gpus=None):
        self.real, self.calls, self.mem = real, [], {}
        self.gpus = gpus or [dict()]
        self.current = 0

    def module(self, two_arg_properties: bool = False):
        real, ok = self.real, self.real.hipError_t.hipSuccess
        h = types.SimpleNamespace()
        for n in HIP_API_NAMES:  # constants, enums and types are hip-python's own
            setattr(h, n, getattr(real, n))
        h.hipGetDeviceCount = lambda: (ok, len(self.gpus))
        h.hipSetDevice = lambda i: (self.calls.append(("hipSetDevice", i)), (ok,))[-1]
        h.hipGetErrorString = lambda e: b"error"
        if two_arg_properties:  # ROCm-bundled hip-python builds: the caller passes the struct
            def props2(prop, deviceId):
                src = _props(real, **self.gpus[deviceId])
                ctypes.memmove(prop.as_c_void_p().value, src.as_c_void_p().value, src.c_sizeof())
                return (ok,)
            h.hipGetDeviceProperties = props2
        else:
            def props1(deviceId):
                return ok, _props(real, **self.gpus[deviceId])
            h.hipGetDeviceProperties = props1

        def malloc(n):
            buf = ctypes.create_string_buffer(n)
            self.mem[ctypes.addressof(buf)] = buf
            return ok, ctypes.addressof(buf)

        def memcpy(dst, src, n, kind):
            if kind == real.hipMemcpyKind.hipMemcpyHostToDevice:
                ctypes.memmove(dst, bytes(src), n)
            else:
                dst[:n] = ctypes.string_at(src, n)
            return (ok,)

        def launch(f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
            arr = ctypes.cast(ctypes.addressof(extra), ctypes.POINTER(ctypes.c_void_p))
            size = ctypes.c_size_t.from_address(arr[3]).value
            self.calls.append(("launch", size, ctypes.string_at(arr[1], size)))
            return (ok,)

        h.hipMalloc = malloc
        h.hipFree = lambda p: (self.mem.pop(p), (ok,))[-1]
        h.hipMemcpy = memcpy
        h.hipStreamCreate = lambda: (ok, None)
        h.hipStreamDestroy = lambda s: (ok,)
        h.hipModuleLoadData = lambda image: (self.calls.append(("load", bytes(image))), (ok, real.ihipModule_t()))[-1]
        h.hipModuleGetFunction = lambda m, name: (ok, real.ihipModuleSymbol_t())
        h.hipModuleLaunchKernel = launch
        h.hipModuleUnload = lambda m: (ok,)
        h.hipEventCreate = lambda: (self.calls.append(("hipEventCreate",)), (ok, real.ihipEvent_t()))[-1]
        h.hipEventRecord = lambda e, s: (ok,)
        h.hipEventSynchronize = lambda e: (ok,)
        h.hipEventElapsedTime = lambda a, b: (ok, 0.5)
        h.hipEventDestroy = lambda e: (self.calls.append(("hipEventDestroy",)), (ok,))[-1]
        return h


@pytest.fixture
def device(monkeypatch):
    real = _real_hip()
    dev = _Device(real)

    def install(two_arg_properties=False, gpus=None):
        if gpus is not None:
            dev.gpus = gpus
        monkeypatch.setitem(sys.modules, "hip", types.SimpleNamespace(hip=dev.module(two_arg_properties)))
        from gcnforge.runtime import devices

        devices.reset()
        return dev
    yield install
    from gcnforge.runtime import devices

    devices.reset()


def _readelf_kernels(llvm, image: bytes, tmp_path: Path) -> list[dict]:
    """The metadata's kernels as LLVM 22's llvm-readelf prints them (YAML)."""
    f = tmp_path / "image.co"
    f.write_bytes(image)
    out = subprocess.run([llvm["llvm-readelf"], "--notes", str(f)], capture_output=True, text=True, check=True).stdout
    body = out[out.index("---"):out.index("...", out.index("---"))]
    return yaml.safe_load(body)["amdhsa.kernels"]


def _no_args_object():
    """The vadd kernel of tests/runtime/data with its metadata's ``.args`` removed: what a
    hand-written .s or a vendor .co usually is."""
    from gcnforge.binary import assemble

    lines = (DATA / "vadd_slots16.s").read_text().splitlines()
    keep = [ln for ln in lines if ".args:" not in ln and not ln.strip().startswith("- {.offset")]
    return assemble("\n".join(keep) + "\n")


def test_slots16_launch_of_an_object_without_args_loads_metadata_that_lists_them(device, llvm, tmp_path):
    import gcnforge.runtime as rt
    from gcnforge.runtime.kernargs import ArgLayout

    dev = device()
    co = _no_args_object()
    assert ".args" not in _readelf_kernels(llvm, co, tmp_path)[0]  # what HIP would copy: nothing
    layout = ArgLayout.slots16(["out:f32*[n]", "a:f32*[n]", "b:f32*[n]", "n:u32", "scale:f32"])
    k = rt.load(co).kernel("vadd", layout=layout)
    out, a = np.zeros(300, np.float32), np.arange(300, dtype=np.float32)
    r = k(out=out, a=a, b=a, n=300, scale=2.0, grid=(5, 1, 1), block=(64, 1, 1), device=HipBackend())
    assert not r.modeled and r.seconds == pytest.approx(0.5e-3)
    (image,) = [c[1] for c in dev.calls if c[0] == "load"]
    assert image[:len(co)] != co or len(image) > len(co)  # a copy, not the file on disk
    (kmeta,) = _readelf_kernels(llvm, image, tmp_path)
    got = [(a[".offset"], a[".size"], a[".value_kind"]) for a in kmeta[".args"]]
    assert got == [(f.offset, f.size, "by_value") for f in layout.explicit]
    assert kmeta[".kernarg_segment_size"] >= layout.size
    (launch,) = [c for c in dev.calls if c[0] == "launch"]
    assert launch[1] >= layout.size  # the buffer HIP copies the declared arguments from
    # the patched image still loads and runs on the emulator (the descriptor and code unchanged)
    out2 = np.zeros(300, np.float32)
    rt.load(image).kernel("vadd", layout=layout)(out=out2, a=a, b=a, n=300, scale=2.0, grid=(5, 1, 1),
                                                 block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(out2, 2 * (a + a))


def test_object_whose_args_cover_the_layout_is_loaded_unchanged(device):
    import gcnforge.runtime as rt
    from gcnforge.binary import assemble
    from gcnforge.runtime.kernargs import ArgLayout

    dev = device()
    co = assemble((DATA / "vadd_slots16.s").read_text())
    k = rt.load(co).kernel("vadd", layout=ArgLayout.slots16(
        ["out:f32*[n]", "a:f32*[n]", "b:f32*[n]", "n:u32", "scale:f32"]))
    a = np.arange(64, dtype=np.float32)
    k(out=np.zeros(64, np.float32), a=a, b=a, n=64, scale=1.0, grid=1, block=64, device=HipBackend())
    assert [c[1] for c in dev.calls if c[0] == "load"] == [co]


def test_kernel_without_explicit_arguments_gets_buffer_size_zero(device):
    import gcnforge.runtime as rt

    from .helpers import fake_co

    dev = device()
    meta = {".args": [{".offset": 0, ".size": 8, ".value_kind": "hidden_block_count_x"}],
            ".kernarg_segment_size": 256, ".max_flat_workgroup_size": 64}
    co = fake_co("gfx942:sramecc+:xnack-", {"noargs": meta})
    co.data = b"\x7fELF-image"
    rt.load(co)["noargs"](grid=1, block=64, device=HipBackend())
    (launch,) = [c for c in dev.calls if c[0] == "launch"]
    assert launch[1] == 0


@pytest.mark.parametrize("two_arg", [False, True], ids=["hip-python-10", "rocm-bundled"])
def test_both_device_property_signatures(device, two_arg):
    device(two_arg_properties=two_arg)
    b = HipBackend()
    assert b.available(), b.unavailable_reason
    assert b.arch == "gfx942:sramecc+:xnack-" and b.cu_count == 304
    assert b.product_name == "AMD Instinct MI300X" and b.memory_bytes == 192 << 30


def test_launch_error_is_not_hidden_by_event_cleanup(device):
    import gcnforge.runtime as rt

    from .helpers import fake_co
    from .test_launch import SAXPY_META

    dev = device()
    h = sys.modules["hip"].hip
    bad = h.hipError_t.hipErrorLaunchOutOfResources
    h.hipModuleLaunchKernel = lambda *a: (bad,)
    h.hipEventDestroy = lambda e: (dev.calls.append(("hipEventDestroy",)), (h.hipError_t.hipErrorInvalidValue,))[-1]
    co = fake_co("gfx942:sramecc+:xnack-", {"saxpy": SAXPY_META})
    co.data = b"\x7fELF"
    with pytest.raises(Diagnostic, match="hipModuleLaunchKernel failed: hipErrorLaunchOutOfResources"):
        rt.load(co)["saxpy"](np.ones(8, np.float32), np.ones(8, np.float32), 8, 1.0, grid=1, block=64,
                             device=HipBackend())
    assert dev.calls.count(("hipEventDestroy",)) == 2  # both events released despite the failures


def test_failed_second_event_releases_the_first(device):
    dev = device()
    h = sys.modules["hip"].hip
    real = dev.real
    made = []

    def create():
        made.append(1)
        if len(made) == 2:
            return h.hipError_t.hipErrorOutOfMemory, None
        return h.hipError_t.hipSuccess, real.ihipEvent_t()
    h.hipEventCreate = create
    b = HipBackend()
    b._function = lambda *a, **k: "fn"
    with pytest.raises(Diagnostic, match="hipEventCreate failed: hipErrorOutOfMemory"):
        b.launch(object(), "k", b"", (1, 1, 1), (64, 1, 1))
    assert dev.calls.count(("hipEventDestroy",)) == 1


def test_available_never_raises(device):
    device()
    h = sys.modules["hip"].hip

    def boom(i):
        raise RuntimeError("driver exploded")
    h.hipSetDevice = boom
    b = HipBackend()
    assert b.available() is False and "driver exploded" in b.unavailable_reason


def test_hip_n_selects_that_gpu(device):
    from gcnforge.runtime.devices import get_device

    dev = device(gpus=[dict(), dict(name=b"AMD Instinct MI308X", cus=80)])
    b = get_device("hip:1")
    assert isinstance(b, HipBackend) and b.device_index == 1 and b.cu_count == 80
    assert ("hipSetDevice", 1) in dev.calls
    with pytest.raises(Diagnostic, match="GPU 5 requested, 2 present"):
        get_device("hip:5")
    with pytest.raises(Diagnostic, match="unknown device 'gpu'"):
        get_device("gpu")


def test_gcnforge_devices_lists_gpus_with_their_profiles(device, capsys, monkeypatch):
    from gcnforge.cli.main import main

    device(gpus=[dict(), dict(name=b"AMD Instinct MI308X", cus=80),
                 dict(name=b"AMD Instinct MI325X", mem=256 << 30)])
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    rows = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("hip")}
    assert "mi300x" in rows["hip"] and "304" in rows["hip"] and "192" in rows["hip"]
    assert "mi308x" in rows["hip:1"] and " 80 " in rows["hip:1"]
    assert "mi325x" in rows["hip:2"] and "256" in rows["hip:2"]


def test_run_device_option_takes_hip_n():
    from gcnforge.cli.main import main

    with pytest.raises(SystemExit) as e:
        main(["run", "x.co", "k", "--grid", "1", "--block", "64", "--device", "gpu0"])
    assert e.value.code == 2


def test_device_buffer_finalizers_do_not_run_at_interpreter_exit(tmp_path):
    """A DeviceBuffer alive at exit must not call the backend's free: HIP may be torn down."""
    script = tmp_path / "exit.py"
    script.write_text(
        "import numpy as np\n"
        "from gcnforge.runtime.buffers import DeviceBuffer\n"
        "class B:\n"
        "    name = 'fake'\n"
        "    def alloc(self, n): return 4096\n"
        "    def free(self, a): print('FREED-AT-EXIT')\n"
        "keep = DeviceBuffer(B(), (4,), np.float32)\n")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "FREED-AT-EXIT" not in r.stdout


def test_measured_launches_are_written_beside_the_prediction(device, tmp_path):
    """``record_measured`` (what ``pytest integration_test --device hip`` turns on): a GPU launch
    gives a CSV row with its measured time and the timing model's prediction for that GPU."""
    import csv

    import gcnforge.runtime as rt
    from gcnforge.runtime.kernargs import ArgLayout
    from gcnforge.runtime.measured import record_measured

    device(gpus=[dict(name=b"AMD Instinct MI308X", cus=80)])
    layout = ArgLayout.slots16(["out:f32*[n]", "a:f32*[n]", "b:f32*[n]", "n:u32", "scale:f32"])
    k = rt.load(_no_args_object()).kernel("vadd", layout=layout)
    a = np.arange(256, dtype=np.float32)
    with record_measured(tmp_path / "m.csv") as m:
        k(out=np.zeros(256, np.float32), a=a, b=a, n=256, scale=1.0, grid=(4, 1, 1), block=(64, 1, 1),
          device=HipBackend())
    assert m.rows == 1
    (row,) = list(csv.DictReader((tmp_path / "m.csv").open()))
    assert row["kernel"] == "vadd" and row["profile"] == "MI308X" and float(row["measured_us"]) == 500.0
    assert float(row["predicted_us"]) > 0 and row["limiter"], row

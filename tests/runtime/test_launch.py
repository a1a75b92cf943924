"""Launch plumbing with a recording test double: argument binding, validation, staging of
NumPy arrays, copy-back, device choice. The double plays the kernel in Python, reading its
arguments from the packed kernarg bytes with the struct module."""

import logging
import struct

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime import devices
from gcnforge.runtime.kernargs import ArgLayout

from .helpers import RecordingBackend, fake_co

SAXPY_META = {".kernarg_segment_size": 280, ".kernarg_segment_align": 8, ".group_segment_fixed_size": 0, ".args": [
    {".offset": 0, ".size": 8, ".value_kind": "global_buffer", ".address_space": "global", ".type_name": "float*", ".name": "out"},
    {".offset": 8, ".size": 8, ".value_kind": "global_buffer", ".address_space": "global", ".type_name": "float*", ".name": "x", ".is_const": True},
    {".offset": 16, ".size": 4, ".value_kind": "by_value", ".type_name": "uint", ".name": "n"},
    {".offset": 20, ".size": 4, ".value_kind": "by_value", ".type_name": "float", ".name": "a"},
    {".offset": 24, ".size": 4, ".value_kind": "hidden_block_count_x"},
    {".offset": 36, ".size": 2, ".value_kind": "hidden_group_size_x"},
]}


def saxpy_effect(mem, kernarg, grid, block):
    out, x, n, a = struct.unpack_from("<QQIf", kernarg, 0)
    nblocks, = struct.unpack_from("<I", kernarg, 24)
    bsize, = struct.unpack_from("<H", kernarg, 36)
    o = np.frombuffer(mem[out], dtype=np.float32)
    xv = np.frombuffer(mem[x], dtype=np.float32)
    m = min(n, nblocks * bsize)
    res = a * xv[:m] + o[:m]
    mem[out][: 4 * m] = res.astype(np.float32).tobytes()


@pytest.fixture
def dev():
    return RecordingBackend(effect=saxpy_effect)


@pytest.fixture
def saxpy():
    return rt.load(fake_co("gfx942:sramecc+:xnack-", {"saxpy": SAXPY_META}))["saxpy"]


def test_numpy_arrays_copied_in_and_back(dev, saxpy):
    x = np.arange(300, dtype=np.float32)
    out = np.ones(300, dtype=np.float32)
    r = saxpy(out, x, 300, 2.0, grid=(2, 1, 1), block=(256, 1, 1), device=dev)
    np.testing.assert_array_equal(out, 2.0 * np.arange(300, dtype=np.float32) + 1)
    np.testing.assert_array_equal(x, np.arange(300, dtype=np.float32))  # const input untouched
    assert r.modeled and r.cycles == 1000
    assert dev.mem == {}  # temporaries freed
    k = dev.launches[0]["kernarg"]
    assert len(k) == 280 and struct.unpack_from("<I", k, 24) == (2,) and struct.unpack_from("<H", k, 36) == (256,)


def test_keywords_and_2d_arrays(dev, saxpy):
    x = np.full((4, 8), 3, dtype=np.float32)
    out = np.zeros((4, 8), dtype=np.float32)
    saxpy(n=32, a=0.5, out=out, x=x, grid=1, block=64, device=dev)
    assert out.shape == (4, 8) and np.all(out == 1.5)
    assert dev.launches[0]["grid"] == (1, 1, 1) and dev.launches[0]["block"] == (64, 1, 1)


def test_non_contiguous_array_written_back(dev, saxpy):
    base = np.zeros((8, 2), dtype=np.float32)
    out = base[:, 0]  # strided view
    saxpy(out, np.ones(8, np.float32), 8, 1.0, grid=1, block=64, device=dev)
    assert np.all(base[:, 0] == 1) and np.all(base[:, 1] == 0)


def test_device_buffers_avoid_copies(dev, saxpy):
    x = rt.to_device(np.arange(64, dtype=np.float32), dev)
    out = rt.empty(64, np.float32, device=dev)
    before = len(dev.mem)
    saxpy(out, x, 64, 1.0, grid=1, block=64)  # device taken from the buffers
    assert len(dev.mem) == before  # no staging allocations
    np.testing.assert_array_equal(out.numpy(), np.arange(64, dtype=np.float32))
    assert "256 bytes" in repr(out) and "recording" in repr(out)


@pytest.mark.parametrize("call,msg", [
    (lambda k, d: k(np.zeros(4, np.float32), grid=1, block=64, device=d), "missing argument(s) 'x', 'n', 'a'"),
    (lambda k, d: k(1, 2, 3, 4, 5, grid=1, block=64, device=d), "takes 4 argument(s)"),
    (lambda k, d: k(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, bogus=1, grid=1, block=64, device=d),
     "no argument 'bogus'"),
    (lambda k, d: k(np.zeros(4, np.float64), np.zeros(4, np.float32), 4, 1.0, grid=1, block=64, device=d),
     "argument 'out' points to f32"),
    (lambda k, d: k(2.0, np.zeros(4, np.float32), 4, 1.0, grid=1, block=64, device=d), "argument 'out' is a pointer"),
    (lambda k, d: k(np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(3), 1.0, grid=1, block=64, device=d),
     "argument 'n' takes a u32 value"),
    (lambda k, d: k(np.zeros(4, np.float32), np.zeros(4, np.float32), -4, 1.0, grid=1, block=64, device=d),
     "argument 'n': -4 does not fit"),
    (lambda k, d: k(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, grid=(0, 1), block=64, device=d),
     "grid"),
    (lambda k, d: k(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, grid=1, block=(64, 32), device=d),
     "at most 1024"),
    (lambda k, d: k(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, grid=1, device=d), "pass block="),
])
def test_validation_errors_name_the_argument(dev, saxpy, call, msg):
    with pytest.raises(Diagnostic) as e:
        call(saxpy, dev)
    assert msg in str(e.value)
    assert dev.launches == [] and dev.mem == {}  # nothing launched, nothing leaked


def test_slots16_layout_with_keywords_and_buffer_sizes(dev):
    co = fake_co("gfx942", {"vendor_kernel": {}})
    lay = ArgLayout.slots16(["out:f32*[n]", "x:f32*[n]", "n:u32", "a:f32"])
    k = rt.load(co).kernel("vendor_kernel", layout=lay)

    def effect(mem, kernarg, grid, block):
        out, x, n, a = struct.unpack("<Q8xQ8xI12xf12x", kernarg)
        mem[out][: 4 * n] = (a * np.frombuffer(mem[x], np.float32)[:n]).tobytes()

    dev.effect = effect
    out = np.zeros(16, np.float32)
    k(out=out, x=np.ones(16, np.float32), n=16, a=3.0, grid=1, block=256, device=dev)
    assert np.all(out == 3)
    with pytest.raises(Diagnostic, match=r"argument 'x': buffer has 8 element\(s\), the layout needs n = 16"):
        k(out=out, x=np.ones(8, np.float32), n=16, a=3.0, grid=1, block=256, device=dev)


def test_wrong_arch_refused_naming_both(saxpy):
    dev = RecordingBackend(arch="gfx90a:sramecc+:xnack-")
    with pytest.raises(Diagnostic) as e:
        saxpy(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, grid=1, block=64, device=dev)
    assert "gfx942:sramecc+:xnack-" in str(e.value) and "gfx90a:sramecc+:xnack-" in str(e.value)


def test_kernel_lookup_errors():
    mod = rt.load(fake_co("gfx942", {"a": {}, "b": {}}))
    with pytest.raises(Diagnostic, match="no kernel 'c'.*") as e:
        mod["c"]
    assert "kernels: a, b" in str(e.value)
    assert "a" in mod and "Module(" in repr(mod)


def test_buffers_on_another_device_refused(saxpy):
    d1, d2 = RecordingBackend(), RecordingBackend()
    x = rt.to_device(np.zeros(4, np.float32), d1)
    with pytest.raises(Diagnostic, match="lives on the recording device"):
        saxpy(np.zeros(4, np.float32), x, 4, 1.0, grid=1, block=64, device=d2)


def test_lds_argument_offsets_and_dynamic_size():
    meta = {".group_segment_fixed_size": 100, ".kernarg_segment_size": 24, ".args": [
        {".offset": 0, ".size": 4, ".value_kind": "dynamic_shared_pointer", ".pointee_align": 16, ".address_space": "local"},
        {".offset": 4, ".size": 4, ".value_kind": "dynamic_shared_pointer", ".pointee_align": 4, ".address_space": "local"},
        {".offset": 8, ".size": 4, ".value_kind": "hidden_dynamic_lds_size"},
    ]}
    dev = RecordingBackend()
    k = rt.load(fake_co("gfx942", {"k": meta}))["k"]
    k(40, 8, grid=1, block=64, device=dev)
    kern = dev.launches[0]["kernarg"]
    # first buffer starts at the static LDS rounded up to 16 (112), the second after its 40 bytes
    assert struct.unpack_from("<III", kern, 0) == (112, 152, 60)
    assert dev.launches[0]["dynamic_lds"] == 60


def test_default_device_falls_back_to_emulator_and_logs(caplog, monkeypatch):
    monkeypatch.delenv("GCNFORGE_DEVICE", raising=False)
    devices.reset()
    hip = devices._make("hip")
    assert not hip.available() and hip.unavailable_reason  # no GPU on this machine
    emu = devices._make("emulator")
    assert emu.available(), emu.unavailable_reason  # the project\'s own emulator: never a skip
    with caplog.at_level(logging.INFO, logger="gcnforge.runtime"):
        d = devices.get_device(None, "gfx942:sramecc+:xnack-")
    assert d.name == "emulator"
    assert "using the emulator" in caplog.text and "HIP" in caplog.text


def test_explicit_hip_without_gpu_is_a_clear_diagnostic(monkeypatch):
    devices.reset()
    with pytest.raises(Diagnostic, match="hip device is not available: "):
        devices.get_device("hip")
    with pytest.raises(Diagnostic, match="unknown device 'cuda'"):
        devices.get_device("cuda")


def test_metadata_without_args_asks_for_a_layout(dev):
    k = rt.load(fake_co("gfx942", {"vendor": {".kernarg_segment_size": 64}}))["vendor"]
    with pytest.raises(Diagnostic, match=r"metadata does not describe its arguments") as e:
        k(np.zeros(4, np.float32), grid=1, block=64, device=dev)
    assert "ArgLayout.slots16" in str(e.value)


def test_explicit_layout_padded_to_the_code_object_kernarg_size():
    dev = RecordingBackend()
    k = rt.load(fake_co("gfx942", {"vendor": {".kernarg_segment_size": 64}})).kernel(
        "vendor", layout=ArgLayout.slots16(["n:u32"]))
    k(n=5, grid=1, block=64, device=dev)
    assert dev.launches[0]["kernarg"] == struct.pack("<I", 5) + bytes(60)


def test_bench_stages_arrays_once_and_labels_times(dev, saxpy):
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    res = rt.bench(saxpy, out, x, 64, 1.0, grid=1, block=64, device=dev, warmup=1, repeat=3)
    assert len(dev.launches) == 4 and len(res.seconds) == 3
    # copied in once, results back once: out accumulated over 4 launches
    np.testing.assert_array_equal(out, 4 * x)
    assert res.modeled and "modeled" in res.label and "us" in str(res)
    assert dev.mem == {}


@pytest.mark.parametrize("arr,msg", [(np.array([1, "a"], dtype=object), "Python objects"),
                                     (np.zeros(4, ">f4"), "big-endian")])
def test_arrays_that_cannot_be_copied(dev, saxpy, arr, msg):
    with pytest.raises(Diagnostic, match=msg):
        saxpy(arr, np.zeros(4, np.float32), 4, 1.0, grid=1, block=64, device=dev)


@pytest.mark.parametrize("lds", [-1, 70000, 1.5])
def test_bad_dynamic_lds(dev, saxpy, lds):
    with pytest.raises(Diagnostic, match="dynamic_lds"):
        saxpy(np.zeros(4, np.float32), np.zeros(4, np.float32), 4, 1.0, grid=1, block=64, device=dev, dynamic_lds=lds)

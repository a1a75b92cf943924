"""Launches on the emulator, checked against NumPy: clang-compiled OpenCL kernels with
every argument kind (global pointers, const pointers, 8/16/32/64-bit integers, float,
double, vectors, __local pointers, hidden arguments) and a hand-written kernel in the
16-byte-slot convention. Skipped until the emulator's Device exists."""

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.runtime.kernargs import ArgLayout
from gcnforge.testing import require_llvm

from .helpers import RecordingBackend, compile_cl, require_emulator

DATA = Path(__file__).parent / "data"

KERNELS = r"""
__kernel void saxpy(__global float* out, __global const float* x, uint n, float a) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = a * x[i] + out[i];
}

__kernel void mixed(__global double* out, char c, short s, long l, double d, __global const int* p,
                    __local float* lds, uchar4 v, ushort h) {
  uint t = __builtin_amdgcn_workitem_id_x();
  lds[t] = (float)p[t];
  __builtin_amdgcn_s_barrier();
  out[t] = c + s + l + d + lds[t ^ 63] + v.x + 2 * v.y + 3 * v.z + 4 * v.w + h;
}

__kernel void hidden(__global uint* out) {
  __constant uint* ia = (__constant uint*)__builtin_amdgcn_implicitarg_ptr();
  uint t = __builtin_amdgcn_workitem_id_x();
  if (__builtin_amdgcn_workgroup_id_x() == 0 && t < 32) out[t] = ia[t];
}

__kernel void ids2d(__global uint* out, uint width) {
  uint x = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  uint y = __builtin_amdgcn_workgroup_id_y() * __builtin_amdgcn_workgroup_size_y() + __builtin_amdgcn_workitem_id_y();
  out[y * width + x] = y * 1000 + x;
}
"""


@pytest.fixture(scope="module")
def emulator():
    return require_emulator()


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    tools = require_llvm("clang", "ld.lld")
    co = compile_cl(tmp_path_factory.mktemp("emu"), KERNELS, tools, "kernels", extra=("-cl-kernel-arg-info",))
    return rt.load(co)


def test_saxpy_partial_last_workgroup(mod, emulator):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1000).astype(np.float32)
    out = rng.standard_normal(1000).astype(np.float32)
    # clang contracts a*x+out into one fused multiply-add (OpenCL allows it): the exact
    # result rounded once, which float64 arithmetic reproduces for these magnitudes
    expect = (1.5 * x.astype(np.float64) + out.astype(np.float64)).astype(np.float32)
    r = mod["saxpy"](out, x, 1000, 1.5, grid=(4, 1, 1), block=(256, 1, 1), device=emulator)
    np.testing.assert_array_equal(out, expect)
    assert r.backend == "emulator" and r.modeled
    # no timing= asked: no time (issue 28), only the issue model's cycle count
    assert r.seconds is None and r.clock_hz is None and r.cycles > 0 and "no time" in r.notes[0]


def test_every_explicit_argument_kind(mod, emulator):
    k = mod["mixed"]
    assert [f.kind for f in k.layout.explicit] == ["ptr", "value", "value", "value", "value", "ptr", "lds", "value", "value"]
    p = np.arange(64, dtype=np.int32) * 7 - 100
    out = np.zeros(64, np.float64)
    k(out=out, c=-3, s=-300, l=-(2**40), d=0.125, p=p, lds=64 * 4, v=[1, 2, 3, 4], h=65535,
      grid=1, block=64, device=emulator)
    expect = -3 - 300 - 2.0**40 + 0.125 + p[::-1].astype(np.float64) + (1 + 4 + 9 + 16) + 65535
    np.testing.assert_array_equal(out, expect)


def test_hidden_arguments_reach_the_kernel(mod, emulator):
    out = np.zeros(32, np.uint32)
    mod["hidden"](out, grid=(3, 2, 1), block=(64, 1, 1), device=emulator)
    raw = out.tobytes()
    assert struct.unpack_from("<III", raw, 0) == (3, 2, 1)  # hidden_block_count_x/y/z
    assert struct.unpack_from("<HHH", raw, 12) == (64, 1, 1)  # hidden_group_size_x/y/z
    assert struct.unpack_from("<HHH", raw, 18) == (0, 0, 0)  # hidden_remainder_x/y/z
    assert struct.unpack_from("<H", raw, 64) == (3,)  # hidden_grid_dims


def test_two_dimensional_grid(mod, emulator):
    w, h = 16, 24
    out = np.zeros(w * h, np.uint32)
    mod["ids2d"](out, w, grid=(2, 3, 1), block=(8, 8, 1), device=emulator)
    yy, xx = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(out.reshape(h, w), (yy * 1000 + xx).astype(np.uint32))


def _vadd_co(tmp_path, toolchain):
    text = (DATA / "vadd_slots16.s").read_text()
    if toolchain == "llvm":
        tools = require_llvm("llvm-mc", "ld.lld")
        obj, co = tmp_path / "v.o", tmp_path / "v.co"
        subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj",
                        str(DATA / "vadd_slots16.s"), "-o", str(obj)], check=True)
        subprocess.run([tools["ld.lld"], "-shared", str(obj), "-o", str(co)], check=True)
        return co.read_bytes()
    from gcnforge.binary import assemble

    return assemble(text, filename="vadd_slots16.s")


@pytest.mark.parametrize("toolchain", ["llvm", "builtin"])
def test_hand_written_slots16_kernel(tmp_path, emulator, toolchain):
    m = rt.load(_vadd_co(tmp_path, toolchain))
    raw = m["vadd"]  # the metadata layout: five untyped 16-byte blobs
    assert [(f.kind, f.size, f.type) for f in raw.layout.explicit] == [("value", 16, None)] * 5
    from gcnforge.diagnostics import Diagnostic

    with pytest.raises(Diagnostic, match="argument 'arg0' takes an untyped 16-byte value"):
        raw(np.zeros(4, np.float32), 0, 0, 4, 1.0, grid=1, block=64, device=emulator)
    lay = ArgLayout.slots16(["out:f32*[n]", "a:f32*[n]", "b:f32*[n]", "n:u32", "scale:f32"])
    k = m.kernel("vadd", layout=lay)
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(200).astype(np.float32), rng.standard_normal(200).astype(np.float32)
    out = np.zeros(200, np.float32)
    k(out=out, a=a, b=b, n=200, scale=0.5, grid=(4, 1, 1), block=(64, 1, 1), device=emulator)
    np.testing.assert_array_equal(out, np.float32(0.5) * (a + b))


def test_device_buffers_and_bench_on_the_emulator(mod, emulator):
    x = rt.to_device(np.arange(256, dtype=np.float32), emulator)
    out = rt.empty(256, np.float32, device=emulator)
    out.write(np.zeros(256, np.float32))
    res = rt.bench(mod["saxpy"], out, x, 256, 2.0, grid=1, block=256)
    # on the emulator bench predicts with the timing model of the target's default device (MI300X)
    assert res.modeled and res.backend == "emulator" and "timing model" in res.label and res.clock_hz == 2.1e9
    np.testing.assert_array_equal(out.numpy(), 2 * np.arange(256, dtype=np.float32))
    once = mod["saxpy"](out, x, 256, 2.0, grid=1, block=256, timing=True)  # the same prediction, asked directly
    assert once.timing.device == "MI300X" and res.median == once.seconds and res.cycles == once.cycles


def test_sanitize_flag_reaches_the_emulator(mod, emulator):
    out = np.zeros(64, np.float32)
    mod["saxpy"](out, np.ones(64, np.float32), 64, 1.0, grid=1, block=64, device=emulator, sanitize=True)
    assert np.all(out == 1)


def _clang_co(tmp_path, arch, src="__kernel void k(__global int* o) { o[0] = 1; }"):
    tools = require_llvm("clang", "ld.lld")
    s = tmp_path / "k.cl"
    s.write_text(src)
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}", "-nogpulib",
                    "-O2", "-c", str(s), "-o", str(tmp_path / "k.o")], check=True)
    subprocess.run([tools["ld.lld"], "-shared", str(tmp_path / "k.o"), "-o", str(tmp_path / "k.co")], check=True)
    return tmp_path / "k.co"


def test_code_object_for_another_arch_is_refused(tmp_path, emulator):
    from gcnforge.diagnostics import Diagnostic

    co = _clang_co(tmp_path, "gfx90a")
    with pytest.raises(Diagnostic) as e:
        rt.load(co)["k"](np.zeros(1, np.int32), grid=1, block=64, device=emulator)
    assert "gfx90a" in str(e.value) and "gfx942" in str(e.value) and "emulator" in str(e.value)


def test_gfx950_code_object_runs_on_the_emulator_as_gfx950(tmp_path, emulator):
    """The emulator picks the target from the code object (issue 18): clang's gfx950 kernel runs."""
    co = _clang_co(tmp_path, "gfx950", "__kernel void k(__global int* o) { int i = __builtin_amdgcn_workgroup_id_x() * 64"
                   " + __builtin_amdgcn_workitem_id_x(); o[i] = 3 * i; }")
    out = np.zeros(256, np.int32)
    rt.load(co)["k"](out, grid=4, block=64, device=emulator)
    np.testing.assert_array_equal(out, 3 * np.arange(256))
    from gcnforge.runtime.devices import get_device

    b = get_device(emulator)
    assert b.arch_for("gfx950:xnack-") == "gfx950" and b.arch_for("gfx942") == "gfx942" == b.arch


def test_gfx950_code_object_refused_on_a_gfx942_device(tmp_path):
    from gcnforge.diagnostics import Diagnostic

    co = _clang_co(tmp_path, "gfx950")
    with pytest.raises(Diagnostic) as e:
        rt.load(co)["k"](np.zeros(1, np.int32), grid=1, block=64, device=RecordingBackend(arch="gfx942"))
    assert "gfx950" in str(e.value) and "gfx942" in str(e.value)


def test_sanitizer_report_and_no_copy_back_after_a_fault(mod, emulator):
    from gcnforge.diagnostics import Diagnostic

    out = np.full(64, 7, np.float32)
    with pytest.raises(Diagnostic) as e:  # n=128 but the buffers hold 64 floats
        mod["saxpy"](out, np.ones(64, np.float32), 128, 1.0, grid=2, block=64, device=emulator, sanitize=True)
    text = str(e.value)
    assert "saxpy" in text and "pc=" in text and ("oob" in text or "unmapped" in text or "outside" in text), text
    assert np.all(out == 7)  # a failed launch leaves the caller's arrays untouched


def test_overrun_inside_the_allocation_granule_runs_and_the_sanitizer_names_the_array(mod, emulator):
    """n=96 on 64-float buffers: lanes 64-95 touch the 128 bytes after each 256-byte array, inside
    the 4 KiB page ROCr rounds every allocation to (emulator/memory.py), so the launch runs as on a
    GPU (the arrays' own elements right); the sanitizer reports the access and names the argument."""
    from gcnforge.diagnostics import Diagnostic

    x = np.arange(64, dtype=np.float32)
    out = np.ones(64, np.float32)
    mod["saxpy"](out, x, 96, 2.0, grid=1, block=128, device=emulator)
    np.testing.assert_array_equal(out, 2 * x + 1)
    with pytest.raises(Diagnostic) as e:
        mod["saxpy"](np.ones(64, np.float32), x, 96, 2.0, grid=1, block=128, device=emulator, sanitize=True)
    text = str(e.value)
    assert e.value.kind == "oob" and "256-byte allocation 'x'" in text and "0 bytes past its end" in text, text

"""Typed kernel arguments (issue 24): ``Arg.ptr("x", np.float32)`` / ``Arg.value("alpha",
np.float32)`` reach the code object's metadata as clang 22 writes typed OpenCL arguments
(the oracle: clang's own metadata for the same signature), so the runtime's dtype and scalar
checks apply to gcnforge kernels: a float64 array for an f32 kernel is refused before the
launch, and ``gcnforge run -a alpha=2.0`` converts to the declared f32."""

from __future__ import annotations

import inspect
import subprocess

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.builder import Arg, Module
from gcnforge.cli.main import main
from gcnforge.diagnostics import Diagnostic
from gcnforge.passes import pipeline as pl
from gcnforge.testing import require_llvm
from gcnforge.translate import to_code_object

CL = """
__kernel void t(__global float* y, __global const float* x, float alpha, int n, __global double* d,
                __global uint* u, uchar g, long l, __global ushort* h, __bf16 b) {
  y[0] = alpha * x[0] + d[0] + u[0] + g + l + h[0] + n + (float)b;
}
"""
ARGS = [Arg.ptr("y", np.float32), Arg.ptr("x", np.float32, access="read_only"), Arg.value("alpha", np.float32),
        Arg.value("n", np.int32), Arg.ptr("d", np.float64), Arg.ptr("u", "u32"), Arg.value("g", np.uint8),
        Arg.value("l", np.int64), Arg.ptr("h", np.uint16), Arg.value("b", "bf16")]


def _compile(m: Module) -> bytes:
    pl.run(m.top, pl.parse(pl.DEFAULT))
    return to_code_object(m.top)


def _args_of(co: bytes, kernel: str) -> list[dict]:
    return rt.load(co).kernels[kernel].metadata[".args"]


def test_metadata_types_and_offsets_as_clang_writes_them(tmp_path):
    tools = require_llvm("clang")
    (tmp_path / "t.cl").write_text(CL)
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib",
                    "-O2", str(tmp_path / "t.cl"), "-o", str(tmp_path / "t.co")], check=True)
    clang = [a for a in _args_of((tmp_path / "t.co").read_bytes(), "t") if not a[".value_kind"].startswith("hidden")]
    m = Module("typed")
    with m.kernel("t", ARGS):
        pass
    ours = _args_of(_compile(m), "t")
    keys = (".type_name", ".size", ".offset", ".value_kind", ".address_space")
    assert [{k: a.get(k) for k in keys} for a in ours] == [{k: a.get(k) for k in keys} for a in clang]


def _saxpy() -> bytes:
    """y[i] = alpha * x[i] + y[i] for i < n: one work-item per element, lanes past n masked."""
    m = Module("saxpy")
    args = [Arg.ptr("y", np.float32), Arg.ptr("x", np.float32, access="read_only"),
            Arg.value("alpha", np.float32), Arg.value("n", np.int32)]
    with m.kernel("saxpy", args, workgroup_size=(64, 1, 1)) as k:
        y, x, alpha, n = k.args()
        gid = k.v_add_u32(k.s_lshl_b32(k.block_id("x"), 6), k.thread_id("x"))
        k.s_and_saveexec_b64(k.v_cmp_gt_i32_e64(n, gid))
        off = k.v_lshlrev_b32(2, gid)
        a, ta = k.global_load_dword(off, x)
        b, tb = k.global_load_dword(off, y)
        k.wait(ta, tb)
        k.global_store_dword(off, k.v_fma_f32(alpha, a, b), y)
    return _compile(m)


def test_f64_array_for_f32_kernel_refused_before_launch():
    k = rt.load(_saxpy())["saxpy"]
    y = np.zeros(100, np.float32)
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(Diagnostic, match=r"argument 'x' points to f32 \('float'\) but the array has dtype float64") as e:
        k(y, np.ones(100), 2.0, 100, grid=2, block=64, device="emulator")
    assert not y.any()
    assert (e.value.loc.file, e.value.loc.line, e.value.loc.col) == (__file__, line, 9)  # the author's call


@pytest.mark.parametrize("n", [1, 100, 128])
def test_cli_run_typed_alpha_matches_numpy(tmp_path, capsys, n):
    co = tmp_path / "saxpy.hsaco"
    co.write_bytes(_saxpy())
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(128).astype(np.float32), rng.standard_normal(128).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    rc = main(["run", str(co), "saxpy", "--grid", "2", "--block", "64", "--device", "emulator",
               "-a", f"y={tmp_path / 'y.npy'}", "-a", f"x={tmp_path / 'x.npy'}", "-a", "alpha=2.0",
               "-a", f"n={n}", "--save", str(tmp_path / "out")])
    assert rc == 0
    want = y.copy()
    want[:n] = np.float32(2.0) * x[:n] + y[:n]
    np.testing.assert_allclose(np.load(tmp_path / "out" / "y.npy"), want, rtol=1e-6)


def test_cli_run_f64_array_refused(tmp_path, capsys):
    co = tmp_path / "saxpy.hsaco"
    co.write_bytes(_saxpy())
    rc = main(["run", str(co), "saxpy", "--grid", "1", "--block", "64", "--device", "emulator",
               "-a", "y=zeros:64:f32", "-a", "x=ones:64:f64", "-a", "alpha=2.0", "-a", "n=64"])
    err = capsys.readouterr().err
    assert rc == 1 and "argument 'x' points to f32" in err and "Traceback" not in err


def test_unknown_argument_type_at_authors_line():
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(Diagnostic) as e:
        Arg.ptr("x", object)
    assert "argument type" in e.value.message
    assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


def test_value_size_contradicting_its_type_at_authors_line():
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(Diagnostic, match="a f64 value is 8 bytes, not size=4") as e:
        Arg.value("alpha", np.float64, size=4)
    assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


def test_untyped_arguments_stay_raw_bytes():
    m = Module("raw")
    with m.kernel("raw", [Arg.ptr("p"), Arg.value("bits", size=8)]):
        pass
    co = _compile(m)
    assert all(".type_name" not in a for a in _args_of(co, "raw"))
    k = rt.load(co)["raw"]
    assert [f.type for f in k.layout.explicit] == [None, None]
    with pytest.raises(Diagnostic, match="argument 'bits'"):  # raw: exactly its 8 bytes, not a float
        k.layout.pack({"p": 0, "bits": b"\0" * 4}, rt.kernargs.LaunchDims((1, 1, 1), (64, 1, 1)))


def test_layout_contradicting_metadata_refused():
    from gcnforge.runtime.kernargs import ArgLayout

    mod = rt.load(_saxpy())
    with pytest.raises(Diagnostic, match="contradicts the code object's metadata"):
        mod.kernel("saxpy", layout=ArgLayout.slots16(["y:f32*", "x:f32*", "alpha:f32", "n:i32"]))
    with pytest.raises(Diagnostic, match="which has 'alpha' there as a value f32"):
        mod.kernel("saxpy", layout=ArgLayout([{"name": "y", "offset": 0, "type": "f32*"},
                                              {"name": "x", "offset": 8, "type": "f32*"},
                                              {"name": "alpha", "offset": 16, "type": "u32"}]))
    # a layout that agrees is honoured
    assert mod.kernel("saxpy", layout=ArgLayout.from_metadata(mod.kernels["saxpy"].metadata)).layout.explicit


def test_raise_keeps_the_types(tmp_path):
    from gcnforge.raising.lifter import _arg_type

    assert [_arg_type(t, k, s) for t, k, s in (("float*", "global_buffer", 8), ("const uint*", "global_buffer", 8),
                                                 ("float", "by_value", 4), ("float", "by_value", 8),
                                                 ("float4", "by_value", 16), ("mystruct*", "global_buffer", 8))] \
        == ["f32", "u32", "f32", "none", "none", "none"]

"""``gcnforge compile --target gfx950``: the GEMM example built with CDNA4's 16x16x32 MFMAs,
held to LLVM (llvm-mc -mcpu=gfx950 assembles the same .s to the same code, descriptor and
metadata; llvm-objdump --mcpu=gfx950 reads the MFMAs back), and the target checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.cli.cmd_compile import DEFAULT, compile_file
from gcnforge.testing import require_llvm

ROOT = Path(__file__).resolve().parents[2]
GEMM = ROOT / "examples" / "gemm_mfma_f16.py"


def _cli(*argv):
    return subprocess.run([sys.executable, "-m", "gcnforge.cli.main", *argv], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_gemm_builds_for_gfx950_like_llvm(dtype, tmp_path):
    tools = require_llvm("llvm-mc", "ld.lld", "llvm-objdump")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from gemm_mfma_f16 import build
    finally:
        sys.path.remove(str(ROOT / "examples"))
    from gcnforge.passes import pipeline as pl
    from gcnforge.translate import to_assembly

    m = build(64, 32, target="gfx950", dtype=dtype)
    pl.run(m.top, pl.parse(DEFAULT))
    text = to_assembly(m.top)
    assert '.amdgcn_target "amdgcn-amd-amdhsa--gfx950"' in text and "amdhsa.target: amdgcn-amd-amdhsa--gfx950" in text
    ours, theirs = assemble(text, target="gfx950"), assemble(text, target="gfx950", toolchain="llvm")
    a, b = read_code_object(ours), read_code_object(theirs)
    assert a.target.startswith("gfx950") and b.target.startswith("gfx950")
    name = f"gemm_{dtype}_16x16x32"
    assert a.kernels.keys() == b.kernels.keys() == {name}
    assert a.kernels[name].code == b.kernels[name].code
    assert a.kernels[name].descriptor == b.kernels[name].descriptor
    assert a.kernels[name].metadata == b.kernels[name].metadata
    f = tmp_path / "k.hsaco"
    f.write_bytes(ours)
    dis = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx950", str(f)], capture_output=True, text=True,
                         check=True).stdout
    assert dis.count(f"v_mfma_f32_16x16x32_{dtype}") == 2  # K = 64: two 32-deep steps


def test_cli_compile_target(tmp_path):
    require_llvm("llvm-mc")
    r = _cli("compile", str(GEMM), "--target", "gfx950", "-S", "-o", "-")
    assert r.returncode == 0, r.stderr
    assert "v_mfma_f32_16x16x32_f16" in r.stdout and "gfx950" in r.stdout.splitlines()[0]
    r2 = _cli("compile", str(GEMM), "-mcpu=gfx950", "-S", "-o", "-")  # LLVM's spelling
    assert r2.returncode == 0 and r2.stdout == r.stdout, r2.stderr
    r = _cli("compile", str(GEMM), "-S", "-o", "-")  # the default target is unchanged
    assert r.returncode == 0 and "v_mfma_f32_32x32x8_f16" in r.stdout and "gfx942" in r.stdout.splitlines()[0]
    assert "16x16x32" not in r.stdout


def test_cli_compile_target_errors(tmp_path):
    r = _cli("compile", str(GEMM), "--target", "gfx9000", "-S")
    assert r.returncode == 1 and "unknown target 'gfx9000' (known: gfx942, gfx950)" in r.stderr
    assert "Traceback" not in r.stderr
    src = tmp_path / "k.mlir"
    src.write_text("amdgcn.module @m #amdgcn.target<gfx942> {\n  amdgcn.kernel @k {\n    amdgcn.end\n  }\n}\n")
    r = _cli("compile", str(src), "--target", "gfx950", "-S")
    assert r.returncode == 1 and "--target gfx950: the input is for gfx942" in r.stderr and "Traceback" not in r.stderr
    py = tmp_path / "two.py"
    py.write_text("from gcnforge.builder import Module\na = Module('a', target='gfx942')\nb = Module('b', target='gfx950')\n")
    r = _cli("compile", str(py), "-S")
    assert r.returncode == 1 and "different targets (gfx942, gfx950)" in r.stderr
    h = _cli("compile", "--help")
    assert "gfx942, gfx950" in h.stdout


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_gemm_gfx950_runs_on_emulator_like_numpy(dtype):
    """The gfx950 GEMM on the emulator (sanitizer on) against NumPy: 2 x 3 tiles, K = 64."""
    import numpy as np

    import gcnforge.runtime as rt

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from gemm_mfma_f16 import build
    finally:
        sys.path.remove(str(ROOT / "examples"))
    from gcnforge.passes import pipeline as pl
    from gcnforge.translate import to_assembly

    M, N, K = 32, 48, 64
    m = build(K, N, target="gfx950", dtype=dtype)
    pl.run(m.top, pl.parse(DEFAULT))
    k = rt.load(assemble(to_assembly(m.top), target="gfx950"))[f"gemm_{dtype}_16x16x32"]
    rng = np.random.default_rng(5)
    A = rng.standard_normal((M, K)).astype(np.float32)
    Bt = rng.standard_normal((N, K)).astype(np.float32)
    if dtype == "f16":
        a_in, b_in = A.astype(np.float16), Bt.astype(np.float16)
        a_ref, b_ref = a_in.astype(np.float32), b_in.astype(np.float32)
    else:  # bf16 = the high half of an f32 (truncated here; the reference uses the same values)
        a_in, b_in = (A.view(np.uint32) >> 16).astype(np.uint16), (Bt.view(np.uint32) >> 16).astype(np.uint16)
        a_ref, b_ref = (a_in.astype(np.uint32) << 16).view(np.float32), (b_in.astype(np.uint32) << 16).view(np.float32)
    C = np.zeros((M, N), np.float32)
    k(a_in, b_in, C, grid=(N // 16, M // 16, 1), block=(64, 1, 1), device="emulator", sanitize=True)
    np.testing.assert_allclose(C, a_ref @ b_ref.T, rtol=1e-5, atol=1e-4)


def test_to_code_object_uses_the_modules_target():
    """``gcnforge.translate.to_code_object`` on a gfx950 module writes a gfx950 code object (it used
    to assemble for gfx942 and stop at the module's own ``.amdgcn_target``), the same bytes as
    assembling its text for gfx950."""
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from gemm_mfma_f16 import build
    finally:
        sys.path.remove(str(ROOT / "examples"))
    from gcnforge.passes import pipeline as pl
    from gcnforge.translate import to_assembly, to_code_object

    m = build(64, 32, target="gfx950", dtype="f16")
    pl.run(m.top, pl.parse(DEFAULT))
    data = to_code_object(m.top)
    assert read_code_object(data).target.startswith("gfx950")
    assert data == assemble(to_assembly(m.top), target="gfx950")

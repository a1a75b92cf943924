"""examples/gemm_mxfp.py (MXFP4 block-scaled GEMM for gfx950) on the emulator against NumPy.

The host-side OCP MX helpers are checked against ml_dtypes (an independent implementation of
E2M1 and E8M0): decoding every code, and rounding to nearest even E2M1. The kernel's result is
checked against the dequantized matrices multiplied in float64."""

import numpy as np
import pytest

import gemm_mxfp

ml_dtypes = pytest.importorskip("ml_dtypes")


def test_dequantize_matches_ml_dtypes():
    rng = np.random.default_rng(1)
    packed = rng.integers(0, 256, (4, 32), dtype=np.uint8)
    scales = rng.integers(100, 150, (4, 2), dtype=np.uint8)
    codes = np.stack([packed & 0xF, packed >> 4], -1).reshape(4, -1)
    exp = codes.view(ml_dtypes.float4_e2m1fn).astype(np.float64) * np.repeat(
        scales.view(ml_dtypes.float8_e8m0fnu).astype(np.float64), 32, axis=1)
    np.testing.assert_array_equal(gemm_mxfp.dequantize_mxfp4(packed, scales), exp)


def test_quantize_rounds_like_ml_dtypes():
    rng = np.random.default_rng(2)
    x = rng.uniform(-8, 8, (8, 64))
    x[:, ::32] = 6.0  # block max 6: shared exponent 0, so elements are x itself (saturating past 6)
    x[0, 1:9] = [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -2.5]  # midpoints: ties to even
    packed, scales = gemm_mxfp.quantize_mxfp4(x)
    assert (scales == 127).all()
    exp = np.clip(x, -6, 6).astype(ml_dtypes.float4_e2m1fn).astype(np.float64)
    np.testing.assert_array_equal(gemm_mxfp.dequantize_mxfp4(packed, scales), exp)


@pytest.mark.parametrize("m,n,k", [(16, 16, 128), (32, 48, 384)])
def test_gemm_mxfp4_matches_numpy(m, n, k):
    c, ref = gemm_mxfp.run(m, n, k, seed=m + n + k)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)
    assert np.abs(ref).max() > 1  # a real product, not zeros


def test_main_reports_ok(capsys):
    assert gemm_mxfp.main(["--m", "16", "--n", "32", "--k", "256"]) == 0
    assert "-> OK" in capsys.readouterr().out


def test_llvm_assembles_the_same_code():
    """The compiled kernel's assembly text (the builder's output after the pass pipeline)
    means the same to llvm-mc -mcpu=gfx950 + ld.lld as to gcnforge's assembler."""
    from gcnforge.binary import assemble, read_code_object
    from gcnforge.testing import require_llvm

    require_llvm("llvm-mc", "ld.lld")
    text = gemm_mxfp.assembly(32, 32, 256)
    ours = read_code_object(assemble(text, target="gfx950"))
    theirs = read_code_object(assemble(text, target="gfx950", toolchain="llvm"))
    assert ours.kernels[gemm_mxfp.NAME].code == theirs.kernels[gemm_mxfp.NAME].code
    assert "v_mfma_scale_f32_16x16x128_f8f6f4" in text


def test_built_through_the_builder():
    """The kernel is a gfx950 dialect module whose MFMAs are the scaled op (one per K step)."""
    from gcnforge.dialect.inst_ops import InstOp

    m = gemm_mxfp.build(16, 16, 384)
    assert m.target == "gfx950"
    ops = [op for op in m.top.walk() if isinstance(op, InstOp) and op.mnemonic.startswith("v_mfma")]
    assert [op.mnemonic for op in ops] == ["v_mfma_scale_f32_16x16x128_f8f6f4"] * 3
    assert all(op.modifiers.get("cbsz") == 4 and op.modifiers.get("blgp") == 4 for op in ops)

"""AMD's gfx950 MXFP4 GEMM from the aiter wheel (``f4gemm_bf16_per1x32Fp4_noBpreShuffle_256x256``,
``v_mfma_scale_f32_16x16x128_f8f6f4``) on the emulator against a NumPy MXFP4 reference (issue 30).

The launch follows aiter's launcher (``aiter_meta/csrc/py_itfs_cu/asm_gemm_a4w4.cu`` in the wheel):
16-byte argument slots D, C, A, B, alpha, beta, stride_D0/D1/C0/C1/A0/A1/B0/B1, M, N, K, scale A,
scale B, stride_ScaleA0/A1/B0/B1, log2_k_split; D's row stride is ``out.stride(0)`` (elements) in
stride_C0, A's and B's are K (fp4 elements); grid (ceil(N/256), ceil(M/256), 1), 256 work-items.
A [M, K/2] and B [N, K/2] hold two fp4 (e2m1) codes per byte, the first in the low nibble; the
e8m0 scales, one per 1x32 block, are laid out by aiter's ``e8m0_shuffle``
(``aiter/utility/fp4_utils.py``: padded to 256 rows and 8 columns, then permuted)."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.kernargs import ArgLayout
from gcnforge.testing import require_aiter_wheel

F4GEMM = "aiter_meta/hsa/gfx950/f4gemm/f4gemm_bf16_per1x32Fp4_noBpreShuffle_256x256.co"
SLOTS = (["D:u16*", "C:f32*", "A:u8*", "B:u8*", "alpha:f32", "beta:f32"]
         + [f"{s}:u32" for s in ("stride_D0", "stride_D1", "stride_C0", "stride_C1", "stride_A0", "stride_A1",
                                 "stride_B0", "stride_B1", "M", "N", "K")]
         + ["ScaleA:u8*", "ScaleB:u8*"]
         + [f"{s}:u32" for s in ("stride_ScaleA0", "stride_ScaleA1", "stride_ScaleB0", "stride_ScaleB1")]
         + ["log2_k_split:i32"])
BLOCK = 32  # fp4 elements per e8m0 scale (OCP MX v1.0: MXFP4 block size 32)


def fp4_e2m1(codes: np.ndarray) -> np.ndarray:
    """OCP MX v1.0 E2M1: sign bit 3, exponent bits 2-1 (bias 1), mantissa bit 0; exponent 0 is
    subnormal (0 or 0.5). No infinities or NaN."""
    c = codes.astype(np.int64)
    e, m = (c >> 1) & 3, c & 1
    mag = np.where(e == 0, 0.5 * m, 2.0 ** (e - 1) * (1 + 0.5 * m))
    return np.where(c & 8, -mag, mag)


def dequant(packed: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """[R, K/2] bytes (low nibble first) and [R, K/32] e8m0 codes (2^(s-127)) -> [R, K] float64."""
    v = np.stack([fp4_e2m1(packed & 15), fp4_e2m1(packed >> 4)], axis=-1).reshape(packed.shape[0], -1)
    return v * np.repeat(np.ldexp(1.0, scale.astype(np.int64) - 127), BLOCK, axis=1)


def e8m0_shuffle(s: np.ndarray) -> np.ndarray:
    """aiter's scale layout (fp4_utils.e8m0_shuffle): pad to (256k, 8j), view as
    (m/32, 2, 16, n/8, 2, 4), permute (0, 3, 5, 2, 4, 1)."""
    m, n = s.shape
    p = np.zeros((-(-m // 256) * 256, -(-n // 8) * 8), s.dtype)
    p[:m, :n] = s
    sm, sn = p.shape
    return np.ascontiguousarray(p.reshape(sm // 32, 2, 16, sn // 8, 2, 4).transpose(0, 3, 5, 2, 4, 1)).reshape(sm, sn)


def launch(m: int, n: int, k: int, seed: int = 0, pad: int = 0, **kw):
    """Random fp4 A, B and scales; returns (launch result, bf16 output as float32, reference).
    ``pad`` bytes of zeros follow each input and the output (0: the arrays as aiter passes them)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 256, (m, k // 2), dtype=np.uint8)
    b = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)
    sa = rng.integers(120, 134, (m, k // BLOCK), dtype=np.uint8)
    sb = rng.integers(120, 134, (n, k // BLOCK), dtype=np.uint8)
    ref = dequant(a, sa) @ dequant(b, sb).T

    def padded(x):
        return np.concatenate([x.reshape(-1).view(np.uint8), np.zeros(pad, np.uint8)]) if pad else x

    ssa, ssb = e8m0_shuffle(sa), e8m0_shuffle(sb)
    out = np.zeros(m * n + pad // 2, np.uint16)
    z = zipfile.ZipFile(require_aiter_wheel())
    lib = rt.load(z.read(F4GEMM))
    kern = lib.kernel(next(iter(lib.kernels)), layout=ArgLayout.slots16(SLOTS))
    r = kern(out, None, padded(a), padded(b), 1.0, 0.0, n, 0, n, 0, k, 0, k, 0, m, n, k,
             padded(ssa), padded(ssb), ssa.shape[1], 0, ssb.shape[1], 0, 0,
             grid=(-(-n // 256), -(-m // 256), 1), block=(256,), device="emulator", **kw)
    got = (out[: m * n].astype(np.uint32) << 16).view(np.float32).reshape(m, n)
    return r, got, ref


@pytest.mark.parametrize("m,n,k", [(256, 256, 256), (256, 512, 512)])
def test_aiter_f4gemm_matches_numpy_mxfp4(m, n, k):
    """Unpadded, as aiter passes its tensors. At K=256 the kernel's B prefetch reads 256 bytes past
    B's end (32 KiB, a whole number of pages): a GPU reads the neighbouring fragment of ROCr's
    2 MiB block there and so does the emulator (memory.py); the result does not depend on it."""
    _, got, ref = launch(m, n, k)
    # bf16 output: 8 significant bits (round to nearest: half an ulp, 2^-8 relative)
    np.testing.assert_allclose(got, ref, rtol=2**-7, atol=1e-2)


def test_aiter_f4gemm_over_read_is_reported_once_per_site_naming_b():
    r, got, ref = launch(256, 256, 256, sanitize=True, sanitize_mode="continue")
    np.testing.assert_allclose(got, ref, rtol=2**-7, atol=1e-2)  # the over-read lanes still ran
    oob = [rep for rep in r.stats.reports if rep.kind == "oob"]
    assert oob and all("allocation 'B'" in str(rep) and "buffer_load_dwordx4" in str(rep) for rep in oob)
    assert len({rep.loc.pc for rep in oob}) == len(oob)  # each site once (counts in report_counts)
    # the only hazards are the SALU M0 writes right before LDS DMA (LLVM pads 1 there); the epilogue's
    # v_cvt_pk_bf16_f32 rewriting the data of ``buffer_store_dwordx4 v[44:47], v7, s[16:19], s51 idxen``
    # at once is no hazard: a buffer store with an SGPR soffset (llc 22, tests/passes/test_hazard_rules_llc.py)
    hazards = [str(rep) for rep in r.stats.reports if rep.kind == "hazard"]
    assert hazards and all("wrote M0" in h for h in hazards), [h for h in hazards if "wrote M0" not in h]


def test_aiter_f4gemm_store_past_d_stops_and_names_d():
    """M=64 with this 256x256 tile: the epilogue stores all 256 rows (D's num_records is so large
    that nothing clamps), 96 KiB past the 32 KiB D. A GPU would overwrite whatever follows D (or
    fault); the emulator stops there and says so rather than corrupt the neighbouring arrays."""
    with pytest.raises(Diagnostic) as e:
        launch(64, 256, 256)
    text = str(e.value)
    assert "buffer_store_dwordx4" in text and "32768-byte allocation 'D'" in text and "32768 bytes past its end" in text

"""AMD's production kernels from the aiter wheel, launched on the emulator and checked against
NumPy: the int8 GEMM (per-token/per-channel scales, bf16 out) whose scales are spread with DPP
``row_newbcast``. The wheel comes from ``gcnforge.testing.require_aiter_wheel`` (downloaded
once; without network the test skips locally and fails in CI)."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import numpy as np

import gcnforge.runtime as rt
from gcnforge.emulator.forms import Census
from gcnforge.runtime.kernargs import ArgLayout
from gcnforge.testing import require_aiter_wheel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from gemm_i8 import preshuffle  # noqa: E402  (aiter's shuffle_weight(B, layout=(32, 16)) in NumPy)

I8GEMM = "aiter_meta/hsa/gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_128x128.co"
# aiter csrc/py_itfs_cu/asm_gemm_a8w8.cu KernelArgs: 16-byte slots, pointers C, A, B, A-scale,
# B-scale, bias, then m, n, k, lda, ldb, ldc (bytes), ks; grid N/128 x ceil(M/128), 256 work-items
SLOTS = ["C:u16*", "A:i8*", "B:i8*", "sa:f32*", "sb:f32*", "bias:f32*",
         "m:u32", "n:u32", "k:u32", "lda:u32", "ldb:u32", "ldc:u32", "ks:u32"]


def test_aiter_int8_gemm_with_row_newbcast_matches_numpy():
    z = zipfile.ZipFile(require_aiter_wheel())
    co = z.read(I8GEMM)
    census = Census()
    census.add_object(co, "i8gemm")
    assert any(m[0] == "dpp" and m[1][0] == "row_newbcast" for key in census.forms for m in key[2])
    m, n, k = 128, 128, 512  # aiter's tuned table (asm_a8w8_gemm.csv) has K >= 1024; 512 keeps it short
    rng = np.random.default_rng(0)
    a = rng.integers(-20, 20, (m, k)).astype(np.int8)
    b = rng.integers(-20, 20, (n, k)).astype(np.int8)
    sa = rng.uniform(0.5, 1.5, (m, 1)).astype(np.float32)
    sb = rng.uniform(0.5, 1.5, (1, n)).astype(np.float32)
    bias = rng.uniform(-1, 1, (1, n)).astype(np.float32)
    out = np.zeros((m, n), np.uint16)
    lib = rt.load(co)
    kern = lib.kernel(next(iter(lib.kernels)), layout=ArgLayout.slots16(SLOTS))
    kern(out, a, preshuffle(b), sa, sb, bias, m, n, k, k, k, 2 * n, 1, grid=(n // 128, -(-m // 128), 1),
         block=(256,), device="emulator")
    got = (out.astype(np.uint32) << 16).view(np.float32)
    ref = (a.astype(np.int64) @ b.astype(np.int64).T) * sa.astype(np.float64) * sb + bias
    np.testing.assert_allclose(got, ref, rtol=2**-7, atol=0.05)  # bf16 output: 8 significant bits

"""The GEMM main loop written with the scheduling constructs (examples/gemm_pipelined.py),
software-pipelined by amdgcn-schedule into a real loop, on the emulator (and HIP) against
NumPy. Tolerance as in test_gemm_lds (f16/bf16 products exact in f32; only the f32
accumulation order differs): K * eps32 * max|a| * max|b|."""

import re

import numpy as np
import pytest
from conftest import compiled
from test_gemm_lds import bf16_bits, bf16_value

import gemm_pipelined


@pytest.mark.parametrize("dtype,wm,k", [("f16", 2, 512), ("bf16", 2, 160), ("f16", 1, 96)])
def test_gemm_pipelined(dtype, wm, k, device):
    c = compiled(("pipe", dtype, wm, k), lambda: gemm_pipelined.build(k, 64, dtype, wm, wm), schedule=True)
    if k == 512:  # 16 tiles: prologue, a real loop of two tiles per trip, epilogue
        assert re.search(r"s_cbranch_scc1 \.L", c.asm) and c.asm.count("v_mfma") < 16 * 4
    kern = c.load(device)[gemm_pipelined.kernel_name(dtype, wm, wm, 64)]
    m, n = 64, 64
    rng = np.random.default_rng(k)
    a32, b32 = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((n, k)).astype(np.float32)
    if dtype == "f16":
        a, bt = a32.astype(np.float16), b32.astype(np.float16)
        a64, b64 = a.astype(np.float64), bt.astype(np.float64)
    else:
        a, bt = bf16_bits(a32), bf16_bits(b32)
        a64, b64 = bf16_value(a).astype(np.float64), bf16_value(bt).astype(np.float64)
    out = np.zeros((m, n), np.float32)
    kern(a, bt, out, grid=(n // (32 * wm), m // (32 * wm), 1), block=(64 * wm * wm, 1, 1))
    tol = k * np.finfo(np.float32).eps * np.abs(a64).max() * np.abs(b64).max()
    assert np.abs(out - a64 @ b64.T).max() <= tol

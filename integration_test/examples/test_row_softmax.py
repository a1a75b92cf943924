"""Row reduction (add, max) and row softmax on the emulator (and HIP) against NumPy.

Tolerances (f32): the sum is reassociated (per-lane partial sums, DPP tree, LDS combine), so
its error bound is a few ulps of the sum of |x| (n * eps * max|x| covers any order). Max is
exact. Softmax: v_exp_f32 and v_rcp_f32 are accurate to about 1 ulp on MI300 (ISA guide,
transcendental precision) and the emulator rounds them correctly; with the reassociated sum
the relative error stays within ~1e-6, so rtol 1e-5 plus a tiny atol for outputs near 0.
"""

import numpy as np
import pytest
from conftest import compiled

import row_softmax


@pytest.mark.parametrize("op", ["add", "max"])
@pytest.mark.parametrize("n", [517, 64])  # a ragged tail and a row shorter than the work-group
def test_row_reduce(op, n, device):
    c = compiled(("reduce", op), lambda: row_softmax.build_reduce(op, 600, 4))
    kern = c.load(device)[f"row_{op}_f32"]
    rows = 3
    x = np.random.default_rng(n).standard_normal((rows, n)).astype(np.float32) - 4
    out = np.full(rows, np.nan, np.float32)
    kern(x, out, np.uint32(n), grid=(rows, 1, 1), block=(256, 1, 1))
    if op == "max":
        np.testing.assert_array_equal(out, x.max(1))
    else:
        ref = x.astype(np.float64).sum(1)
        tol = n * np.finfo(np.float32).eps * np.abs(x).max()
        assert np.abs(out - ref).max() <= tol


@pytest.mark.parametrize("n", [517, 1000])
def test_row_softmax(n, device):
    c = compiled("softmax", lambda: row_softmax.build(1024, 4))
    kern = c.load(device)["row_softmax_f32"]
    rows = 2
    x = (3 * np.random.default_rng(n).standard_normal((rows, n))).astype(np.float32)
    y = np.full((rows, n), np.nan, np.float32)
    kern(x, y, np.uint32(n), grid=(rows, 1, 1), block=(256, 1, 1))
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-9)

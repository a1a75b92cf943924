"""Layer norm and RMS norm on the emulator (and HIP) against NumPy (float64 reference).

Tolerance (f32): the sums are reassociated (error ~ n * eps relative), 1/n is v_rcp_f32 and
1/sqrt is v_rsq_f32 (each ~1 ulp on MI300: ISA guide, transcendental precision); the
normalized values are O(1) (up to ~4 for Gaussian input) times gamma, so rtol 1e-5 with
atol 1e-5 covers the accumulated error without hiding a wrong mean or variance (those shift
every output by far more).
"""

import numpy as np
import pytest
from conftest import compiled

import norms


@pytest.mark.parametrize("kind", ["layer", "rms"])
@pytest.mark.parametrize("n", [1000, 200])
def test_norm(kind, n, device):
    c = compiled(("norm", kind), lambda: norms.build(kind, 1024, 4))
    kern = c.load(device)[f"{kind}_norm_f32"]
    rows, eps = 3, 1e-5
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((rows, n)) * 2 + 1.5).astype(np.float32)
    g = rng.uniform(0.5, 1.5, n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    y = np.full((rows, n), np.nan, np.float32)
    xd = x.astype(np.float64)
    if kind == "layer":
        kern(x, g, b, y, np.uint32(n), np.float32(eps), grid=(rows, 1, 1), block=(256, 1, 1))
        mu = xd.mean(1, keepdims=True)
        ref = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(1, keepdims=True) + eps) * g + b
    else:
        kern(x, g, y, np.uint32(n), np.float32(eps), grid=(rows, 1, 1), block=(256, 1, 1))
        ref = xd / np.sqrt((xd ** 2).mean(1, keepdims=True) + eps) * g
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind", ["layer", "rms"])
@pytest.mark.parametrize("n", [4096, 1000])
def test_norm_bf16(kind, n, device):
    """bf16 in and out, f32 math: the f32 result rounded once to bf16 (half an ulp, 2^-8
    relative) on top of the f32 error above; inputs are bf16 values, so the reference sees
    exactly what the kernel reads."""
    from test_gemm_lds import bf16_bits, bf16_value

    c = compiled(("norm_bf16", kind), lambda: norms.build_bf16(kind, 4096, 4))
    kern = c.load(device)[f"{kind}_norm_bf16"]
    rows, eps = 3, 1e-5
    rng = np.random.default_rng(n + 1)
    x = bf16_bits(rng.standard_normal((rows, n)) * 2 + 1.5)
    g = bf16_bits(rng.uniform(0.5, 1.5, n))
    b = bf16_bits(rng.standard_normal(n))
    y = np.zeros((rows, n), np.uint16)
    xd, gd, bd = (bf16_value(v).astype(np.float64) for v in (x, g, b))
    if kind == "layer":
        kern(x, g, b, y, np.uint32(n), np.float32(eps), grid=(rows, 1, 1), block=(256, 1, 1))
        mu = xd.mean(1, keepdims=True)
        ref = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(1, keepdims=True) + eps) * gd + bd
    else:
        kern(x, g, y, np.uint32(n), np.float32(eps), grid=(rows, 1, 1), block=(256, 1, 1))
        ref = xd / np.sqrt((xd ** 2).mean(1, keepdims=True) + eps) * gd
    got = bf16_value(y).astype(np.float64)
    assert np.all(np.abs(got - ref) <= 2.0 ** -8 * np.abs(ref) + 1e-5 * (1 + np.abs(ref)))

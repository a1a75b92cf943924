"""LDS-staged, double-buffered MFMA GEMM (examples/gemm_lds.py) on the emulator (and HIP)
against NumPy: f16 and bf16 inputs, f32 and bf16 outputs, two tile configurations, split-K
with f32 atomics, and fp8 (e4m3 fnuz) with per-tensor scales.

Tolerances:
* f16/bf16 in, f32 out: products of two 11-bit (8-bit) significands are exact in f32, only
  the f32 accumulation order differs from the float64 reference: K * eps32 * max|a| max|b|.
* bf16 out: the f32 result rounded once to bf16 (half an ulp: 2^-8 relative) plus the f32
  error above.
* split-K: the same f32 bound (the atomics add partial sums in an unknown order).
* fp8: products of 4-bit significands are exact; scales are applied once to the f32 sum
  (two f32 roundings): K * eps32 * max|a| max|b| * scale + 2 eps32 relative.
"""

import numpy as np
import pytest
from conftest import compiled

import gemm_lds

EPS = float(np.finfo(np.float32).eps)


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (round to nearest even), as uint16."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


def fp8_e4m3fnuz_value(code: np.ndarray) -> np.ndarray:
    """Decode e4m3 'fnuz' (gfx942): sign, 4 exponent bits with bias 8, 3 mantissa bits;
    exponent 0 is subnormal (m * 2^-10); 0x80 is NaN; no infinities, no -0."""
    c = code.astype(np.int64)
    s = np.where(c & 0x80, -1.0, 1.0)
    e, mnt = (c >> 3) & 0xF, c & 7
    v = np.where(e == 0, mnt * 2.0 ** -10, (1 + mnt / 8) * 2.0 ** (e - 8))
    return np.where(c == 0x80, np.nan, s * v)


def _inputs(dtype, m, n, k, rng):
    if dtype == "fp8":
        codes = lambda shape: rng.choice(np.setdiff1d(np.arange(256), [0x80]), size=shape).astype(np.uint8)  # noqa: E731
        a, b = codes((m, k)), codes((n, k))
        return a, b, fp8_e4m3fnuz_value(a), fp8_e4m3fnuz_value(b)
    a32 = rng.standard_normal((m, k)).astype(np.float32)
    b32 = rng.standard_normal((n, k)).astype(np.float32)
    if dtype == "f16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        return a, b, a.astype(np.float64), b.astype(np.float64)
    a, b = bf16_bits(a32), bf16_bits(b32)
    return a, b, bf16_value(a).astype(np.float64), bf16_value(b).astype(np.float64)


CASES = [  # dtype, out, wm, wn, m, n, k, splitk
    ("f16", "f32", 2, 2, 64, 64, 128, 1),
    ("f16", "f32", 1, 1, 64, 32, 64, 1),
    ("bf16", "f32", 2, 2, 64, 64, 64, 1),
    ("bf16", "bf16", 2, 2, 64, 128, 64, 1),
    ("f16", "bf16", 1, 1, 32, 32, 32, 1),
    ("f16", "f32", 2, 2, 64, 64, 128, 2),
    ("fp8", "f32", 2, 2, 64, 64, 128, 1),
]


@pytest.mark.parametrize("dtype,out,wm,wn,m,n,k,splitk", CASES,
                         ids=[f"{c[0]}-{c[1]}-{32 * c[2]}x{32 * c[3]}-k{c[6]}-s{c[7]}" for c in CASES])
def test_gemm_lds(dtype, out, wm, wn, m, n, k, splitk, device):
    c = compiled(("gemm", dtype, out, wm, wn, n, k, splitk),
                 lambda: gemm_lds.build(k, n, dtype, out, wm, wn, 64, splitk))
    kern = c.load(device)[gemm_lds.kernel_name(dtype, out, wm, wn, 64, splitk)]
    rng = np.random.default_rng(m * n + k)
    a, bt, a64, bt64 = _inputs(dtype, m, n, k, rng)
    ref = a64 @ bt64.T
    cc = np.zeros((m, n), np.float32 if out == "f32" else np.uint16)
    extra = ()
    scale = 1.0
    if dtype == "fp8":
        sa, sb = np.float32(0.37), np.float32(1.9)
        extra, scale = (sa, sb), float(sa) * float(sb)
        ref = ref * scale
    kern(a, bt, cc, *extra, grid=(n // (32 * wn), m // (32 * wm), splitk), block=(64 * wm * wn, 1, 1))
    got = cc.astype(np.float64) if out == "f32" else bf16_value(cc).astype(np.float64)
    tol = k * EPS * np.abs(a64).max() * np.abs(bt64).max() * scale + 2 * EPS * np.abs(ref).max()
    if out == "bf16":
        tol = tol + 2.0 ** -8 * np.abs(ref)
    assert (np.abs(got - ref) <= tol).all(), float(np.abs(got - ref).max())


@pytest.mark.parametrize("splitk", [2, 4])
def test_gemm_splitk_global_atomics(splitk, device):
    """Split-K through global_atomic_add_f32 (returning form, one wait for all returns),
    run with the sanitizer on the emulator (no unwaited register reuse)."""
    m, n, k = 64, 64, 256
    c = compiled(("gemm_global", splitk), lambda: gemm_lds.build(k, n, "f16", "f32", 2, 2, 64, splitk, atomic="global"))
    kern = c.load(device)[gemm_lds.kernel_name("f16", "f32", 2, 2, 64, splitk) + "_global"]
    a, bt, a64, bt64 = _inputs("f16", m, n, k, np.random.default_rng(splitk))
    cc = np.zeros((m, n), np.float32)
    kern(a, bt, cc, grid=(1, 1, splitk), block=(256, 1, 1), sanitize=device == "emulator")
    tol = k * EPS * np.abs(a64).max() * np.abs(bt64).max()
    assert np.abs(cc - a64 @ bt64.T).max() <= tol

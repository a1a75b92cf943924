"""Number formats of gfx942: f16, bf16 and the two FP8 formats (with NumPy).

gfx942 uses the "FNUZ" FP8 encodings (MI300 ISA guide, "FP8 and BF8"; also LLVM's
APFloat ``Float8E4M3FNUZ`` / ``Float8E5M2FNUZ``): FP8 = E4M3 with exponent bias 8, BF8 =
E5M2 with bias 16; neither has infinities or negative zero, and 0x80 is the only NaN.
Conversions to FP8 round to nearest even; out-of-range values become NaN, or the largest
finite value when the instruction's clamp bit is set.
"""

from __future__ import annotations

import numpy as np


def _fp8_table(mbits: int, bias: int) -> np.ndarray:
    vals = np.zeros(256, dtype=np.float64)
    for b in range(256):
        s, e, m = b >> 7, (b >> mbits) & ((1 << (7 - mbits)) - 1), b & ((1 << mbits) - 1)
        if b == 0x80:
            vals[b] = np.nan
            continue
        if e == 0:
            v = m / (1 << mbits) * 2.0 ** (1 - bias)
        else:
            v = (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
        vals[b] = -v if s else v
    return vals


FP8_VALUES = _fp8_table(3, 8)  # e4m3fnuz
BF8_VALUES = _fp8_table(2, 16)  # e5m2fnuz


def fp8_to_f32(codes: np.ndarray, bf8: bool) -> np.ndarray:
    t = BF8_VALUES if bf8 else FP8_VALUES
    return t[codes.astype(np.uint8)].astype(np.float32)


def _encoder(table: np.ndarray):
    pos_codes = np.arange(0, 128)
    pos_vals = table[pos_codes]  # increasing with the code
    return pos_codes, pos_vals


def f32_to_fp8(x: np.ndarray, bf8: bool, clamp: bool) -> np.ndarray:
    """Round to nearest even; NaN -> 0x80; overflow -> NaN (or max with clamp)."""
    table = BF8_VALUES if bf8 else FP8_VALUES
    codes, vals = _encoder(table)
    x = np.asarray(x, dtype=np.float64)
    a = np.abs(x)
    vmax = vals[-1]
    i = np.searchsorted(vals, a, side="left")  # vals[i-1] < a <= vals[i]
    i = np.clip(i, 1, len(vals) - 1)
    lo, hi = vals[i - 1], vals[i]
    pick_hi = (a - lo > hi - a) | ((a - lo == hi - a) & (codes[i] % 2 == 0))
    c = np.where(pick_hi, codes[i], codes[i - 1])
    c = np.where(a <= vals[0], 0, c)
    # values beyond the largest finite: round to it within half an ulp, else overflow
    half_ulp = (vals[-1] - vals[-2]) / 2
    over = a > vmax + half_ulp if not clamp else np.zeros(a.shape, dtype=bool)
    c = np.where(a >= vmax, 127, c)
    neg = (x < 0) & (c != 0)
    out = (c | np.where(neg, 0x80, 0)).astype(np.uint8)
    out = np.where(np.isnan(x) | (over & ~clamp), 0x80, out)
    return out.astype(np.uint8)


def f32_to_bf16_rne(x: np.ndarray) -> np.ndarray:
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    r = np.where(np.isnan(np.asarray(x, dtype=np.float32)), (u >> 16) | 0x40, r)
    return r.astype(np.uint16)


def bf16_to_f32(h: np.ndarray) -> np.ndarray:
    return (np.asarray(h).astype(np.uint32) << 16).view(np.float32)

"""The OCP small float formats of gfx950 (CDNA4): FP8 E4M3 ("fp8", e4m3fn) and E5M2 ("bf8"),
FP6 E2M3 ("fp6") and E3M2 ("bf6"), FP4 E2M1 ("fp4"), and the E8M0 block scale. One place for
their decoders and encoders: the conversion instructions (``ops_cvt_ocp``) and the MFMAs
(``ops_mfma``) both read them.

Formats: OCP Microscaling Formats (MX) Specification v1.0, sections 5.3 (FP8, FP6, FP4 element
encodings) and 5.4 (E8M0 scale: 2^(code-127), code 0xFF is NaN); OCP 8-bit Floating Point
Specification (OFP8) for E4M3 (no infinities, S.1111.111 the only NaNs, max 448) and E5M2
(IEEE-like: infinities and NaNs at exponent 31, max 57344). gfx942 used the FNUZ FP8 formats
instead (``numerics.py``); gfx950 uses these.

Conversion rules from the AMD CDNA4 ISA guide, 7.3 "BF8 / FP8 and Smaller Formats and
Conversions": round to nearest even (or stochastically, below); "the scale is an E8M0 exponent
with a bias of 127" and an f32 scale operand contributes its exponent field only; a value beyond
the FP4/FP6 range after rounding saturates to the largest magnitude with its sign; to FP8/BF8 an
out-of-range value or infinity is NaN (FP8) or infinity (BF8), or the largest magnitude when
saturating (MODE.FP16_OVFL, or the instruction's clamp). Codes for NaN (E4M3: S.1111.111, E5M2:
S.11111.10; FP4/FP6 have no NaN and take the largest magnitude), the scale applied by exponent
arithmetic (no rounding before the final one) and a NaN scale giving NaN follow AMD's host
model of the gfx950 conversions (HIP's amd_hip_ocp_host.hpp, ``from_float``/``to_float``).
Stochastic rounding (same source, ``from_float_sr``): the top bits of the random word are added
below the kept mantissa bits of the (scaled) source and the sum is truncated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

F64 = np.float64
U32 = np.uint32


@dataclass(frozen=True)
class Fmt:
    name: str
    ebits: int
    mbits: int
    bias: int
    inf: bool = False  # IEEE-style infinities (E5M2) at the all-ones exponent
    nan: str = "none"  # "none" (FP4/FP6), "max" (E4M3: S.1111.111 only), "ieee" (exponent all ones)

    @property
    def bits(self) -> int:
        return 1 + self.ebits + self.mbits

    @property
    def emin(self) -> int:  # exponent of the smallest normal (and the subnormals' scale)
        return 1 - self.bias

    @property
    def sign_bit(self) -> int:
        return 1 << (self.ebits + self.mbits)

    @property
    def max_code(self) -> int:  # the largest finite magnitude
        if self.nan == "ieee":
            return ((1 << self.ebits) - 2) << self.mbits | ((1 << self.mbits) - 1)
        if self.nan == "max":
            return self.sign_bit - 2
        return self.sign_bit - 1

    @property
    def nan_code(self) -> int:  # the NaN gfx950 writes (before the sign)
        if self.nan == "max":
            return self.sign_bit - 1
        if self.nan == "ieee":
            return ((1 << self.ebits) - 1) << self.mbits | (1 << self.mbits) - 2
        return self.max_code  # no NaN: the largest magnitude

    @property
    def inf_code(self) -> int:
        return ((1 << self.ebits) - 1) << self.mbits


FP8 = Fmt("fp8", 4, 3, 7, nan="max")  # OCP E4M3 (e4m3fn)
BF8 = Fmt("bf8", 5, 2, 15, inf=True, nan="ieee")  # OCP E5M2
FP6 = Fmt("fp6", 2, 3, 1)  # E2M3
BF6 = Fmt("bf6", 3, 2, 3)  # E3M2
FP4 = Fmt("fp4", 2, 1, 1)  # E2M1
F16 = Fmt("f16", 5, 10, 15, inf=True, nan="ieee")
BF16 = Fmt("bf16", 8, 7, 127, inf=True, nan="ieee")
FORMATS = {f.name: f for f in (FP8, BF8, FP6, BF6, FP4)}


def _table(f: Fmt) -> np.ndarray:
    vals = np.empty(1 << f.bits, dtype=F64)
    for c in range(1 << f.bits):
        s, e, m = c >> (f.ebits + f.mbits), (c >> f.mbits) & ((1 << f.ebits) - 1), c & ((1 << f.mbits) - 1)
        if f.nan != "none" and e == (1 << f.ebits) - 1 and (f.nan == "ieee" and m or f.nan == "max" and m == (1 << f.mbits) - 1):
            v = np.nan
        elif f.inf and e == (1 << f.ebits) - 1:
            v = np.inf
        else:
            v = np.ldexp(m / (1 << f.mbits) + (e > 0), max(e, 1) - f.bias)
        vals[c] = -v if s else v
    return vals


_TABLES = {f.name: _table(f) for f in (*FORMATS.values(),)}


def values(f: Fmt) -> np.ndarray:
    """Every code's value (float64, indexed by code)."""
    return _TABLES[f.name]


def max_value(f: Fmt) -> float:
    top = (1 << f.ebits) - 1 - f.bias  # exponent of the all-ones exponent field
    if f.nan == "ieee":
        return float(np.ldexp(2.0 - 2.0 ** -f.mbits, top - 1))
    if f.nan == "max":
        return float(np.ldexp(2.0 - 2.0 ** (1 - f.mbits), top))
    return float(np.ldexp(2.0 - 2.0 ** -f.mbits, top))


# ---- E8M0 scales ---------------------------------------------------------------------------------
def scale_exponent(scale_bits) -> np.ndarray:
    """The E8M0 code of a scale operand: an f32's biased exponent field (sign and mantissa
    ignored, ISA guide 7.3); for a byte-wide E8M0 operand pass the byte itself."""
    return (np.asarray(scale_bits).astype(U32) >> U32(23)) & U32(0xFF)


def e8m0_to_f32(codes) -> np.ndarray:
    c = np.asarray(codes).astype(np.int64) & 0xFF
    return np.where(c == 0xFF, np.nan, np.ldexp(1.0, c - 127)).astype(np.float32)


# ---- decode (to a wider float), with an optional scale -------------------------------------------
def decode(codes, f: Fmt, scale_e8m0=None) -> np.ndarray:
    """float64 values of ``codes``, times 2^(scale-127) when an E8M0 scale is given (a NaN
    scale makes NaN). Exact: round to the destination with ``to_f32``/``to_f16``/``to_bf16``."""
    v = _TABLES[f.name][np.asarray(codes).astype(np.int64) & ((1 << f.bits) - 1)]
    if scale_e8m0 is None:
        return v
    k = np.asarray(scale_e8m0).astype(np.int64) & 0xFF
    return np.where(k == 0xFF, np.nan, np.ldexp(v, k - 127))


def quantize(x, f: Fmt) -> np.ndarray:
    """Round float64 ``x`` to format ``f``'s precision, nearest even, with ``f``'s subnormals
    and an unbounded exponent above (the caller decides overflow)."""
    x = np.asarray(x, dtype=F64)
    a = np.abs(x)
    _, e = np.frexp(a)  # a = m * 2^e, m in [0.5, 1)
    q = np.maximum(e - 1, f.emin) - f.mbits  # exponent of the last kept bit
    with np.errstate(invalid="ignore"):
        r = np.ldexp(np.round(np.ldexp(a, -q)), q)  # np.round: half to even
    return np.where(np.isfinite(x), np.copysign(r, x), x)


def _codes_of(v, f: Fmt) -> np.ndarray:
    """Codes of values exactly representable in ``f`` (finite, within range)."""
    pos = _TABLES[f.name][: f.max_code + 1]
    a = np.abs(v)
    c = np.searchsorted(pos, a).astype(np.int64)
    return c


def encode(x, f: Fmt, saturate: bool = False, scale_e8m0=None) -> np.ndarray:
    """float ``x`` (divided by 2^(scale-127) when an E8M0 scale is given) to ``f``'s codes,
    round to nearest even. Out of range or infinite: FP4/FP6 saturate; FP8 E4M3 becomes NaN,
    E5M2 infinity, or the largest magnitude with ``saturate``. NaN (or a NaN scale) gives the
    format's NaN code (FP4/FP6: the largest magnitude), with the source's sign."""
    x = np.asarray(x, dtype=F64)
    if scale_e8m0 is not None:
        k = np.asarray(scale_e8m0).astype(np.int64) & 0xFF
        x = np.where(k == 0xFF, np.nan, np.ldexp(x, 127 - k))
    return _finish(quantize(x, f), x, f, saturate)


def _finish(r, x, f: Fmt, saturate) -> np.ndarray:
    sign = np.where(np.signbit(x), f.sign_bit, 0)
    big = ~np.isnan(r) & (np.abs(r) > max_value(f))
    r_in = np.where(big | ~np.isfinite(r), 0.0, r)
    c = _codes_of(r_in, f)
    over = f.max_code if (saturate or f.nan == "none") else (f.inf_code if f.inf else f.nan_code)
    c = np.where(big | np.isinf(r), over, c)
    c = np.where(np.isnan(x), f.nan_code, c)
    return (c | sign).astype(np.uint8 if f.bits <= 8 else np.uint16)


def round_sr(x, rnd, f: Fmt, src: Fmt | None = None, lsb: bool = False) -> np.ndarray:
    """float64 ``x`` (an f32 value, or f16/bf16 with ``src``) rounded stochastically to ``f``'s
    precision with the u32 random words ``rnd``: the source mantissa bits below ``f``'s last kept
    bit plus random bits, truncated. ``lsb=False``: the top bits of ``rnd`` under the kept
    mantissa, source bits below the source mantissa's alignment (subnormal results) dropped
    first (AMD's host model of the scaled gfx950 conversions, ``from_float_sr``); ``lsb=True``:
    the low bits of ``rnd`` added to all the dropped bits (the ISA guide's note on
    V_CVT_SR_FP8_F32, "the msbs of S1 are not used", and AMD's FP8 host model ``cast_to_f8``).
    The exponent is unbounded above; NaN and infinities pass through."""
    src_mbits = 23 if src is None else src.mbits
    x = np.asarray(x, dtype=F64)
    a = np.abs(x)
    _, e = np.frexp(a)
    q = np.maximum(e - 1, f.emin) - f.mbits
    fbits = src_mbits - f.mbits  # fraction bits below the kept mantissa
    r64 = np.asarray(rnd).astype(np.uint64)
    with np.errstate(invalid="ignore", over="ignore"):
        if lsb:  # every source bit below the quantum meets the random word's low bits (AMD's
            # host model of these conversions: mantissa += rng & drop_mask, drop_mask growing
            # in the subnormal range)
            drop = np.maximum(q - (e - 1) + src_mbits, fbits)
            m = np.ldexp(a, src_mbits - (e - 1))  # the source significand, an integer
            mask = np.where(drop >= 32, np.uint64(0xFFFFFFFF), (np.uint64(1) << np.minimum(drop, 31).astype(np.uint64)) - np.uint64(1))
            r = np.ldexp(np.floor(np.ldexp(m + (r64 & mask).astype(F64), -drop)), q)
        else:
            t = np.floor(np.ldexp(a, fbits - q))  # the source's bits that survive the alignment
            add = (r64 >> np.uint64(32 - fbits)).astype(F64)
            r = np.ldexp(np.floor(np.ldexp(t + add, -fbits)), q)
    return np.where(np.isfinite(x) & (a > 0), np.copysign(r, x), np.where(np.isfinite(x), np.copysign(0.0, x), x))


def encode_sr(x, rnd, f: Fmt, src: Fmt | None = None, saturate: bool = False, scale_e8m0=None,
              lsb: bool = False) -> np.ndarray:
    """Stochastic rounding (``round_sr``) of ``x`` (divided by 2^(scale-127) when an E8M0 scale
    is given) to ``f``'s codes, with ``encode``'s overflow and NaN rules."""
    x = np.asarray(x, dtype=F64)
    if scale_e8m0 is not None:
        k = np.asarray(scale_e8m0).astype(np.int64) & 0xFF
        x = np.where(k == 0xFF, np.nan, np.ldexp(x, 127 - k))
    return _finish(round_sr(x, rnd, f, src, lsb), x, f, saturate)


# ---- wider float results ---------------------------------------------------------------------------
def to_f32(v) -> np.ndarray:
    return np.asarray(v, dtype=F64).astype(np.float32)  # NumPy's double -> float rounds to nearest even


def to_f16_bits(v) -> np.ndarray:
    return np.asarray(v, dtype=F64).astype(np.float16).view(np.uint16)  # correctly rounded in NumPy


def to_bf16_bits(v) -> np.ndarray:
    """float64 -> bf16 bits, nearest even in one step (no double rounding through f32)."""
    v = np.asarray(v, dtype=F64)
    r = quantize(v, BF16)
    with np.errstate(over="ignore"):
        out = (r.astype(np.float32).view(U32) >> U32(16)).astype(np.uint16)  # exact: r fits bf16
    return np.where(np.isnan(v), np.where(np.signbit(v), 0xFFC0, 0x7FC0), out).astype(np.uint16)


def fp8_fmt(bf8: bool) -> Fmt:
    return BF8 if bf8 else FP8


__all__ = ["Fmt", "FP8", "BF8", "FP6", "BF6", "FP4", "F16", "BF16", "FORMATS", "values", "max_value",
           "scale_exponent", "e8m0_to_f32", "decode", "quantize", "encode", "encode_sr", "round_sr", "to_f32",
           "to_f16_bits", "to_bf16_bits", "fp8_fmt"]

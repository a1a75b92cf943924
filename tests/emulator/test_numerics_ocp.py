"""The OCP small formats of gfx950 (emulator/numerics_ocp.py) against independent oracles:
ml_dtypes' float8_e4m3fn / float8_e5m2 / float6_e2m3fn / float6_e3m2fn / float4_e2m1fn /
float8_e8m0fnu, and values worked out by hand from the OCP MX v1.0 spec and the CDNA4 ISA
guide 7.3 (saturation and overflow rules)."""

import ml_dtypes as md
import numpy as np
import pytest

from gcnforge.emulator import numerics_ocp as o

ORACLE = {"fp8": md.float8_e4m3fn, "bf8": md.float8_e5m2, "fp6": md.float6_e2m3fn, "bf6": md.float6_e3m2fn,
          "fp4": md.float4_e2m1fn}


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_decode_table_matches_ml_dtypes(name):
    f = o.FORMATS[name]
    codes = np.arange(1 << f.bits, dtype=np.uint8)
    want = codes.view(ORACLE[name]).astype(np.float64)
    np.testing.assert_array_equal(o.values(f), want)
    assert o.max_value(f) == float(md.finfo(ORACLE[name]).max)


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_round_to_nearest_even_matches_ml_dtypes(name):
    f = o.FORMATS[name]
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(50_000) * rng.choice([1e-3, 0.05, 0.4, 1, 3, 20, 300, 4e4], 50_000)).astype(np.float32)
    # exact ties too: midpoints between neighbouring codes
    pos = o.values(f)[: f.max_code + 1]
    x = np.concatenate([x, ((pos[:-1] + pos[1:]) / 2).astype(np.float32)])
    x = x[np.abs(x) <= o.max_value(f)]  # overflow is the ISA's rule, tested below
    np.testing.assert_array_equal(o.encode(x, f), x.astype(ORACLE[name]).view(np.uint8))


def test_e8m0_matches_ml_dtypes():
    c = np.arange(256, dtype=np.uint8)
    np.testing.assert_array_equal(o.e8m0_to_f32(c), c.view(md.float8_e8m0fnu).astype(np.float32))
    # an f32 scale operand contributes its exponent field (ISA guide 7.3): 2.0 -> 128, -0.75 -> 126
    s = np.array([2.0, -0.75, 1.0], dtype=np.float32).view(np.uint32)
    assert o.scale_exponent(s).tolist() == [128, 126, 127]


def test_bf16_rounding_matches_ml_dtypes_on_f32():
    x = np.random.default_rng(3).standard_normal(20_000).astype(np.float32) * np.float32(1e20)
    np.testing.assert_array_equal(o.to_bf16_bits(x), x.astype(md.bfloat16).view(np.uint16))


def test_overflow_and_nan_rules():
    # FP4/FP6 saturate with the sign (ISA 7.3); NaN has no code there: the largest magnitude
    assert o.encode(np.array([7.0, -1e9, np.inf]), o.FP4).tolist() == [0x7, 0xF, 0x7]
    assert o.encode(np.array([8.0, -np.inf]), o.FP6).tolist() == [0x1F, 0x3F]
    assert o.encode(np.array([29.0]), o.BF6).tolist() == [0x1F]
    # E4M3: 464 is the tie between 448 (S.1111.110) and the NaN code: even -> 448; above -> NaN,
    # or 448 when saturating (FP16_OVFL / clamp)
    assert o.encode(np.array([464.0, 465.0, np.inf, -1e6]), o.FP8).tolist() == [0x7E, 0x7F, 0x7F, 0xFF]
    assert o.encode(np.array([465.0, -np.inf]), o.FP8, saturate=True).tolist() == [0x7E, 0xFE]
    # E5M2: 61440 ties 57344 (odd mantissa) and 65536 -> rounds up, out of range -> inf
    assert o.encode(np.array([61439.0, 61440.0, -np.inf]), o.BF8).tolist() == [0x7B, 0x7C, 0xFC]
    assert o.encode(np.array([1e9]), o.BF8, saturate=True).tolist() == [0x7B]
    assert o.encode(np.array([np.nan]), o.BF8).tolist() == [0x7E]
    assert o.encode(np.array([-0.0, -1e-30]), o.FP8).tolist() == [0x80, 0x80]


def test_scale_is_applied_by_exponent():
    # to the format: x / 2^(s-127); from it: v * 2^(s-127); scale 0xFF is NaN
    assert o.encode(np.array([1.0, 12.0]), o.FP4, scale_e8m0=np.array([128, 128])).tolist() == [0x1, 0x7]
    np.testing.assert_array_equal(o.decode(np.array([0x1, 0x7]), o.FP4, np.array([129, 126])), [2.0, 3.0])
    assert np.isnan(o.decode(np.array([0x2]), o.FP4, np.array([0xFF]))[0])
    assert o.encode(np.array([1.0]), o.FP8, scale_e8m0=np.array([0xFF])).tolist() == [0x7F]
    # 2^-127 * smallest fp4 subnormal (0.5) is an f32 subnormal, exact
    assert o.to_f32(o.decode(np.array([1]), o.FP4, np.array([0])))[0] == np.float32(2.0 ** -128)


def test_stochastic_rounding():
    x = np.array([1.0 + 2.0 ** -23] * 2, dtype=np.float32)
    assert o.encode_sr(x, np.array([0, 0xFFFFFFFF]), o.FP8).tolist() == [0x38, 0x39]  # 1.0 / 1.125
    # halfway between 1.0 and 1.125: up for exactly half of the uniformly spread random words
    r = (np.arange(4096, dtype=np.uint64) << np.uint64(20)).astype(np.uint32)
    c = o.encode_sr(np.full(4096, 1.0625, np.float32), r, o.FP8)
    assert (c == 0x39).sum() == 2048 and ((c == 0x38) | (c == 0x39)).all()
    # a representable value never moves
    assert (o.encode_sr(np.full(4096, 1.125, np.float32), r, o.FP8) == 0x39).all()
    # from f16 to FP4: the 9 f16 mantissa bits below FP4's one meet the top 9 random bits, so
    # 1 + 2^-10 (1/512 of FP4's step) rounds up only when those are all ones
    h = np.full(2, 1.0 + 2.0 ** -10)
    assert o.encode_sr(h, np.array([0xFF7FFFFF, 0xFF800000]), o.FP4, src=o.F16).tolist() == [0x2, 0x3]


def test_stochastic_rounding_into_the_subnormals():
    """2^-10 is half of E4M3's smallest subnormal (2^-9). Low-bit mode (v_cvt_sr_fp8_f32; AMD's
    cast_to_f8: mantissa + (rng & drop_mask), 24 dropped bits here) rounds up when the low 24
    random bits reach 2^23; top-bit mode (scaled conversions; AMD's from_float_sr: the source
    aligned first, then the top 20 random bits) when the random word reaches 2^31."""
    x = np.full(2, 2.0**-10)
    assert o.encode_sr(x, np.array([0x7FFFFF, 0x800000]), o.FP8, lsb=True).tolist() == [0, 1]
    assert o.encode_sr(x, np.array([0x7FFFFFFF, 0x80000000]), o.FP8).tolist() == [0, 1]
    assert o.encode_sr(-x, np.array([0, 0]), o.FP8, lsb=True).tolist() == [0x80, 0x80]  # the sign stays

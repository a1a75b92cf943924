"""DPP lane maps (ISA guide DPP_CTRL table), SDWA selects and the FNUZ FP8 formats."""

import numpy as np

from gcnforge.emulator.lanes import dpp_lanes, dpp_source, sdwa_dst, sdwa_select
from gcnforge.emulator.numerics import BF8_VALUES, FP8_VALUES, f32_to_fp8, fp8_to_f32

L = np.arange(64)


def test_dpp_lane_maps():
    src, ok = dpp_lanes(("quad_perm", [1, 0, 3, 2]))
    assert src[:8].tolist() == [1, 0, 3, 2, 5, 4, 7, 6] and ok.all()
    src, ok = dpp_lanes(("row_shr", 3))
    assert src[19] == 16 and ok[19] and not ok[18] and not ok[2]
    src, ok = dpp_lanes(("row_ror", 1))
    assert src[16] == 31 and src[17] == 16 and ok.all()
    src, ok = dpp_lanes(("row_bcast", 15))
    assert src[16] == 15 and src[40] == 31 and src[63] == 47 and not ok[:16].any() and ok[16:].all()
    src, ok = dpp_lanes(("row_bcast", 31))
    assert (src[32:] == 31).all() and not ok[:32].any()
    src, ok = dpp_lanes(("wave_shr", 1))
    assert src[1] == 0 and not ok[0]
    src, _ = dpp_lanes(("row_half_mirror", 0))
    assert src[:8].tolist() == [7, 6, 5, 4, 3, 2, 1, 0] and src[8] == 15


def test_dpp_masks_and_bound_ctrl():
    raw = (L[None, :] + 100).astype(np.uint32)
    ex = np.ones((1, 64), bool)
    ex[0, 5] = False
    vals, write = dpp_source(raw, ex, {"dpp": ("row_shl", 1), "row_mask": 0xF, "bank_mask": 0xF})
    assert vals[0, 3] == 104 and not write[0, 4]  # source lane 5 is disabled: no write
    assert not write[0, 15]  # out of the row
    vals, write = dpp_source(raw, ex, {"dpp": ("row_shl", 1), "row_mask": 0xF, "bank_mask": 0xF, "bound_ctrl": 1})
    assert vals[0, 15] == 0 and write[0, 15] and vals[0, 4] == 0
    _, write = dpp_source(raw, ex, {"dpp": ("quad_perm", [0, 1, 2, 3]), "row_mask": 0x2, "bank_mask": 0x1})
    assert write[0].nonzero()[0].tolist() == [16, 17, 18, 19]


def test_sdwa():
    raw = np.array([0x80FF7F01], np.uint32)
    assert sdwa_select(raw, "BYTE_1", False, False)[0] == 0x7F
    assert sdwa_select(raw, "BYTE_2", True, False)[0] == 0xFFFFFFFF
    assert sdwa_select(raw, "WORD_1", True, False)[0] == 0xFFFF80FF
    old = np.array([0x11223344], np.uint32)
    assert sdwa_dst(old, np.array([0xAB], np.uint32), "BYTE_2", "UNUSED_PRESERVE")[0] == 0x11AB3344
    assert sdwa_dst(old, np.array([0x80], np.uint32), "BYTE_0", "UNUSED_SEXT")[0] == 0xFFFFFF80
    assert sdwa_dst(old, np.array([0x80], np.uint32), "BYTE_1", "UNUSED_PAD")[0] == 0x8000


def test_fp8_fnuz_formats():
    # E4M3FNUZ: bias 8, max 240, smallest subnormal 2^-10; E5M2FNUZ: bias 16, max 57344, 2^-17
    assert np.nanmax(FP8_VALUES) == 240 and FP8_VALUES[1] == 2.0**-10 and np.isnan(FP8_VALUES[0x80])
    assert np.nanmax(BF8_VALUES) == 57344 and BF8_VALUES[1] == 2.0**-17 and np.isnan(BF8_VALUES[0x80])
    assert np.isnan(FP8_VALUES).sum() == 1 and np.isnan(BF8_VALUES).sum() == 1  # no infinities, one NaN
    codes = np.array([c for c in range(256) if c != 0x80], np.uint8)
    for bf8 in (False, True):
        back = f32_to_fp8(fp8_to_f32(codes, bf8), bf8, False)
        np.testing.assert_array_equal(back, codes)


def test_fp8_rounding_and_overflow():
    # 1.0625 lies halfway between 1.0 (0x40) and 1.125 (0x41) in E4M3: ties to even -> 0x40
    assert f32_to_fp8(np.array([1.0625], np.float32), False, False)[0] == 0x40
    assert f32_to_fp8(np.array([1.1], np.float32), False, False)[0] == 0x41
    assert f32_to_fp8(np.array([1e9], np.float32), False, False)[0] == 0x80  # overflow -> NaN
    assert f32_to_fp8(np.array([1e9], np.float32), False, True)[0] == 0x7F  # clamp -> max
    assert f32_to_fp8(np.array([-0.0], np.float32), False, False)[0] == 0  # no negative zero


def test_sat_pk_u8_i16():
    from gcnforge.emulator.ops_valu import _sat_pk_u8_i16

    a = np.array([(0xFF80 << 16) | 0x0120, (0x0005 << 16) | 0x0042], np.uint32)
    # halves (-128, 288) -> (0, 255); (5, 66) -> (5, 66): low byte from the low half
    assert _sat_pk_u8_i16(a).tolist() == [0x00FF, 0x0542]

"""Occupancy against AMD's published figures, device profiles against their data sheets."""

import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.perfmodel import profiles
from gcnforge.perfmodel.occupancy import occupancy, unified_vgprs


# AMD's VGPR-limited occupancy table for CDNA2/CDNA3 (unified 512-entry file, granule 8):
# ROCm docs "HIP performance guidelines / register pressure": 64 -> 8 waves per SIMD,
# 72 -> 7, 80 -> 6, 96 -> 5, 128 -> 4, 168 -> 3, 256 -> 2, 512 -> 1.
@pytest.mark.parametrize("vgprs,waves", [(64, 8), (65, 7), (72, 7), (80, 6), (96, 5), (128, 4), (168, 3),
                                         (169, 2), (256, 2), (257, 1), (512, 1)])
def test_vgpr_limited_waves(vgprs, waves):
    assert occupancy(vgprs, 32, 0, 64).waves_per_simd == waves


def test_agprs_start_at_a_multiple_of_four():
    # 5 arch VGPRs + 4 AGPRs: AGPRs start at accum_offset 8 -> 12 -> granule 8 -> 16
    assert unified_vgprs(5, 4) == 16
    assert unified_vgprs(128, 128) == 256
    assert unified_vgprs(7) == 8


def test_sgpr_limit_llvm_thresholds():
    # LLVM getOccupancyWithNumSGPRs (gfx9): > 100 SGPRs -> 7 waves; gfx942 caps at 8 anyway
    assert occupancy(32, 100, 0, 64).waves_per_simd == 8
    assert occupancy(32, 104, 0, 64).waves_per_simd == 7
    assert occupancy(32, 104, 0, 64).limiter == "sgpr"


def test_workgroups_per_cu_lds_and_waves():
    # 256 work-items = 4 waves, one per SIMD; 96 VGPRs allow 5 per SIMD, 16 KiB LDS each only 4
    o = occupancy(96, 32, 16384, 256)
    assert (o.waves_per_wg, o.wgs_per_cu, o.limiter) == (4, 4, "lds")
    # no LDS, 128 VGPRs -> 4 waves per SIMD -> 4 work-groups of 4 waves
    o = occupancy(128, 32, 0, 256)
    assert (o.wgs_per_cu, o.limiter) == (4, "vgpr")
    # 1024 work-items = 16 waves, 4 per SIMD: with 64 VGPRs (8 per SIMD) two fit
    assert occupancy(64, 32, 0, 1024).wgs_per_cu == 2
    # single waves, tiny: 8 per SIMD x 4 SIMDs
    assert occupancy(16, 16, 0, 64).wgs_per_cu == 32


def test_profiles_against_data_sheets():
    mi300x, mi308x, mi325x = (profiles.get(n) for n in ("mi300x", "MI308X", "mi325x"))
    assert (mi300x.cus, mi308x.cus, mi325x.cus) == (304, 80, 304)
    # MI300X data sheet: peak dense BF16 matrix 1307.4 TFLOPs, FP64 matrix 163.4 TFLOPs,
    # FP32 matrix 163.4 TFLOPs -- from the calculator's cycles, 4 SIMDs, 304 CUs, 2.1 GHz
    assert mi300x.mfma_peak_flops("v_mfma_f32_32x32x8_bf16") / 1e12 == pytest.approx(1307.4, rel=1e-3)
    assert mi300x.mfma_peak_flops("v_mfma_f64_16x16x4_f64") / 1e12 == pytest.approx(163.4, rel=1e-3)
    assert mi300x.mfma_peak_flops("v_mfma_f32_32x32x2_f32") / 1e12 == pytest.approx(163.4, rel=1e-3)
    assert mi325x.hbm_bytes_per_s == 6.0e12 and mi300x.hbm_bytes_per_s == 5.3e12
    with pytest.raises(Diagnostic, match="unknown device profile"):
        profiles.get("mi999")

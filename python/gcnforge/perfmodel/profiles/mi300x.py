"""AMD Instinct MI300X (CDNA3, gfx942).

[DS]  AMD Instinct MI300X data sheet / ROCm "AMD GPU specifications" table
      (rocm.docs.amd.com/en/latest/reference/gpu-specs.html): 304 CUs (38 per XCD, 8 XCDs),
      peak engine clock 2100 MHz, 5.3 TB/s peak HBM3 bandwidth, 256 MiB Infinity Cache,
      4 MiB L2 per XCD, 32 KiB vector L1 per CU, 64 KiB LDS per CU, 16 KiB scalar L1 per 2 CUs.
[WP]  AMD CDNA 3 white paper: L2 128 B/clk per channel, 16 channels per XCD (2 KiB/clk per
      XCD); vector L1 64 B/clk per CU; LDS 128 B/clk per CU; 128-byte cache lines; Infinity
      Cache peak bandwidth 17.2 TB/s.
[CC]  Chips and Cheese, "Testing AMD's Giant MI300X" (2024) and Tee et al., "The MALL is
      Open: Exploring Shared Caches and Latency in AMD CDNA 3 GPUs" (SC25 workshops):
      pointer-chase latencies of scalar L1, vector L1, L2, Infinity Cache (MALL) and HBM.
      The values below are read off their published latency plots (approximately 27, 57,
      118, 218 and 350 ns) and converted at 2.1 GHz; treat them as +-15%.
[MAF] AMD ROCm blog, "Measuring Max-Achievable FLOPs - Part 2" (Sander, Masters, Poursartip, Ho,
      28 Feb 2025; rocm.blogs.amd.com/software-tools-optimization/measuring-max-achievable-flops-part2/):
      MI300X (750 W) Max-Achievable FLOP/s FP16 654, BF16 708, FP8 1273 TFLOP/s with hipBLASLt
      at median engine clocks of 1115, 1207 and 1230 MHz. ``maf_flops`` sets, per data type, the
      clock at which fully busy matrix cores draw the MAF GEMM's power (``DeviceProfile.dense_clock``:
      MAF / peak x 2100 MHz, e.g. BF16 1137 MHz = the 1207 MHz median at the blog's 94% software
      efficiency); ``clock_mfma_hz``, the BF16 median clock, stands for data types without a MAF.
[BW]  AMD ROCm blog "GPU partitioning: compute and memory modes" (compute-memory-modes): a Triton
      copy kernel reading on all 8 XCDs reaches ~4017 GB/s in SPX/NPS1 (the mode profiled here);
      AMD's MI300X acceptance floor for BabelStream copy is 4.177 TB/s (ROCm/system-acceptance-docs).
[ICM] Chips and Cheese, "Testing AMD's Giant MI300X": measured Infinity Cache bandwidth ~11.9 TB/s
      (the white paper's 17.2 TB/s is the peak).
[FIT] Fitted by ``benchmarks/bench_timing_model.py`` on aiter's bf16_tuned_gemm.csv and
      asm_a8w8_gemm.csv (MI308X rows; see mi308x.py) and assumed equal here (same command processor
      and power management): ``launch_overhead_s`` absorbs the command processor's dispatch and the
      end-of-kernel cache write-back of every launch (no published MI300X figure; PETSc measured
      1.3-3.7 us for a null kernel on MI250X; aiter's times are device times from torch.profiler,
      aiter/test_common.py, so no host API cost is in it); ``throttle_tau_s`` absorbs how fast the power
      controller brings the clock from boost down to the sustained clock (fitted: 0, i.e. no
      measurable boost phase in these rows, the shortest of which run ~10 us).
[LDS] LDS load-to-use latency: ~64 cycles, the order measured for GCN/CDNA LDS by Chips
      and Cheese's CDNA 2/3 articles (a modelling figure, not an AMD specification).
"""

from gcnforge.perfmodel.device import DeviceProfile

_CLK = 2.1e9
# [FIT] values from ``python benchmarks/bench_timing_model.py`` (all calibration rows); the MI308X
# profile holds the same, plus its own fitted sustained clock
LAUNCH_OVERHEAD_S = 2.55e-6
THROTTLE_TAU_S = 0.0  # the fit's best: the clock at its sustained value from the start
# regime -> (low, high) of measured / predicted - 1 over the held-out MI308X rows (assumed to carry over)
BANDS: tuple = (("CU pipes", -0.1, 0.185), ("latency", -0.111, -0.111))


def _cyc(ns: float) -> int:
    return round(ns * 1e-9 * _CLK)


PROFILE = DeviceProfile(
    name="MI300X", target="gfx942", cus=304, xcds=8, clock_hz=_CLK,  # [DS]
    hbm_bytes_per_s=5.3e12,  # [DS]
    l2_bytes_per_xcd=4 << 20, mall_bytes=256 << 20, l1_bytes=32 << 10,  # [DS]
    line_bytes=128, lds_bytes_per_clk=128, l1_bytes_per_clk=64, l2_bytes_per_clk_per_xcd=2048,  # [WP]
    mall_bytes_per_s=17.2e12,  # [WP]
    lat_lds=64,  # [LDS]
    lat_smem=_cyc(27), lat_l1=_cyc(57), lat_l2=_cyc(118), lat_mall=_cyc(218), lat_hbm=_cyc(350),  # [CC]
    clock_mfma_hz=1207e6,  # [MAF]
    hbm_achievable_bytes_per_s=4.017e12,  # [BW]
    mall_achievable_bytes_per_s=11.9e12,  # [ICM]
    launch_overhead_s=LAUNCH_OVERHEAD_S, throttle_tau_s=THROTTLE_TAU_S,  # [FIT]
    maf_flops=(("fp16", 654e12), ("bf16", 708e12), ("fp8", 1273e12)),  # [MAF]
    bands=BANDS,  # [FIT]
    fitted=(("launch_overhead_s", "per-launch dispatch + end-of-kernel write-back (fitted on MI308X rows)"),
            ("throttle_tau_s", "how fast the clock falls from boost to the sustained clock (fitted on MI308X rows)")),
    sources=("AMD MI300X data sheet", "ROCm GPU specifications", "AMD CDNA 3 white paper",
             "Chips and Cheese: Testing AMD's Giant MI300X (2024)", "Tee et al., SC25 workshops"),
)

"""AMD Instinct MI325X (CDNA3, gfx942).

[DS] AMD Instinct MI325X data sheet / ROCm "AMD GPU specifications" table: 304 CUs (38 per
     XCD), 2100 MHz peak engine clock, 256 GB HBM3E at 6.0 TB/s peak bandwidth, 256 MiB
     Infinity Cache, 4 MiB L2 per XCD. Same CDNA3 XCD as MI300X, so cache bandwidths and
     on-die latencies are MI300X's; HBM3E latency assumed equal to MI300X's HBM3.
[MAF] AMD ROCm blog "Measuring Max-Achievable FLOPs - Part 2" (28 Feb 2025): MI325X (1000 W) MAF
     FP16 794, BF16 843, FP8 1519 TFLOP/s at median clocks 1354 / 1447 / 1464 MHz;
     ``clock_mfma_hz`` is the BF16 GEMM's.
[A-BW] Achievable HBM3E bandwidth: not published; assumed the MI300X's measured fraction of peak
     (4.017 / 5.3, mi300x.py [BW]) of 6.0 TB/s.
"""

from dataclasses import replace

from gcnforge.perfmodel.profiles.mi300x import PROFILE as _MI300X

PROFILE = replace(_MI300X, name="MI325X", hbm_bytes_per_s=6.0e12,  # [DS]
                  clock_mfma_hz=1447e6, maf_flops=(("fp16", 794e12), ("bf16", 843e12), ("fp8", 1519e12)),  # [MAF]
                  hbm_achievable_bytes_per_s=6.0e12 * _MI300X.hbm_achievable_bytes_per_s / _MI300X.hbm_bytes_per_s,  # [A-BW]
                  sources=("AMD MI325X data sheet", "ROCm GPU specifications", "MI300X profile (same XCD)"))

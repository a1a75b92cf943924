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
[LDS] LDS load-to-use latency: ~64 cycles, the order measured for GCN/CDNA LDS by Chips
      and Cheese's CDNA 2/3 articles (a modelling figure, not an AMD specification).
"""

from gcnforge.perfmodel.device import DeviceProfile

_CLK = 2.1e9


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
    sources=("AMD MI300X data sheet", "ROCm GPU specifications", "AMD CDNA 3 white paper",
             "Chips and Cheese: Testing AMD's Giant MI300X (2024)", "Tee et al., SC25 workshops"),
)

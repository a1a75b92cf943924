"""AMD Instinct MI355X (CDNA4, gfx950); ``profile(name, clock_hz)`` also makes the MI350X
(``mi350x.py``), the same silicon at a lower clock and power.

[DS]   AMD Instinct MI355X / MI350X product pages and data sheets (amd.com/en/products/accelerators/
       instinct/mi350/mi355x.html, .../mi350x.html): 256 CUs, peak engine clock 2400 MHz (MI355X,
       1400 W) and 2200 MHz (MI350X, 1000 W), 288 GB HBM3E at 8 TB/s peak bandwidth, 256 MB
       Infinity Cache; peak dense matrix FP16/BF16 2.5 PFLOP/s, OCP-FP8 5.0 PFLOP/s, FP6 and FP4
       10 PFLOP/s on the MI355X (MI350X: the same scaled by 2200/2400 = 2.3 / 4.6 / 9.2).
       ``tests/perfmodel/test_profiles_gfx950.py`` checks that the MFMA facts reproduce these.
[ROCm] ROCm "AMD GPU specifications" table (rocm.docs.amd.com/en/latest/reference/gpu-specs.html),
       rows MI355X and MI350X: 256 CUs (32 per XCD, 8 XCDs), LDS 160 KiB per CU, L3 (Infinity
       Cache) 256 MiB, L2 32 MiB (4 MiB per XCD), vector L1 32 KiB per CU, scalar L1 16 KiB per
       2 CUs.
[HC]   AMD at Hot Chips 2025, "CDNA 4 / MI350": peak frequency 2.4 GHz, 8 XCDs on 2 I/O dies,
       4 MB L2 per XCD, LDS doubled relative to MI300.
[ISSCC] AMD at ISSCC 2026 (MI355X): 32 active CUs per XCD; FP8 matrix rate per CU doubled from
       4096 to 8192 FLOP/clock (what gfx950.mfma.json's pass counts give: see the test).

Assumed (not published, as far as we could find; each says why):
[A-CU]   Per-CU cache bandwidths (vector L1 64 B/clk, LDS 128 B/clk, L2 2 KiB/clk per XCD) and the
         128-byte line: MI300X's (CDNA 3 white paper). CDNA4 keeps the CU's memory pipeline and the
         XCD's L2 (4 MiB, 16 channels); AMD publishes the LDS's size increase, not a new width.
[A-LAT]  On-die latencies (LDS, scalar L1, vector L1, L2) in shader cycles: MI300X's (same
         cache design, so the same pipeline depth in cycles). Infinity Cache and HBM latencies:
         MI300X's in nanoseconds (they sit behind the Infinity Fabric and the memory controllers,
         which do not run at the shader clock), converted at this device's clock.
[A-MALL] Infinity Cache peak bandwidth: MI300X's 17.2 TB/s (same 256 MB, 2 I/O dies instead
         of 4; no CDNA4 figure found), and its measured 11.9 TB/s as the achievable figure.
[A-LOAD] No Max-Achievable FLOPs, sustained clock or measured HBM bandwidth is published for
         MI355X / MI350X (as far as we could find): the sustained clock under matrix-core load
         is assumed to be the MI300X's MAF-median / peak ratio (1207 / 2100) of this part's peak,
         the achievable HBM bandwidth the MI300X's measured fraction (4.017 / 5.3) of 8 TB/s;
         launch overhead, throttle time constant and error bands: the MI300X's (fitted values).
"""

from dataclasses import replace

from gcnforge.perfmodel.device import DeviceProfile
from gcnforge.perfmodel.profiles.mi300x import PROFILE as _MI300X

_NS_MALL, _NS_HBM = _MI300X.lat_mall / _MI300X.clock_hz * 1e9, _MI300X.lat_hbm / _MI300X.clock_hz * 1e9  # [A-LAT]


def profile(name: str, clock_hz: float) -> DeviceProfile:
    """The CDNA4 part at ``clock_hz`` (MI355X 2.4 GHz, MI350X 2.2 GHz: [DS])."""
    return replace(
        _MI300X, name=name, target="gfx950", cus=256, xcds=8, clock_hz=clock_hz,  # [DS] [ROCm]
        hbm_bytes_per_s=8.0e12,  # [DS]
        l2_bytes_per_xcd=4 << 20, mall_bytes=256 << 20, l1_bytes=32 << 10,  # [ROCm]
        # line_bytes, lds/l1/l2 bytes per clock, mall_bytes_per_s: MI300X's  [A-CU] [A-MALL]
        # lat_lds, lat_smem, lat_l1, lat_l2: MI300X's cycles  [A-LAT]
        lat_mall=round(_NS_MALL * 1e-9 * clock_hz), lat_hbm=round(_NS_HBM * 1e-9 * clock_hz),  # [A-LAT]
        clock_mfma_hz=clock_hz * _MI300X.clock_mfma_hz / _MI300X.clock_hz, maf_flops=(),  # [A-LOAD]
        hbm_achievable_bytes_per_s=8.0e12 * _MI300X.hbm_achievable_bytes_per_s / _MI300X.hbm_bytes_per_s,  # [A-LOAD]
        sources=(f"AMD {name} data sheet", "ROCm GPU specifications", "AMD Hot Chips 2025 (CDNA 4)",
                 "AMD ISSCC 2026 (MI355X)", "MI300X profile (cache bandwidths and latencies assumed equal)"),
    )


PROFILE = profile("MI355X", 2.4e9)  # [DS]

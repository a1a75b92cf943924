"""``DeviceProfile``: the hardware figures of one device that the cost/timing model reads.

Per-target ISA facts (register files, allocation granules, SIMDs per CU, waves per SIMD)
stay in ``gcnforge.isa.target``; a profile holds what differs between products of one
target (CU count, clock, caches, bandwidths, latencies). Latencies are in shader-clock
cycles at ``clock_hz``; bandwidths in bytes per second or bytes per clock as named.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceProfile:
    name: str
    target: str  # ISA target (gcnforge.isa.target)
    cus: int
    xcds: int
    clock_hz: float  # peak engine clock
    hbm_bytes_per_s: float  # peak HBM bandwidth
    l2_bytes_per_xcd: int
    mall_bytes: int  # Infinity Cache (memory attached last level)
    l1_bytes: int  # vector L1 per CU
    line_bytes: int  # L2 / L1 cache line
    lds_bytes_per_clk: int  # per CU
    l1_bytes_per_clk: int  # vector L1 -> CU, per CU
    l2_bytes_per_clk_per_xcd: int  # L2 -> CUs of one XCD
    mall_bytes_per_s: float  # Infinity Fabric / Infinity Cache peak bandwidth
    lat_lds: int
    lat_smem: int  # scalar L1 hit
    lat_l1: int  # vector L1 hit
    lat_l2: int  # L2 hit
    lat_mall: int  # Infinity Cache hit
    lat_hbm: int  # HBM (MALL miss)
    lds_banks: int = 32  # 4-byte banks
    sources: tuple[str, ...] = ()

    @property
    def cus_per_xcd(self) -> int:
        return self.cus // self.xcds

    def hbm_bytes_per_clk(self) -> float:
        return self.hbm_bytes_per_s / self.clock_hz

    def mall_bytes_per_clk(self) -> float:
        return self.mall_bytes_per_s / self.clock_hz

    def mfma_peak_flops(self, mnemonic: str, formats: tuple[int, int] | None = None) -> float:
        """Peak FLOP/s of one MFMA kind on this device's target: every SIMD's matrix core
        issuing it back to back (flops of one instruction / its cycles, times 4 SIMDs, CUs and
        clock); ``formats``: an f8f6f4 MFMA's (cbsz, blgp) (None: FP8 operands)."""
        from gcnforge.isa.target import target
        from gcnforge.perfmodel.costs import mfma_cycles, mfma_flops

        simds = target(self.target).simds_per_cu
        return (mfma_flops(mnemonic, self.target) / mfma_cycles(mnemonic, self.target, formats)
                * simds * self.cus * self.clock_hz)


__all__ = ["DeviceProfile"]

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
    sources: tuple[str, ...] = ()
    # --- physics under load (each profile cites or marks as assumed / fitted) ---
    clock_mfma_hz: float = 0.0  # sustained clock with the matrix cores saturated (0: clock_hz)
    throttle_tau_s: float = 0.0  # time constant of the clock's fall from clock_hz to clock_mfma_hz (0: at once)
    hbm_achievable_bytes_per_s: float = 0.0  # a measured streaming figure (0: hbm_bytes_per_s)
    mall_achievable_bytes_per_s: float = 0.0  # measured Infinity Cache bandwidth (0: mall_bytes_per_s)
    launch_overhead_s: float = 0.0  # per launch: command-processor dispatch + end-of-kernel write-back
    maf_flops: tuple[tuple[str, float], ...] = ()  # published Max-Achievable FLOP/s by data type
    # fitted parameter -> what it absorbs (values are the fields above; bench_timing_model.py fits them)
    fitted: tuple[tuple[str, str], ...] = ()
    # regime -> (low, high) relative error of held-out predictions (bench_timing_model.py k-fold)
    bands: tuple[tuple[str, float, float], ...] = ()

    @property
    def cus_per_xcd(self) -> int:
        return self.cus // self.xcds

    def hbm_bytes_per_clk(self) -> float:
        """Achievable (measured) HBM bytes per shader clock; the data sheet's peak when none is given."""
        return (self.hbm_achievable_bytes_per_s or self.hbm_bytes_per_s) / self.clock_hz

    def mall_bytes_per_clk(self) -> float:
        return (self.mall_achievable_bytes_per_s or self.mall_bytes_per_s) / self.clock_hz

    @property
    def hbm_achievable(self) -> float:
        return self.hbm_achievable_bytes_per_s or self.hbm_bytes_per_s

    def sustained_clock(self, mfma_density: float, seconds: float, dense_hz: float | None = None) -> float:
        """Mean engine clock over a kernel of ``seconds`` whose matrix cores are busy a fraction
        ``mfma_density`` of the time device-wide. Power cap: the MAF GEMM (matrix cores always
        busy) runs at ``clock_mfma_hz`` (AMD MAF part 2's median clock); a kernel keeping them busy
        a fraction d draws the same matrix-core power at ``clock_mfma_hz / d``, never above the
        boost clock ``clock_hz`` (lightly loaded kernels run at boost: AMD MAF part 1). The clock
        falls from boost to that value with time constant ``throttle_tau_s`` (the power
        controller's response); returned is its mean over ``seconds``. ``dense_hz``: the
        saturated clock of the kernel's data type when the profile knows its MAF
        (``dense_clock``), else ``clock_mfma_hz``."""
        import math

        dense = dense_hz or self.clock_mfma_hz or self.clock_hz
        d = min(1.0, max(0.0, mfma_density))
        f_s = self.clock_hz if d * self.clock_hz <= dense else dense / d
        if self.throttle_tau_s <= 0 or seconds <= 0:
            return f_s
        x = seconds / self.throttle_tau_s
        return f_s + (self.clock_hz - f_s) * (-math.expm1(-x)) / x

    def dense_clock(self, mnemonic: str | None, dtype: str | None) -> float:
        """The clock at which a kernel keeping every matrix core busy with ``mnemonic`` would draw
        the power of AMD's MAF GEMM of that data type: MAF / the peak at ``clock_hz``, times
        ``clock_hz`` (MI300X BF16: 708 / 1307.4 x 2100 = 1137 MHz, the blog's 1207 MHz median at its
        94% software efficiency, footnote 2), so no prediction exceeds the published MAF; without
        a MAF for the data type: ``clock_mfma_hz``."""
        maf = self.maf(dtype) if dtype else None
        if maf and mnemonic:
            return min(self.clock_hz, maf / self.mfma_peak_flops(mnemonic) * self.clock_hz)
        return self.clock_mfma_hz or self.clock_hz

    def maf(self, dtype: str) -> float | None:
        return dict(self.maf_flops).get(dtype)

    def band(self, regime: str) -> tuple[float, float] | None:
        for r, lo, hi in self.bands:
            if r == regime:
                return lo, hi
        return None

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

"""Occupancy: how many waves of a kernel a SIMD holds and how many work-groups a CU holds,
computed as the hardware allocates (register files and LDS per CU; granules and file sizes
from ``gcnforge.isa.target``).

* VGPRs (gfx90a+ unified file of 512 per lane per SIMD): a wave that uses AGPRs allocates
  ``align(arch_vgprs, 4) + agprs`` (AGPRs start at ``accum_offset``), rounded up to the
  allocation granule (8); waves per SIMD = 512 // that (AMD ISA guide ch. 3 "Kernel
  State"; LLVM AMDGPUBaseInfo getTotalNumVGPRs / getNumWavesPerEUWithNumVGPRs).
* SGPRs: the target's ``sgpr_wave_steps`` (gfx9, 800 per SIMD: 10 / 9 / 8 / 7 waves for at
  most 80 / 88 / 100 / more SGPRs, VCC, FLAT_SCRATCH and XNACK_MASK included: the
  descriptor's count; LLVM AMDGPUBaseInfo getOccupancyWithNumSGPRs).
* gfx942 holds at most 8 waves per SIMD (``Target.max_waves_per_simd``).
* LDS: the target's ``lds_bytes`` per CU shared by the work-groups on it, allocated in
  ``lds_granule`` granules.
* A work-group's waves all live on one CU, spread over its 4 SIMDs; at most
  ``max_barriers_per_cu`` (16) work-groups of more than one wave per CU (barrier resources;
  LLVM AMDGPUBaseInfo getMaxWorkGroupsPerCU).
"""

from __future__ import annotations

from dataclasses import dataclass

from gcnforge.isa.target import target as isa_target

def _align(n: int, g: int) -> int:
    return -(-n // g) * g


@dataclass(frozen=True)
class Occupancy:
    waves_per_simd: int  # resident waves per SIMD (the register limit)
    wgs_per_cu: int  # resident work-groups per CU
    waves_per_wg: int
    limiter: str  # "vgpr" | "sgpr" | "lds" | "waves" | "workgroups"

    @property
    def waves_per_cu(self) -> int:
        return self.wgs_per_cu * self.waves_per_wg


def unified_vgprs(arch_vgprs: int, agprs: int = 0, tgt: str = "gfx942") -> int:
    """Unified VGPRs one wave allocates for ``arch_vgprs`` VGPRs and ``agprs`` AGPRs."""
    t = isa_target(tgt)
    total = _align(max(arch_vgprs, 1), 4) + agprs if agprs else max(arch_vgprs, 1)
    return _align(total, t.vgpr_granule)


def occupancy(vgprs: int, sgprs: int, lds_bytes: int, workitems: int, tgt: str = "gfx942") -> Occupancy:
    """``vgprs``: unified VGPRs per wave (arch + AGPR, as the descriptor allocates them);
    ``sgprs``: SGPRs per wave including VCC / flat scratch; ``lds_bytes`` per work-group;
    ``workitems`` per work-group."""
    t = isa_target(tgt)
    wpg = max(1, -(-workitems // t.wave_size))
    v = _align(max(vgprs, 1), t.vgpr_granule)
    by_vgpr = t.vgprs // v if v <= t.vgprs else 0
    by_sgpr = next(w for n, w in t.sgpr_wave_steps if sgprs <= n)  # (the last step takes any count)
    wps = min(t.max_waves_per_simd, by_vgpr, by_sgpr)
    limiter = "waves"
    if wps == by_vgpr and by_vgpr < t.max_waves_per_simd:
        limiter = "vgpr"
    elif wps == by_sgpr and by_sgpr < t.max_waves_per_simd:
        limiter = "sgpr"
    slots = wps * t.simds_per_cu
    # the waves of a work-group go round-robin over the SIMDs: a SIMD holds ceil(wpg / 4) of each
    per_simd = -(-wpg // t.simds_per_cu)
    by_waves = slots // (per_simd * min(wpg, t.simds_per_cu))
    cands = [(by_waves, limiter)]
    if lds_bytes > 0:
        cands.append((t.lds_bytes // _align(lds_bytes, t.lds_granule), "lds"))  # LDS per CU = per WG max
    if wpg > 1:
        cands.append((t.max_barriers_per_cu, "workgroups"))
    wgs, lim = min(cands, key=lambda c: c[0])
    return Occupancy(wps, max(0, wgs), wpg, lim)


__all__ = ["Occupancy", "occupancy", "unified_vgprs"]

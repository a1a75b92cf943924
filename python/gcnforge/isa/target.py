"""Target facts, one place per target (gfx942 and gfx950).

Sources: AMD Instinct MI300 ISA Reference Guide (CDNA3) ch. 3 "Kernel State" (102
addressable SGPRs; a unified 512-entry VGPR file per lane = up to 256 arch VGPRs + 256
AGPRs; 64 KiB LDS per work-group; wave64). Allocation/encoding granules as LLVM 22 uses
them for ``.amdhsa`` granulated counts (AMDGPUBaseInfo: getVGPRAllocGranule /
getVGPREncodingGranule = 8 for gfx90a+ unified VGPRs; getSGPRAllocGranule = 16 and
getSGPREncodingGranule = 8 for gfx8-gfx9; VCC, FLAT_SCRATCH and XNACK_MASK add extra
SGPRs). CU count from the AMD Instinct MI300X data sheet (304 CUs). Scratch per wave: the
13-bit COMPUTE_TMPRING_SIZE.WAVESIZE field in 1 KiB units before gfx11 (LLVM SIDefines.h
S_00B860_WAVESIZE_PreGFX11, AMDGPU scratch alignment shift 10), so at most 8191 KiB per wave.

gfx950 (CDNA4, MI350X / MI355X) keeps gfx942's register files, granules and wave64, and
raises LDS to 160 KiB per work-group (AMD Instinct MI355X data sheet, "160 KB LDS per CU";
LLVM's FeatureAddressableLocalMemorySize163840 for gfx950, and its test
CodeGen/AMDGPU/gfx950-lds-size: ``.lds_size 0x28000``). 256 CUs (MI355X data sheet).
"""

from __future__ import annotations

from gcnforge.record import FrozenRecord

# gcnforge's bound on a kernel's kernarg segment (the descriptor's kernarg_size is a 32-bit
# field): 16x the 4 KiB of explicit arguments HIP passes. A tool limit, not a hardware fact:
# it keeps a damaged descriptor from making the runtime or the emulator write gigabytes of zeros.
MAX_KERNARG_BYTES = 1 << 16

# The preloaded registers a kernel may request, in the order the hardware loads them, with
# their SGPR counts (LLVM AMDGPUUsage, "Initial Kernel Execution State": ".amdhsa_user_sgpr_*",
# ".amdhsa_system_sgpr_*", ".amdhsa_system_vgpr_workitem_id"; one SGPR per system register).
USER_SGPRS = {
    "private_segment_buffer": 4,
    "dispatch_ptr": 2,
    "queue_ptr": 2,
    "kernarg_segment_ptr": 2,
    "dispatch_id": 2,
    "flat_scratch_init": 2,
    "private_segment_size": 1,
}
SYSTEM_SGPRS = ("workgroup_id_x", "workgroup_id_y", "workgroup_id_z", "workgroup_info", "private_segment_wavefront_offset")
SYSTEM_VGPRS = ("workitem_id_x", "workitem_id_y", "workitem_id_z")


class Target(FrozenRecord):
    """A FrozenRecord, not a dataclass: every ``gcnforge`` command reads the target list, and
    the ``dataclasses`` import is a measurable part of ``gcnforge as`` start-up (issue 15)."""

    __slots__ = _fields = (
        "name", "sgprs", "vgprs", "arch_vgprs", "agprs", "vgpr_granule", "vgpr_encoding_granule", "sgpr_granule",
        "sgpr_encoding_granule", "lds_bytes", "lds_granule", "wave_size", "max_waves_per_simd", "simds_per_cu",
        "cu_count", "trap_sgprs", "extra_sgprs_vcc", "extra_sgprs_flat_scratch", "has_agprs", "has_packed_fp32",
        "max_flat_workgroup_size", "has_lds_direct", "max_scratch_per_wave", "lds_banks", "sgpr_wave_steps",
        "max_barriers_per_cu", "simd_lanes", "trans_rate")
    name: str
    sgprs: int  # addressable SGPRs (s0..s101)
    vgprs: int  # unified VGPR file per lane (arch VGPRs + AGPRs)
    arch_vgprs: int  # v0..v255
    agprs: int  # a0..a255
    vgpr_granule: int  # VGPR allocation granule (unified file)
    vgpr_encoding_granule: int  # granule of compute_pgm_rsrc1.granulated_workitem_vgpr_count
    sgpr_granule: int  # SGPR allocation granule
    sgpr_encoding_granule: int  # granule of compute_pgm_rsrc1.granulated_wavefront_sgpr_count
    lds_bytes: int  # LDS per work-group
    lds_granule: int  # bytes per unit of compute_pgm_rsrc2.lds_size (128 dwords)
    wave_size: int
    max_waves_per_simd: int
    simds_per_cu: int
    cu_count: int
    trap_sgprs: int  # ttmp0..ttmp15
    extra_sgprs_vcc: int  # VCC counted in the SGPR budget
    extra_sgprs_flat_scratch: int  # gfx90a+: flat_scratch + xnack_mask also reserved
    has_agprs: bool
    has_packed_fp32: bool
    max_flat_workgroup_size: int
    # LDS-direct source operand (code 254): LLVM 22 rejects it on gfx90a and later
    # ("lds_direct is not supported on this GPU"); the CDNA3 ISA guide lists no LDS-direct reads.
    has_lds_direct: bool
    max_scratch_per_wave: int  # bytes (private segment of a wave's 64 work-items)
    # LDS banks of 4 bytes: 32 on CDNA3 (ROCm blog "Avoiding LDS Bank Conflicts on AMD GPUs Using
    # CK-Tile", 2025-07-25: "LDS is divided into 32 memory banks"), 64 on gfx950 (Composable
    # Kernel's ck_tile get_n_lds_banks: gfx9 32, gfx950 64)
    lds_banks: int
    # waves per SIMD a wave's SGPR count allows (its descriptor count, VCC / FLAT_SCRATCH /
    # XNACK_MASK included): (at most N SGPRs, W waves) in order, then the last W for more; gfx9's
    # 800 SGPRs per SIMD: 80 -> 10, 88 -> 9, 100 -> 8, more -> 7 (LLVM AMDGPUBaseInfo
    # getOccupancyWithNumSGPRs, VOLCANIC_ISLANDS and later)
    sgpr_wave_steps: tuple[tuple[int, int], ...]
    # work-groups of more than one wave a CU holds: one barrier each, 16 per CU on gfx9 (LLVM
    # AMDGPUBaseInfo getMaxWorkGroupsPerCU, MaxBarriers; single-wave work-groups use none)
    max_barriers_per_cu: int
    # lanes of one SIMD: a wave64 VALU instruction runs in wave_size / simd_lanes = 4 passes of
    # one cycle (MI300 ISA guide ch. 1-2; CDNA 3 white paper: four 16-wide SIMDs per CU)
    simd_lanes: int
    # transcendentals (v_exp, v_log, v_rcp, v_rsq, v_sqrt, v_sin, v_cos) run at 1/trans_rate of
    # the VALU rate: quarter rate, 16 cycles a wave64 (MI300 ISA guide, "Vector ALU" transcendental ops)
    trans_rate: int

    def __init__(self, name: str, sgprs: int, vgprs: int, arch_vgprs: int, agprs: int, vgpr_granule: int,
                 vgpr_encoding_granule: int, sgpr_granule: int, sgpr_encoding_granule: int, lds_bytes: int,
                 lds_granule: int, wave_size: int, max_waves_per_simd: int, simds_per_cu: int, cu_count: int,
                 trap_sgprs: int = 16, extra_sgprs_vcc: int = 2, extra_sgprs_flat_scratch: int = 6,
                 has_agprs: bool = True, has_packed_fp32: bool = True, max_flat_workgroup_size: int = 1024,
                 has_lds_direct: bool = False, max_scratch_per_wave: int = 0x1FFF * 1024, lds_banks: int = 32,
                 sgpr_wave_steps: tuple[tuple[int, int], ...] = ((80, 10), (88, 9), (100, 8), (1 << 30, 7)),
                 max_barriers_per_cu: int = 16, simd_lanes: int = 16, trans_rate: int = 4) -> None:
        values = locals()
        for n in self._fields:
            object.__setattr__(self, n, values[n])


TARGETS: dict[str, Target] = {
    "gfx942": Target(
        name="gfx942", sgprs=102, vgprs=512, arch_vgprs=256, agprs=256, vgpr_granule=8,
        vgpr_encoding_granule=8, sgpr_granule=16, sgpr_encoding_granule=8, lds_bytes=65536, lds_granule=512,
        wave_size=64, max_waves_per_simd=8, simds_per_cu=4, cu_count=304,
    ),
    "gfx950": Target(
        name="gfx950", sgprs=102, vgprs=512, arch_vgprs=256, agprs=256, vgpr_granule=8,
        # lds_granule: gfx942's (only the occupancy model reads it; not checked for gfx950)
        vgpr_encoding_granule=8, sgpr_granule=16, sgpr_encoding_granule=8, lds_bytes=163840, lds_granule=512,
        wave_size=64, max_waves_per_simd=8, simds_per_cu=4, cu_count=256, lds_banks=64,
    ),
}


def target(name: str = "gfx942") -> Target:
    base = name.split(":")[0]
    try:
        return TARGETS[base]
    except KeyError:
        from gcnforge.diagnostics import Diagnostic

        raise Diagnostic(f"unknown target '{name}' (known: {', '.join(TARGETS)})") from None

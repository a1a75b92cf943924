"""gfx942 (CDNA3, MI300) per-wave issue costs by semantic class (``Instruction.sem``).

Units are shader-clock cycles seen by one wave64 on one SIMD. Where the numbers come from:

* Issue: a SIMD's arbiter visits each wave at most once per 4-cycle issue window
  (``ISSUE``: ``wave_size / simd_lanes`` of ``gcnforge.isa.target``): a wave64 VALU
  instruction runs over four 16-lane passes (AMD Instinct MI300 ISA Reference Guide, ch. 1-2
  "wave64 ... executes in four passes"; gcnforge's emulator uses the same 4-cycle VALU cost).
* MFMA: the matrix core is busy for the instruction's cycle count, which AMD's Matrix
  Instruction Calculator (ROCm/amd_matrix_instruction_calculator, ``-a CDNA3``, "Execution
  cycles") prints for every CDNA3 MFMA and SMFMAC; ``gcnforge.isa.mfma`` holds them.
  Independent MFMAs queue on the one matrix pipe; a dependent MFMA (srcC = previous vdst)
  issues when the previous one has finished (the ISA guide's hazard table needs no extra
  wait states for an exactly overlapping srcC), so ``latency == busy``.
* Transcendentals (v_exp/v_log/v_rcp/v_rsq/v_sqrt/v_sin/v_cos) are quarter rate
  (``isa.target`` ``trans_rate``): 16 cycles, and they occupy the VALU while they run.
  CDNA3's vector FP64 is full rate (MI300 white paper: FP64 vector = FP32 vector peak), so
  ``valu_dp`` costs 4 like ``valu``.
* Memory pipes: issue occupancy from bytes moved per wave at the device profile's LDS and
  vector L1 bytes per clock (``lds_bytes_per_clk``, ``l1_bytes_per_clk``), minimum one issue window.
  Memory latencies come from the device profile (``perfmodel.profiles``, cited there; when none
  is given, the active target's default device: MI300X for gfx942, MI355X for gfx950): LDS ``lat_lds``, SMEM ``lat_smem``, vector memory ``lat_hbm`` (the
  static view of one wave cannot know what hits in a cache, so a load is a first touch; the
  timing mode replaces it with the cache hierarchy's answer for the real addresses).
"""

from __future__ import annotations

from functools import cache

from gcnforge.isa import mfma as isa_mfma
from gcnforge.isa.target import target as _target_facts

# gfx942 and gfx950 alike (isa.target): one pass per 16 lanes, transcendentals at quarter rate
ISSUE = _target_facts().wave_size // _target_facts().simd_lanes
TRANS_CYCLES = ISSUE * _target_facts().trans_rate

PIPES = ("salu", "valu", "trans", "mfma", "lds", "vmem", "smem")

# semantic class -> pipe (None: issue slot only)
PIPE_OF = {
    "salu": "salu", "branch": "salu", "message": "salu", "control": None, "waitcnt": None,
    "valu": "valu", "valu_dp": "valu", "trans": "trans", "mfma": "mfma",
    "lds": "lds", "gds": "lds", "smem": "smem",
    "vmem_load": "vmem", "vmem_store": "vmem", "vmem_atomic": "vmem",
    "flat_load": "vmem", "flat_store": "vmem", "flat_atomic": "vmem",
}

LATENCY = {  # pipeline latencies; memory ones are the device profile's (``_memory_latency``)
    "salu": ISSUE, "branch": ISSUE, "message": ISSUE, "control": ISSUE, "waitcnt": ISSUE,
    "valu": ISSUE, "valu_dp": ISSUE, "trans": TRANS_CYCLES,
}
_MEMORY = {"lds": "lat_lds", "gds": "lat_lds", "smem": "lat_smem",
           **{s: "lat_hbm" for s in ("vmem_load", "vmem_store", "vmem_atomic", "flat_load", "flat_store",
                                     "flat_atomic")}}


@cache
def _default_profile(target: str):
    from gcnforge.perfmodel.profiles import DEFAULT, get

    return get(DEFAULT.get(target, "mi300x"))


def _profile(prof):
    if prof is None:  # the active target's default device (gfx942: MI300X, gfx950: MI355X)
        from gcnforge.isa.table import active_target

        return _default_profile(active_target())
    return prof


@cache
def _wave_size(target: str) -> int:
    from gcnforge.isa.target import target as facts

    return facts(target).wave_size


def _latency(sem: str, prof) -> int:
    attr = _MEMORY.get(sem)
    if attr is not None:
        return getattr(_profile(prof), attr)
    return LATENCY.get(sem, ISSUE)


def mfma_flops(base: str, target: str | None = None) -> int:
    """Floating-point (or integer) operations of one MFMA: 2 * M * N * K * blocks (the
    calculator's shape; sparse ``v_smfmac`` count the dense K they stand for) on ``target``
    (default: the active one)."""
    v = isa_mfma.info(base, target)
    if v is None:
        raise KeyError(f"no MFMA shape for '{base}'")
    return v.flops


@cache
def _sem_by_base(target: str) -> dict[str, str]:
    from gcnforge.isa import table

    return {i.base: i.sem for i in table.instructions(target) if i.sem}


def sem_of(base: str) -> str:
    """The ISA table's semantic class of an instruction (by base mnemonic; the active target's table)."""
    from gcnforge.isa.table import active_target

    return _sem_by_base(active_target()).get(base.removesuffix("_e32").removesuffix("_e64").removesuffix("_sdwa")
                              .removesuffix("_dpp"), "control")


def issue_cycles(sem: str, base: str) -> int:
    """Cycles one wave's instruction keeps its SIMD's issue busy: the pipe occupancy of
    ``cost`` (one dword of data per lane for memory instructions). The emulator's run
    statistics and ``s_memtime`` count these; ``timing`` models the rest (latency,
    other waves, memory)."""
    return cost(sem, base, 1)[1]


def mfma_cycles(base: str, target: str | None = None, formats: tuple[int, int] | None = None) -> int:
    """Matrix-core cycles of one MFMA on ``target`` (default: the active one; facts from
    ``gcnforge.isa.mfma``, an unknown MFMA as the longest); ``formats``: a gfx950 f8f6f4 MFMA's
    (cbsz, blgp), which decide its pass count (None: the FP8 count, the larger)."""
    return isa_mfma.cycles(base, target, formats)


def cost(sem: str, base: str, data_dwords: int, prof=None,
         formats: tuple[int, int] | None = None) -> tuple[str | None, int, int]:
    """(pipe, busy cycles, result latency) of one instruction; memory latencies from the device
    profile ``prof`` (None: the active target's default device), MFMA cycles for ``prof``'s target (the active target
    when None) and, for an f8f6f4 MFMA, its operand ``formats``."""
    pipe = PIPE_OF.get(sem, "valu")
    if sem == "mfma":
        c = mfma_cycles(base, prof.target if prof is not None else None, formats)
        return pipe, c, c
    if sem == "trans":
        return pipe, TRANS_CYCLES, LATENCY["trans"]
    if pipe in ("lds", "vmem"):  # the wave's bytes at the profile's LDS or vector L1 bytes per clock
        p = _profile(prof)
        per_clk = p.lds_bytes_per_clk if pipe == "lds" else p.l1_bytes_per_clk
        return pipe, max(ISSUE, _wave_size(p.target) * 4 * data_dwords // per_clk), _latency(sem, p)
    if pipe in ("salu", "smem"):
        return pipe, 1, _latency(sem, prof)
    return pipe, ISSUE, _latency(sem, prof)

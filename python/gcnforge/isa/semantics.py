"""Semantic classes: which pipe/unit an instruction goes to. The emulator and the
scheduling/wait/hazard passes switch on ``Instruction.sem`` (a ``SemClass`` value).

Grouping follows AMD Instinct MI300 ISA Reference Guide ch. 4 ("Program Flow Control"),
ch. 5 ("Scalar ALU"), ch. 6 ("Vector ALU" incl. 6.1 transcendental and 7 "MFMA"), ch. 9-11
(memory); wait counters per ISA guide 4.4 "Data Dependency Resolution".
"""

from __future__ import annotations

from enum import StrEnum


class SemClass(StrEnum):
    SALU = "salu"
    BRANCH = "branch"  # s_branch, s_cbranch_*, s_setpc, s_swappc, s_getpc, s_call, s_subvector_loop_*
    CONTROL = "control"  # s_endpgm, s_barrier, s_nop, s_sleep, s_trap, s_sethalt, s_set_gpr_idx_*, s_setprio ...
    WAITCNT = "waitcnt"  # s_waitcnt*
    MESSAGE = "message"  # s_sendmsg, s_sendmsghalt, s_ttracedata
    SMEM = "smem"
    VALU = "valu"
    TRANS = "trans"  # v_exp/v_log/v_rcp/v_rsq/v_sqrt/v_sin/v_cos (+ f16/f64, iflag/clamp forms)
    VALU_DP = "valu_dp"  # double-precision VALU
    MFMA = "mfma"  # VOP3P-MAI (v_mfma_*, v_smfmac_*, v_accvgpr_* are valu)
    LDS = "lds"
    GDS = "gds"
    VMEM_LOAD = "vmem_load"
    VMEM_STORE = "vmem_store"
    VMEM_ATOMIC = "vmem_atomic"
    FLAT_LOAD = "flat_load"
    FLAT_STORE = "flat_store"
    FLAT_ATOMIC = "flat_atomic"


# The classes S_SETVSKIP's VSKIP mode does not issue: "no VOP*/M*BUF/MIMG/DS/FLAT instructions
# are issued" (AMD CDNA ISA guide, SOPC S_SETVSKIP); scalar, branch and SMEM ones still run.
VSKIPPED = frozenset({SemClass.VALU, SemClass.TRANS, SemClass.VALU_DP, SemClass.MFMA, SemClass.LDS, SemClass.GDS,
                      SemClass.VMEM_LOAD, SemClass.VMEM_STORE, SemClass.VMEM_ATOMIC, SemClass.FLAT_LOAD,
                      SemClass.FLAT_STORE, SemClass.FLAT_ATOMIC})


_BRANCH_PREFIX = ("s_branch", "s_cbranch_", "s_setpc_", "s_swappc_", "s_getpc_", "s_call_",
                  "s_subvector_loop_")
_CONTROL = {"s_endpgm", "s_endpgm_saved", "s_endpgm_ordered_ps_done", "s_barrier", "s_nop", "s_sleep",
            "s_trap", "s_rfe_b64", "s_rfe_restore_b64", "s_sethalt", "s_setkill", "s_setprio", "s_icache_inv",
            "s_incperflevel", "s_decperflevel", "s_set_gpr_idx_on", "s_set_gpr_idx_off", "s_set_gpr_idx_mode",
            "s_set_gpr_idx_idx", "s_wakeup", "s_cbranch_join", "s_ttracedata_imm", "s_endpgm_ordered_ps_done"}
_MESSAGE = {"s_sendmsg", "s_sendmsghalt", "s_ttracedata"}


def scalar_class(base: str, encoding: str) -> SemClass:
    """Class of a SOP*/SMEM instruction from its name (ISA guide 4.x/5.x instruction lists)."""
    if encoding == "SMEM":
        return SemClass.SMEM
    if base.startswith("s_waitcnt"):
        return SemClass.WAITCNT
    if base in _MESSAGE:
        return SemClass.MESSAGE
    if base.startswith(_BRANCH_PREFIX):
        return SemClass.BRANCH
    if base in _CONTROL:
        return SemClass.CONTROL
    return SemClass.SALU


_ATOMIC_HINTS = ("atomic", "_add_", "cmpst", "cmpswap", "_wrxchg", "_inc_", "_dec_", "_min_", "_max_",
                 "_and_", "_or_", "_xor_", "_sub_", "_rsub_", "_mskor_", "_swap", "_fmin", "_fmax", "_pk_add",
                 "_consume", "_append", "_ordered_count", "_gws_", "_condxchg")


def memory_class(base: str, encoding: str, stores: bool) -> SemClass:
    """Class of a DS/FLAT/GLOBAL/SCRATCH/MUBUF/MTBUF instruction."""
    if encoding == "DS":
        return SemClass.GDS if ("_gws_" in base or base in ("ds_ordered_count",)) else SemClass.LDS
    atomic = "atomic" in base
    if encoding == "FLAT":
        return SemClass.FLAT_ATOMIC if atomic else (SemClass.FLAT_STORE if stores else SemClass.FLAT_LOAD)
    return SemClass.VMEM_ATOMIC if atomic else (SemClass.VMEM_STORE if stores else SemClass.VMEM_LOAD)

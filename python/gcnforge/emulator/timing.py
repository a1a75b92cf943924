"""A simple issue model: cycles each wave spends per instruction.

This is a model for ranking kernels, not a simulator of the CU. Numbers are per wave64
on one SIMD: VALU ops issue over 4 cycles (16 lanes/cycle; MI300 ISA guide ch. 1
"wave64 executes over four passes"), transcendentals and f64 take a quarter rate
(16 cycles), MFMA take the pass count AMD's Matrix Instruction Calculator prints
("Execution cycles"), memory instructions charge their issue cost (latency is hidden by
other waves in this model), scalar ops 1 cycle.
"""

from __future__ import annotations

SEM_PREFIX = (
    ("s_load", "smem"), ("s_buffer_load", "smem"), ("s_store", "smem"), ("s_memtime", "smem"),
    ("s_memrealtime", "smem"), ("s_dcache", "smem"), ("s_atomic", "smem"), ("s_scratch", "smem"),
    ("s_branch", "branch"), ("s_cbranch", "branch"), ("s_setpc", "branch"), ("s_swappc", "branch"),
    ("s_getpc", "branch"), ("s_call", "branch"), ("s_waitcnt", "waitcnt"),
    ("s_endpgm", "control"), ("s_barrier", "control"), ("s_nop", "control"), ("s_sleep", "control"),
    ("s_trap", "control"), ("s_sethalt", "control"), ("s_set_gpr_idx", "control"), ("s_setprio", "control"),
    ("s_sendmsg", "message"), ("s_", "salu"),
    ("v_mfma", "mfma"), ("v_smfmac", "mfma"),
    ("v_exp", "trans"), ("v_log", "trans"), ("v_rcp", "trans"), ("v_rsq", "trans"), ("v_sqrt", "trans"),
    ("v_sin", "trans"), ("v_cos", "trans"),
    ("ds_", "lds"), ("global_load", "vmem_load"), ("global_store", "vmem_store"),
    ("global_atomic", "vmem_atomic"), ("buffer_load", "vmem_load"), ("buffer_store", "vmem_store"),
    ("buffer_atomic", "vmem_atomic"), ("scratch_load", "vmem_load"), ("scratch_store", "vmem_store"),
    ("flat_load", "flat_load"), ("flat_store", "flat_store"), ("flat_atomic", "flat_atomic"),
    ("buffer_", "control"), ("v_", "valu"),
)


def sem_of(base: str) -> str:
    for p, s in SEM_PREFIX:
        if base.startswith(p):
            if s == "valu" and "f64" in base:
                return "valu_dp"
            return s
    return "control"


def cycles_for(ins) -> int:
    s = ins.sem
    if s in ("salu", "branch", "waitcnt", "control", "message", "smem"):
        return 1
    if s == "mfma":
        from gcnforge.emulator.ops_mfma import info_for

        info = info_for(ins.base)
        return info["cycles"] if info else 16
    if s in ("trans", "valu_dp"):
        return 16
    if s.startswith(("vmem", "flat")) or s in ("lds",):
        return 4
    return 4

"""The ``.amdhsa_kernel NAME ... .end_amdhsa_kernel`` block -> ``KernelDescriptor``.

Semantics follow LLVM 22's AMDGPUAsmParser::ParseDirectiveAMDHSAKernel for gfx940-class
targets (checked field by field against llvm-mc in tests/binary/test_directives.py):
defaults from getDefaultAmdhsaKernelDescriptor (denorm_16_64 = 3, dx10_clamp = 1,
ieee_mode = 1, workgroup_id_x = 1), user SGPR count implied by the enables unless
``.amdhsa_user_sgpr_count`` is given, granulated GPR counts from next_free_vgpr/sgpr
(the SGPR count adds VCC/flat-scratch/XNACK extras: always 6 with architected flat
scratch), accum_offset in [4, arch VGPRs (256: isa.target)] step 4. Values are expressions; they are evaluated when
the whole file has been read, so they may use ``.set`` symbols defined later.
"""

from __future__ import annotations

from collections.abc import Callable

from gcnforge.binary.descriptor import (ADDRESSABLE_SGPRS, FIELD_BY_NAME, SGPR_ENCODING_GRANULE, VGPR_ENCODING_GRANULE,
                                       KernelDescriptor)
from gcnforge.binary.expr import Node
from gcnforge.binary.target_id import TargetId
from gcnforge.isa.target import USER_SGPRS, target as _isa_target
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.record import FrozenRecord, Record

MAX_USER_SGPRS = 16  # gfx9 user SGPRs usable for kernarg preload (getMaxNumUserSGPRs)

# Directives that set a descriptor bit field directly: directive -> field name.
BIT_DIRECTIVES = {
    f".amdhsa_{n}": n
    for n in (
        "user_sgpr_dispatch_ptr", "user_sgpr_queue_ptr", "user_sgpr_kernarg_segment_ptr",
        "user_sgpr_dispatch_id", "user_sgpr_private_segment_size", "uses_dynamic_stack",
        "enable_private_segment", "system_sgpr_workgroup_id_x", "system_sgpr_workgroup_id_y",
        "system_sgpr_workgroup_id_z", "system_sgpr_workgroup_info", "system_vgpr_workitem_id",
        "float_round_mode_32", "float_round_mode_16_64", "float_denorm_mode_32",
        "float_denorm_mode_16_64", "dx10_clamp", "ieee_mode", "fp16_overflow", "tg_split",
        "exception_fp_ieee_invalid_op", "exception_fp_denorm_src", "exception_fp_ieee_div_zero",
        "exception_fp_ieee_overflow", "exception_fp_ieee_underflow", "exception_fp_ieee_inexact",
        "exception_int_div_zero", "user_sgpr_kernarg_preload_length", "user_sgpr_kernarg_preload_offset",
        # Only without architected flat scratch (gfx90a and older), see FLAT_SCRATCH_ONLY.
        "user_sgpr_private_segment_buffer", "user_sgpr_flat_scratch_init",
    )
}
BIT_DIRECTIVES[".amdhsa_system_sgpr_private_segment_wavefront_offset"] = "enable_private_segment"
# Directives valid only without (True) / only with (False) architected flat scratch.
FLAT_SCRATCH_ONLY = {
    ".amdhsa_user_sgpr_private_segment_buffer": True, ".amdhsa_user_sgpr_flat_scratch_init": True,
    ".amdhsa_system_sgpr_private_segment_wavefront_offset": True, ".amdhsa_reserve_flat_scratch": True,
    ".amdhsa_enable_private_segment": False,
}
# User SGPRs each enable implies (AMDHSA "Initial Kernel Execution State").
IMPLIED_USER_SGPRS = {f"user_sgpr_{name}": n for name, n in USER_SGPRS.items()}
SIZE_DIRECTIVES = {".amdhsa_group_segment_fixed_size", ".amdhsa_private_segment_fixed_size", ".amdhsa_kernarg_size"}
OTHER_DIRECTIVES = {
    ".amdhsa_user_sgpr_count", ".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr",
    ".amdhsa_accum_offset", ".amdhsa_reserve_vcc", ".amdhsa_reserve_xnack_mask", ".amdhsa_reserve_flat_scratch",
}
# Directives LLVM knows but rejects on gfx940-class targets, with LLVM's reason.
UNSUPPORTED_ON_GFX942 = {
    ".amdhsa_wavefront_size32": "directive requires gfx10+",
    ".amdhsa_workgroup_processor_mode": "directive unsupported on gfx942",
    ".amdhsa_memory_ordered": "directive requires gfx10+",
    ".amdhsa_forward_progress": "directive requires gfx10+",
    ".amdhsa_shared_vgpr_count": "directive requires gfx10 or gfx11",
    ".amdhsa_inst_pref_size": "directive requires gfx11+",
    ".amdhsa_round_robin_scheduling": "directive requires gfx12+",
    ".amdhsa_named_barrier_count": "directive requires gfx1250+",
}
KNOWN_DIRECTIVES = set(BIT_DIRECTIVES) | SIZE_DIRECTIVES | OTHER_DIRECTIVES


class DirectiveEntry(FrozenRecord):  # records, not dataclasses: ``gcnforge as`` start-up time
    __slots__ = _fields = ("name", "expr", "loc", "value_loc")
    name: str  # ".amdhsa_next_free_vgpr"
    expr: Node
    loc: SourceLoc  # of the directive name
    value_loc: SourceLoc  # of the value text

    def __init__(self, name: str, expr: Node, loc: SourceLoc, value_loc: SourceLoc) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "expr", expr)
        object.__setattr__(self, "loc", loc)
        object.__setattr__(self, "value_loc", value_loc)


class KernelBlock(Record):
    """One parsed (not yet evaluated) ``.amdhsa_kernel`` block."""

    _fields = ("name", "loc", "entries", "architected_flat_scratch")
    name: str
    loc: SourceLoc
    entries: list[DirectiveEntry]
    architected_flat_scratch: bool

    def __init__(self, name: str, loc: SourceLoc, entries: list[DirectiveEntry],
                 architected_flat_scratch: bool = True) -> None:
        self.name = name
        self.loc = loc
        self.entries = entries
        self.architected_flat_scratch = architected_flat_scratch

    def add(self, entry: DirectiveEntry) -> None:
        if FLAT_SCRATCH_ONLY.get(entry.name, not self.architected_flat_scratch) == self.architected_flat_scratch:
            raise Diagnostic("directive is not supported " + ("with" if self.architected_flat_scratch else "without")
                             + " architected flat scratch", entry.loc)
        if entry.name not in KNOWN_DIRECTIVES:
            if entry.name in UNSUPPORTED_ON_GFX942:
                raise Diagnostic(UNSUPPORTED_ON_GFX942[entry.name], entry.loc)
            raise Diagnostic(f"unknown .amdhsa_kernel directive '{entry.name}'", entry.loc)
        if any(e.name == entry.name for e in self.entries):
            raise Diagnostic(".amdhsa_ directives cannot be repeated", entry.loc)
        self.entries.append(entry)


def default_descriptor(target: TargetId) -> KernelDescriptor:
    """AMDGPU::MCKernelDescriptor::getDefaultAmdhsaKernelDescriptor for gfx9."""
    return KernelDescriptor().with_fields(
        float_denorm_mode_16_64=3, dx10_clamp=1, ieee_mode=1, system_sgpr_workgroup_id_x=1,
    )


def build_descriptor(block: KernelBlock, evaluate: Callable[[Node, SourceLoc], int], target: TargetId,
                     end_loc: SourceLoc | None = None) -> KernelDescriptor:
    """Evaluate a block into a descriptor (kernel_code_entry_byte_offset left 0: the linker sets it)."""
    end_loc = end_loc or block.loc
    values: dict[str, tuple[int, DirectiveEntry]] = {}
    for e in block.entries:
        v = evaluate(e.expr, e.value_loc)
        if v < 0:
            raise Diagnostic("value out of range", e.value_loc)
        values[e.name] = (v, e)
    kd, implied = _set_fields(default_descriptor(target), values)
    for required in (".amdhsa_next_free_vgpr", ".amdhsa_next_free_sgpr"):
        if required not in values:
            raise Diagnostic(f"{required} directive is required", end_loc)
    reserve_vcc = _flag(values, ".amdhsa_reserve_vcc", True)
    xnack_mask = _flag(values, ".amdhsa_reserve_xnack_mask", None)
    if xnack_mask is not None and xnack_mask != target.xnack_on_or_any:
        raise Diagnostic(".amdhsa_reserve_xnack_mask does not match target id",
                         values[".amdhsa_reserve_xnack_mask"][1].loc)
    count = implied
    if ".amdhsa_user_sgpr_count" in values:
        count, e = values[".amdhsa_user_sgpr_count"]
        if implied > count:
            raise Diagnostic("amdgpu_user_sgpr_count smaller than than implied by enabled user SGPRs", end_loc)
    if count >> 5:
        raise Diagnostic("too many user SGPRs enabled", end_loc)
    kd = _granulated_counts(kd.with_fields(user_sgpr_count=count), values, target, count, reserve_vcc)
    plen, poff = kd.user_sgpr_kernarg_preload_length, kd.user_sgpr_kernarg_preload_offset
    if plen and kd.kernarg_size and plen * 4 + poff * 4 > kd.kernarg_size:
        raise Diagnostic("Kernarg preload length + offset is larger than the kernarg segment size", end_loc)
    if target.gfx90a_family:
        if ".amdhsa_accum_offset" not in values:
            raise Diagnostic(".amdhsa_accum_offset directive is required", end_loc)
        acc, ae = values[".amdhsa_accum_offset"]
        top = _isa_target().arch_vgprs  # AGPRs start after at most v0..v255: every gfx90a-family target (isa.target)
        if acc < 4 or acc > top or acc & 3:
            raise Diagnostic(f"accum_offset should be in range [4..{top}] in increments of 4", end_loc)
        if acc > (max(1, values[".amdhsa_next_free_vgpr"][0]) + 3) // 4 * 4:
            raise Diagnostic("accum_offset exceeds total VGPR allocation", end_loc)
        kd = kd.with_fields(accum_offset_granules=acc // 4 - 1)
    elif ".amdhsa_accum_offset" in values:
        raise Diagnostic("directive requires gfx90a+", values[".amdhsa_accum_offset"][1].loc)
    return kd


def _out_of_range(e: DirectiveEntry) -> Diagnostic:
    return Diagnostic("value out of range", e.value_loc)


def _set_fields(kd: KernelDescriptor, values: dict) -> tuple[KernelDescriptor, int]:
    """The size and bit-field directives written into ``kd``; with the user SGPRs they imply."""
    implied = 0
    for name, (v, e) in values.items():
        if name in SIZE_DIRECTIVES:
            if v >= 1 << 32:
                raise _out_of_range(e)
            kd = kd.with_fields(**{name[len(".amdhsa_"):]: v})
        elif name in BIT_DIRECTIVES:
            field = BIT_DIRECTIVES[name]
            if field == "user_sgpr_kernarg_preload_length" and v > MAX_USER_SGPRS:
                raise _out_of_range(e)
            if field == "user_sgpr_kernarg_preload_offset" and v >= 1024:
                raise _out_of_range(e)
            if v >> FIELD_BY_NAME[field].width:
                raise _out_of_range(e)
            kd = kd.with_fields(**{field: v})
            if field in IMPLIED_USER_SGPRS and v:
                implied += IMPLIED_USER_SGPRS[field]
            if field == "user_sgpr_kernarg_preload_length":
                implied += v
    return kd, implied


def _flag(values: dict, name: str, default: bool | None) -> bool | None:
    """A 0/1 directive's value (``default`` when absent)."""
    if name not in values:
        return default
    v, e = values[name]
    if v > 1:
        raise _out_of_range(e)
    return bool(v)


def _granulated_counts(kd: KernelDescriptor, values: dict, target: TargetId, user_sgprs: int,
                       reserve_vcc: bool) -> KernelDescriptor:
    """The granulated VGPR and SGPR counts (AMDGPUAsmParser::calculateGPRBlocks)."""
    nvgpr, ve = values[".amdhsa_next_free_vgpr"]
    nsgpr, se = values[".amdhsa_next_free_sgpr"]
    if nsgpr > ADDRESSABLE_SGPRS:
        raise _out_of_range(se)
    if kd.user_sgpr_kernarg_preload_length:
        # Preloaded kernargs live in user SGPRs: llvm-mc 22 counts them as used (measured:
        # preload 2 + explicit user_sgpr_count 16 + next_free_sgpr 1 -> 16 + 6 SGPRs).
        nsgpr = max(nsgpr, user_sgprs)
    extra = 2 if reserve_vcc else 0  # AMDGPUBaseInfo.cpp getNumExtraSGPRs, gfx8/gfx9 branch
    if target.xnack_on_or_any:
        extra = 4
    if _flag(values, ".amdhsa_reserve_flat_scratch", True) or target.architected_flat_scratch:
        extra = 6
    vgpr_blocks = _blocks(nvgpr, VGPR_ENCODING_GRANULE)
    sgpr_blocks = _blocks(nsgpr + extra, SGPR_ENCODING_GRANULE)
    if vgpr_blocks >> 6:
        raise _out_of_range(ve)
    if sgpr_blocks >> 4:
        raise _out_of_range(se)
    return kd.with_fields(granulated_workitem_vgpr_count=vgpr_blocks, granulated_wavefront_sgpr_count=sgpr_blocks)


def _blocks(count: int, granule: int) -> int:
    return (max(1, count) + granule - 1) // granule - 1

"""``amdgcn-regalloc``: register allocation as an xDSL ``ModulePass``.

Pre: every ``amdgcn.kernel`` has its ABI ops lowered (``amdgcn-lower-abi``) and its calls
inlined (``amdgcn-inline``). Register values may be fresh (``!amdgcn.vgpr``), unallocated
storage (``!amdgcn.vgpr<?>``) or pinned (``!amdgcn.vgpr<5>``).

Post: every register value has an allocated type (``!amdgcn.vgpr<7>``,
``!amdgcn.sgpr<[4 : 6]>``); pins unchanged; copies coalesced where live ranges allow;
each kernel carries ``regalloc = {v, a, s}`` (registers used) and ``regalloc_bound``
(the most registers simultaneously live, a lower bound). Errors: running out of a file
lists what is live at the point of highest pressure; conflicting pins name both values.

Options: ``max_vgprs`` (256), ``max_agprs`` (256), ``max_sgprs`` (96), ``coalesce`` (true),
``split_ranges`` (true: when the live values fit but no colouring does, split storage
written in several places into SSA versions joined by moves, and where a range still finds
no aligned place copy the values live at its definition out of its way (compaction: one
parallel copy, emitted as moves in a safe order, ``v_swap_b32`` or a free register breaking
cycles); the kernel then records ``regalloc_split``, the versions made), ``spill_to_agprs`` (false: when VGPRs run out, spill values to AGPRs
and retry; the kernel then records ``regalloc_spilled``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, i32
from xdsl.passes import ModulePass

from gcnforge.dialect.structure_ops import FuncOp, KernelOp
from gcnforge.passes.regalloc.kernel import allocate_region_op


@dataclass(frozen=True)
class RegAllocPass(ModulePass):
    name = "amdgcn-regalloc"

    max_vgprs: int = 256
    max_agprs: int = 256
    # gfx942 has 102 addressable SGPRs; VCC is s[102:103]'s alias outside them, but LLVM
    # reserves the top for VCC / FLAT_SCRATCH / XNACK_MASK, leaving s0..s95 (AMDGPUUsage,
    # "SGPR blocks"); we keep the same 96 so LLVM's assembler accepts the counts.
    max_sgprs: int = 96
    coalesce: bool = True
    split_ranges: bool = True
    # opt-in: when VGPRs run out, move values to AGPRs (v_accvgpr_write after the
    # definition, v_accvgpr_read before each use) and allocate again
    spill_to_agprs: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gcnforge.dialect.value_ops import input_target
        from gcnforge.isa.target import target as target_facts

        # the options, within the module target's register files (gcnforge.isa.target; the
        # SGPR budget leaves VCC, FLAT_SCRATCH and XNACK_MASK out, as LLVM does)
        t = target_facts(input_target(op))
        limits = {"v": min(self.max_vgprs, t.arch_vgprs), "a": min(self.max_agprs, t.agprs if t.has_agprs else 0),
                  "s": min(self.max_sgprs, t.sgprs - t.extra_sgprs_flat_scratch)}
        for k in list(op.walk()):
            if isinstance(k, KernelOp | FuncOp):
                res = allocate_region_op(k, limits, self.coalesce, spill=self.spill_to_agprs,
                                         split_ranges=self.split_ranges)
                used = res.allocation.used
                bound = res.allocation.pressure
                k.attributes["regalloc"] = DictionaryAttr({f: IntegerAttr(used[f], i32) for f in "vas"})
                k.attributes["regalloc_bound"] = DictionaryAttr(
                    {f: IntegerAttr(bound[f].units, i32) for f in "vas"})
                if res.split:
                    k.attributes["regalloc_split"] = IntegerAttr(res.split, i32)
                if res.spilled:
                    k.attributes["regalloc_spilled"] = IntegerAttr(res.spilled, i32)

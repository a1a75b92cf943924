"""``amdgcn-regalloc``: register allocation as an xDSL ``ModulePass``.

Pre: every ``amdgcn.kernel`` has its ABI ops lowered (``amdgcn-lower-abi``) and its calls
inlined (``amdgcn-inline``). Register values may be fresh (``!amdgcn.vgpr``), unallocated
storage (``!amdgcn.vgpr<?>``) or pinned (``!amdgcn.vgpr<5>``).

Post: every register value has an allocated type (``!amdgcn.vgpr<7>``,
``!amdgcn.sgpr<[4 : 6]>``); pins unchanged; copies coalesced where live ranges allow;
each kernel carries ``regalloc = {v, a, s}`` (registers used) and ``regalloc_bound``
(the most registers simultaneously live, a lower bound). Errors: running out of a file
lists what is live at the point of highest pressure; conflicting pins name both values.

Options: ``max_vgprs``, ``max_agprs``, ``max_sgprs`` (default: the module target's files,
``gcnforge.isa.target``: 256 arch VGPRs and 256 AGPRs, and the SGPRs less VCC, FLAT_SCRATCH
and XNACK_MASK, 96 on gfx942/gfx950; a larger value is clamped to them), ``coalesce`` (true),
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

    # None: the target's own file (isa.target). SGPRs: LLVM reserves the top of the addressable
    # ones for VCC / FLAT_SCRATCH / XNACK_MASK (AMDGPUUsage, "SGPR blocks"), so the budget is
    # ``sgprs - extra_sgprs_flat_scratch`` and LLVM's assembler accepts the counts.
    max_vgprs: int | None = None
    max_agprs: int | None = None
    max_sgprs: int | None = None
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
        files = {"v": t.arch_vgprs, "a": t.agprs if t.has_agprs else 0, "s": t.sgprs - t.extra_sgprs_flat_scratch}
        asked = {"v": self.max_vgprs, "a": self.max_agprs, "s": self.max_sgprs}
        limits = {f: n if asked[f] is None else min(asked[f], n) for f, n in files.items()}
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

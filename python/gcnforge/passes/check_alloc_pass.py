"""``amdgcn-check-allocation``: the allocation checker (``regalloc.check``) on allocated IR.

Pre: registers allocated. Post: unchanged IR, or a ``Diagnostic`` listing every read of
an instruction's result whose registers were overwritten on some path before the read,
and every misaligned / unallocated / out-of-file register (``regalloc.verify_ssa`` builds
the checker's program from the IR alone).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.structure_ops import FuncOp, KernelOp
from gcnforge.passes.regalloc.verify_ssa import check_ssa


@dataclass(frozen=True)
class CheckAllocationPass(ModulePass):
    name = "amdgcn-check-allocation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for k in op.walk():
            if isinstance(k, KernelOp | FuncOp):
                problems = check_ssa(k)
                if problems:
                    raise Diagnostic(f"@{k.sym_name.data}: {len(problems)} allocation problem(s)", k,
                                     tuple(problems))

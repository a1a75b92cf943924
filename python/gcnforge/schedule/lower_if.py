"""Lower ``amdgcn.if`` (``gcnforge.dialect.cond_ops``) to blocks and branches; part of ``amdgcn-lower-loops``.

Pre: the if sits directly in a kernel's or function's block (enclosing loops and ifs are
lowered first: ``lower_loops`` walks outer ops before inner ones). Post: no ``amdgcn.if``.
The op becomes, in the style of the loop lowering (one storage register per merged value,
written in place by each branch: the register allocator gives it one register)::

    pre:   S_k = alloca <storage of result k>
           s_cmp_* lhs, rhs; s_cbranch_scc0 else            (fall through to then)
    then:  the then ops; S_k <- then's yielded value k; s_branch join
    else:  the else ops; S_k <- else's yielded value k; s_branch join  (no else block when
           it would be empty: s_cbranch_scc0 join)
    join:  the ops that followed the if, reading S_k for result k

``S_k <-``: the producing instruction writes S_k in place when it is in that branch and
nothing later in the branch reads S_k (always true: S_k is fresh), else a copy
(``lower_loops._copy``: up to two dwords; a wider merged value must be produced in the
branch). The wait and hazard passes see the diamond through ``passes.dataflow``'s merge.
"""

from __future__ import annotations

from xdsl.ir import Block

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.cond_ops import IfOp
from gcnforge.dialect.loop_ops import YieldOp
from gcnforge.dialect.structure_ops import AllocaOp, BranchOp, FuncOp, KernelOp
from gcnforge.dialect.types import UNALLOCATED, RegisterType, SGPRType


def lower_if(op: IfOp) -> None:
    from gcnforge.schedule.lower_loops import _copy_yields, _inst

    pre = op.parent_block()
    owner = pre.parent_op() if pre is not None else None
    if not isinstance(owner, KernelOp | FuncOp):
        raise Diagnostic("amdgcn-lower-loops: only an amdgcn.if directly in a kernel or function body is lowered "
                         "(expand enclosing scheduled loops first)", op)
    storages = []
    for r in op.res:
        t = r.type
        if not isinstance(t, RegisterType):
            raise Diagnostic(f"amdgcn-lower-loops: an amdgcn.if result of type {t} has no register storage", op)
        s = AllocaOp(t.with_state(UNALLOCATED))
        pre.insert_op_before(s, op)
        storages.append(s.result)
    region = pre.parent
    assert region is not None
    then_b, else_b, join = op.then_block, op.else_block, Block()
    while op.next_op is not None:
        o = op.next_op
        o.detach()
        join.add_op(o)
    op.then_region.detach_block(then_b)
    op.else_region.detach_block(else_b)
    region.insert_block_after(then_b, pre)
    region.insert_block_after(else_b, then_b)
    region.insert_block_after(join, else_b)
    for b in (then_b, else_b):
        y = b.last_op
        assert isinstance(y, YieldOp)
        vals = list(y.values)
        y.detach()
        y.erase()
        anchor = AllocaOp(SGPRType.value(1))  # a marker at the end
        b.add_op(anchor)
        _copy_yields(b, list(storages), vals, anchor)
        anchor.detach()
        anchor.erase()
        b.add_op(BranchOp("s_branch", join))
    for r, s in zip(op.res, storages, strict=True):
        r.replace_all_uses_with(s)
    pre.insert_op_before(_inst(op.compare, op.lhs, op.rhs), op)
    op.detach()
    op.erase()
    if len(else_b.ops) == 1:  # nothing to do on the else path: branch straight to the join
        region.detach_block(else_b)
        else_b.erase()
        else_b = join
    pre.add_op(BranchOp("s_cbranch_scc0", else_b, then_b))

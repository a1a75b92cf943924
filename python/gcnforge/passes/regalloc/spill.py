"""Opt-in spilling of VGPRs to AGPRs (gfx942's unified register file).

When the VGPRs run out, a value live at the point of highest VGPR pressure is moved to an
AGPR for the stretch where it is not needed: ``v_accvgpr_write_b32`` right after its
definition, ``v_accvgpr_read_b32`` into a fresh VGPR right before each use (spill
everywhere). The AGPR file is allocated like any other, so the spilled value costs one
AGPR across its whole range and one VGPR only around each use. Candidates are single-VGPR
values defined by one instruction into a fresh destination and read only by instructions;
among those live at the worst point the one with the longest range per use goes first.

Pre: the kernel failed allocation with "out of VGPRs". Post: one value spilled (or
``False`` when no candidate is left, and the caller reports the original error).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import AllocaOp
from gcnforge.dialect.types import AGPRType, RegisterType, VGPRType
from gcnforge.passes.regalloc.allocate import Interference
from gcnforge.isa.moves import move
from gcnforge.passes.regalloc.bind import Binding, inst_op
from gcnforge.passes.regalloc.liveness import Liveness


def _candidates(b: Binding) -> dict[int, SSAValue]:
    """group id -> the single SSA value that defines it, for spillable groups."""
    by_root: dict[int, list[SSAValue]] = {}
    for v, (node, _off, _w) in b.where.items():
        root, _ = node.find()
        by_root.setdefault(id(root), []).append(v)
    out: dict[int, SSAValue] = {}
    for rid, vals in by_root.items():
        results = [v for v in vals if isinstance(v.owner, InstOp)]
        if len(results) != 1 or len(vals) != 1:
            continue  # storage, ranges, pins and multiply-written values are not spilled
        v = results[0]
        t = v.type
        if not isinstance(t, RegisterType) or t.FILE != "v" or t.width != 1 or not t.is_value:
            continue
        if not v.uses or any(not isinstance(u.operation, InstOp) for u in v.uses):
            continue
        if v.owner.mnemonic == move("v", "a", 1):
            continue  # a reload: spilling it again would not shorten anything
        out[rid] = v
    return out


def spill_one(region_op: Operation) -> bool:
    b = Binding(region_op)
    prog, _ = b.program()
    prog.number()
    inter = Interference(prog, Liveness(prog))
    p = inter.pressure["v"]
    live = prog.groups_in(p.live)
    cands = _candidates(b)
    order = {id(op): i for i, op in enumerate(region_op.walk())}
    best, best_cost = None, None
    for g in live:
        root = next((n for v, (n, _o, _w) in b.where.items() if n.find()[0].group is g), None)
        if root is None:
            continue
        v = cands.get(id(root.find()[0]))
        if v is None:
            continue
        span = max(order.get(id(u.operation), 0) for u in v.uses) - order.get(id(v.owner), 0)
        cost = span / (1 + sum(1 for _ in v.uses))
        if best_cost is None or cost > best_cost:
            best, best_cost = v, cost
    if best is None:
        return False
    _spill(best)
    return True


def _spill(v: SSAValue) -> None:
    defop = v.owner
    block = defop.parent_block()
    ap = AllocaOp(AGPRType.value())
    w = inst_op(move("a", "v", 1), [ap.result, v])
    block.insert_ops_after([ap, w], defop)
    a = w.outs[0]
    for use in list(v.uses):
        user = use.operation
        if user is w:
            continue
        vp = AllocaOp(VGPRType.value())
        r = inst_op(move("v", "a", 1), [vp.result, a])
        user.parent_block().insert_ops_before([vp, r], user)
        ops = list(user.operands)
        ops[use.index] = r.outs[0]
        user.operands = ops

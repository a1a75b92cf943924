"""An SSA-level check of allocated IR, independent of the allocator's own model.

It reads only the final register types and the ops: a forward "must" data flow over the
kernel's blocks tracks, for every physical register, the SSA values whose data it holds on
every path (an instruction's result tags the registers of its destination; ``make_range``
and ``split_range`` only rename). At each read of an instruction's result (directly or
through ``split_range`` / ``make_range``) every register must still hold that value's data.
Reads of storage (``amdgcn.alloca`` values, written in place by the author) are the
author's business and are not checked.

Also checked: every register value is allocated, aligned and inside its file.

Post: a list of problems (empty when the allocation keeps every SSA value intact).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import BranchOp, MakeRangeOp, SplitRangeOp
from gcnforge.dialect.types import FILE_LIMIT, RegisterType


def _units(t: RegisterType) -> list[tuple[str, int]]:
    return [(t.FILE, t.begin.data + k) for k in range(t.width)]


def _expected(v: SSAValue, k: int):
    """The (value, unit) whose data unit ``k`` of ``v`` must hold, or None if unchecked."""
    for _ in range(64):  # split/make chains are short; bounded anyway
        owner = v.owner
        if isinstance(owner, InstOp):
            return (id(v), k)
        if isinstance(owner, SplitRangeOp):
            off = 0
            for p in owner.parts:
                if p is v:
                    break
                off += p.type.width
            v, k = owner.range, k + off
            continue
        if isinstance(owner, MakeRangeOp):
            for p in owner.parts:
                if k < p.type.width:
                    v = p
                    break
                k -= p.type.width
            continue
        return None
    return None


def check_ssa(region_op: Operation) -> list[str]:
    problems: list[str] = []
    blocks = list(region_op.regions[0].blocks)
    for op in region_op.walk():
        for v in (*op.results, *op.operands):
            t = v.type
            if isinstance(t, RegisterType):
                if not t.is_allocated:
                    problems.append(f"{op.name}: {t} is not allocated")
                elif t.begin.data % t.align.data or t.begin.data + t.width > FILE_LIMIT[t.FILE]:
                    problems.append(f"{op.name}: {t} misaligned or outside the file")
    if problems:
        return problems
    index = {id(b): i for i, b in enumerate(blocks)}
    ins: list[dict | None] = [None] * len(blocks)
    ins[0] = {}
    work = [0]
    final = False
    visits = 0
    while True:
        while work:
            visits += 1
            if visits > 100 * (len(blocks) + 1):
                return problems + ["SSA check did not converge (bug)"]
            b = work.pop()
            out = _walk(blocks[b], dict(ins[b]), None)
            term = blocks[b].last_op
            for s in (list(term.dests) if isinstance(term, BranchOp) else []):
                si = index[id(s)]
                old = ins[si]
                new = out if old is None else {r: old[r] & out[r] for r in old if r in out and old[r] & out[r]}
                if old is None or new != old:
                    ins[si] = new
                    work.append(si)
        if final:
            break
        final = True
        for i, b in enumerate(blocks):
            _walk(b, dict(ins[i] or {}), problems)
    return problems


def _walk(block, state: dict, problems: list[str] | None) -> dict:
    for op in block.ops:
        if not isinstance(op, InstOp) or op.info is None:
            continue
        inf = op.info
        offs = set(op.off_slots)
        present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs]
        reads = [(s, a) for s, a in zip(present, op.args) if not s.is_def or s.operand.role == "defuse"]
        if problems is not None:
            for s, a in reads:
                t = a.type
                if not isinstance(t, RegisterType):
                    continue
                for k, u in enumerate(_units(t)):
                    want = _expected(a, k)
                    if want is not None and want not in state.get(u, ()):
                        problems.append(f"'{op.mnemonic}' operand {s.name} reads {t.asm()} but "
                                        f"{u[0]}{u[1]} no longer holds that value")
                        break
        ri = 0
        for s, a in zip(present, op.args):
            if s.is_def:
                t = a.type
                if isinstance(t, RegisterType) and ri < len(op.outs):
                    r = op.outs[ri]
                    for k, u in enumerate(_units(t)):
                        state[u] = frozenset({(id(r), k)})
                ri += 1
    return state

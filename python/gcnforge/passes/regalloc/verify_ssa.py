"""Allocated IR checked by the one allocation checker (``regalloc.check``).

It reads only the final register types and the ops, nothing of the allocator: every
instruction result is a group at the registers its type names (a value the op writes);
each read of an instruction's result (directly, or through ``split_range`` /
``make_range``, which only rename) reads those groups' units; ``check`` then simulates
what each physical register holds over the blocks and reports every read whose register
no longer holds that value on some path. Reads of storage (``amdgcn.alloca`` values,
written in place by the author) are the author's business and are not checked; a
``lift.inst`` overwrites the registers it names with something unknown.

Also checked here: every register value is allocated, aligned and inside its file, and a
``split_range`` part / ``make_range`` range sits where its range says.

Post: a list of problems (empty when the allocation keeps every SSA value intact).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.dialect.structure_ops import BranchOp, MakeRangeOp, SplitRangeOp
from gcnforge.dialect.types import FILE_LIMIT, RegisterType
from gcnforge.passes.regalloc.check import check
from gcnforge.passes.regalloc.model import Block, Group, Op, Program, Ref


def _expected(v: SSAValue, k: int):
    """The (instruction result, unit) whose data unit ``k`` of ``v`` holds, or None (storage)."""
    for _ in range(64):  # split/make chains are short; bounded anyway
        owner = v.owner
        if isinstance(owner, InstOp):
            return v, k
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


def _types_problems(region_op: Operation) -> list[str]:
    problems = []
    for op in region_op.walk():
        for v in (*op.results, *op.operands):
            t = v.type
            if isinstance(t, RegisterType):
                if not t.is_allocated:
                    problems.append(f"{op.name}: {t} is not allocated")
                elif t.begin.data % t.align.data or t.begin.data + t.width > FILE_LIMIT[t.FILE]:
                    problems.append(f"{op.name}: {t} misaligned or outside the file")
    return problems


def program_of(region_op: Operation) -> tuple[Program, list[str]]:
    """The allocated kernel as a model program for ``check`` (groups placed), and problems
    found while building it (a range part not where its range is)."""
    problems: list[str] = []
    groups: dict[SSAValue, Group] = {}

    def group(v: SSAValue) -> Group:
        g = groups.get(v)
        if g is None:
            t = v.type
            name = f"%{v.name_hint}" if v.name_hint else f"the result of '{v.owner.mnemonic}'"
            g = groups[v] = Group(t.FILE, t.width, 1, None, name, v.owner.mnemonic)
            g.reg = t.begin.data
        return g

    def reads(op: InstOp, slot: str, a: SSAValue) -> list[Ref]:
        out = []
        t = a.type
        for k in range(t.width):
            want = _expected(a, k)
            if want is None:
                continue
            g = group(want[0])
            if (g.file, g.reg + want[1]) != (t.FILE, t.begin.data + k):
                problems.append(f"'{op.mnemonic}' operand {slot} reads {t.asm()}, a part of "
                                f"{want[0].type.asm()} that is not where its range places it")
                continue
            out.append(Ref(g, want[1], 1))
        return out

    region_blocks = list(region_op.regions[0].blocks)
    index = {id(b): i for i, b in enumerate(region_blocks)}
    blocks = []
    for b in region_blocks:
        ops = []
        for op in b.ops:
            if isinstance(op, RawInstOp):
                # writes something unknown into every register it names
                ops.append(Op(tuple(Ref(_unknown(r.type)) for r in op.regs if isinstance(r.type, RegisterType)
                                    and r.type.is_allocated), (), op.text.data))
                continue
            if not isinstance(op, InstOp) or op.info is None:
                continue
            inf = op.info
            offs = set(op.off_slots)
            present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs]
            uses, defs = [], []
            ri = 0
            for s, a in zip(present, op.args):
                if isinstance(a.type, RegisterType) and (not s.is_def or s.operand.role == "defuse"):
                    uses += reads(op, s.name, a)
                if s.is_def:
                    if ri < len(op.outs) and isinstance(a.type, RegisterType):
                        defs.append(Ref(group(op.outs[ri])))
                    ri += 1
            ops.append(Op(tuple(defs), tuple(uses), f"{op.mnemonic}"))
        term = b.last_op
        succs = [index[id(s)] for s in term.dests] if isinstance(term, BranchOp) else []
        blocks.append(Block(ops, succs))
    return Program(blocks), problems


def _unknown(t: RegisterType) -> Group:
    g = Group(t.FILE, t.width, 1, None, "a lift.inst's write", "lift.inst")
    g.reg = t.begin.data
    return g


def check_ssa(region_op: Operation) -> list[str]:
    problems = _types_problems(region_op)
    if problems:
        return problems
    prog, problems = program_of(region_op)
    return problems + check(prog, FILE_LIMIT)

"""The instruction-by-instruction placement (``pointwise``) done to the kernel: the last
resort of ``amdgcn-regalloc``, after colouring, splitting and compaction failed.

``pointwise`` leaves every operand of the model naming a version with one register, and
versions of one value sit in different registers at different instructions, which one SSA
value (one register type) cannot say. So the kernel is written back register by register:
every register operand of every instruction becomes an ``amdgcn.alloca`` of the registers
its model reference got (as allocated IR is anyway: destinations are allocas of the
register written), results take the types their destinations give them, and each parallel
copy becomes a run of per-dword moves tagged as one (``pcopy.ATTR``) that ``pcopy.sequence``
orders once registers are known (cycles: a free register or ``v_swap_b32``). Copies on an
edge into a block go before the predecessor's branch, or into a new block on a critical
edge (``s_branch`` to the old successor). ``make_range`` / ``split_range`` ops and storage
nothing names any more are erased.

Refused (the caller's diagnostic stands): a register operand the model does not name (an
instruction kept as text, an op of no instruction family, a register read by a structure
op), and vector moves in a kernel that writes EXEC (a move copies the active lanes only).

Pre: a bound kernel (``Binding``) whose model ``allocate_pointwise`` rewrote and the checker
passed. Post: allocated IR; the number of moves emitted.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Operation, SSAValue

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import AllocaOp, BranchOp, MakeRangeOp, SplitRangeOp
from gcnforge.dialect.types import REGISTER_TYPES, RegisterType
from gcnforge.isa.moves import move
from gcnforge.passes.regalloc import pcopy
from gcnforge.passes.regalloc.bind import Binding, inst_op
from gcnforge.passes.regalloc.model import FILES, Op, Program, Ref

KEY_BASE = 1 << 20  # pcopy keys of this pass's copies (compaction's count from 1)


def _allocatable(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, RegisterType) and t.FILE in FILES


def covered(b: Binding, prog: Program) -> bool:
    """Whether the model names every register operand in the kernel (so rewriting the
    operands it names leaves none behind)."""
    named: set[tuple[int, int]] = set()
    for blk in prog.blocks:
        for m in blk.ops:
            for ir, ai in _sites(m):
                named.add((id(ir), ai))
    for op in b.op.walk():
        if isinstance(op, (MakeRangeOp, SplitRangeOp, AllocaOp)) or op is b.op:
            continue
        for ai, v in enumerate(op.operands):
            if _allocatable(v) and b.ref_of(v) is not None and (id(op), ai) not in named:
                return False
    return True


def _sites(m: Op) -> list[tuple[Operation, int]]:
    """(IR op, operand index) of each of ``m``'s definitions, then of each use."""
    if m.origin is None:
        return []
    if isinstance(m.origin, tuple):  # a parallel copy: one move per definition / use
        return [(m.origin[i], a) for i, a in enumerate(m.def_args)] + \
            [(m.origin[i], a) for i, a in enumerate(m.use_args)]
    return [(m.origin, a) for a in m.def_args] + [(m.origin, a) for a in m.use_args]


def vector_moves(prog: Program, copies: list[Op]) -> bool:
    return any(r.group.file in "va" for c in copies for r in c.defs)


class _Writer:
    def __init__(self, b: Binding):
        self.b = b
        self.region = b.op.regions[0]
        self.entry = self.region.blocks[0]
        self.regs: dict[tuple[str, int, int], SSAValue] = {}
        self.keys = KEY_BASE

    def reg(self, file: str, begin: int, width: int) -> SSAValue:
        v = self.regs.get((file, begin, width))
        if v is None:
            align = 1  # the largest power of two up to the width that the first register is a multiple of
            while align * 2 <= width and begin % (align * 2) == 0:
                align *= 2
            a = AllocaOp(REGISTER_TYPES[file]._make(begin, width, align))
            self.entry.insert_op_before(a, self.entry.first_op)
            v = self.regs[(file, begin, width)] = a.result
        return v

    def at(self, r: Ref) -> SSAValue:
        g = r.group
        return self.reg(g.file, g.reg + r.offset, r.w)

    def rename(self, m: Op) -> None:
        sites = _sites(m)
        refs = [*m.defs, *m.uses]
        if len(sites) != len(refs):
            raise AssertionError("the model names every operand site (checked by covered)")
        changed: dict[int, Operation] = {}
        for (ir, ai), r in zip(sites, refs):
            args = list(ir.operands)
            args[ai] = self.at(r)
            ir.operands = args
            changed[id(ir)] = ir
        for ir in changed.values():
            if isinstance(ir, InstOp):
                types = ir.derive_result_types(ir.mnemonic, [a.type for a in ir.args], ir.off_slots)
                for res, t in zip(ir.outs, types):
                    res._type = t  # noqa: SLF001 - a result follows its destination's type

    def moves(self, m: Op, block: Block, before: Operation | None) -> list[InstOp]:
        """Per-dword moves of the parallel copy ``m``, tagged as one, before ``before``
        (None: at the end of ``block``)."""
        self.keys += 1
        out = []
        for d, s in zip(m.defs, m.uses):
            f = d.group.file
            for k in range(d.w):
                mv = inst_op(move(f, f, 1), [self.reg(f, d.group.reg + d.offset + k, 1),
                                             self.reg(f, s.group.reg + s.offset + k, 1)])
                mv.attributes[pcopy.ATTR] = IntegerAttr(self.keys, i64)
                if before is None:
                    block.add_op(mv)
                else:
                    block.insert_op_before(mv, before)
                out.append(mv)
        m.origin = tuple(out)  # pcopy.occupied finds the copy by its first move
        return out


def write(b: Binding, prog: Program, nblocks: int) -> int:
    """Write the placed model back into the kernel (module docstring); ``nblocks``: how many
    blocks the model had before placement added edge blocks. Returns the moves emitted."""
    w = _Writer(b)
    blocks = list(w.region.blocks)
    emitted = 0
    for bi, mb in enumerate(prog.blocks[:nblocks]):
        blk = blocks[bi]
        for k, m in enumerate(mb.ops):
            if m.origin is not None:
                w.rename(m)
                continue
            nxt = next((x for x in mb.ops[k + 1:] if x.origin is not None), None)
            if nxt is not None:
                anchor = nxt.origin[0] if isinstance(nxt.origin, tuple) else nxt.origin
            else:
                anchor = blk.last_op if isinstance(blk.last_op, BranchOp) else None
            emitted += len(w.moves(m, blk, anchor))
    for ei in range(nblocks, len(prog.blocks)):
        mb = prog.blocks[ei]
        (s,) = mb.succs
        p = next(i for i, x in enumerate(prog.blocks[:nblocks]) if ei in x.succs)
        e = Block()
        e.add_op(BranchOp("s_branch", blocks[s]))
        w.region.add_block(e)
        term = blocks[p].last_op
        term.successors = [e if d is blocks[s] else d for d in term.successors]
        for m in mb.ops:
            emitted += len(w.moves(m, e, e.last_op))
    _erase_dead(b.op)
    return emitted


def _erase_dead(region_op: Operation) -> None:
    """Erase ``make_range`` / ``split_range`` ops and unallocated storage nothing uses any
    more (bounded: each round erases at least one op)."""
    while True:
        dead = [op for op in region_op.walk()
                if (isinstance(op, (MakeRangeOp, SplitRangeOp))
                    or (isinstance(op, AllocaOp) and not op.result.type.is_allocated))
                and all(not r.uses for r in op.results)]
        if not dead:
            return
        for op in dead:
            op.detach()
            op.erase()

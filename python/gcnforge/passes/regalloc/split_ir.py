"""``split``'s renaming done to the dialect: versions become storage, copies become moves.

The model's ``split`` rewrote a ``Program`` built by ``bind.Binding``; this makes the same
change in the kernel: each version is a fresh unallocated ``amdgcn.alloca`` (storage that
its one definition, or its copies, write in place), every operand the model renamed reads
or writes its version, and each copy is a move (``bind.copy_op``) before the terminator of
its block or in a new block on a critical edge (``s_branch`` to the old successor).

Which groups may be split in the kernel (``eligible``): a move exists for the width, the
group is storage the kernel allocates (an ``amdgcn.alloca`` names it, for the value on
entry), and for VGPRs/AGPRs no instruction writes EXEC: a move copies only active lanes,
so a version written under a narrowed EXEC would lose the inactive lanes storage keeps.

After ``apply``, the caller binds the kernel again and allocates; ``drop_self_copies``
then erases the moves whose source and destination got the same registers.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.dialect.structure_ops import AllocaOp, BranchOp
from gcnforge.dialect.types import REGISTER_TYPES, RegisterType
from gcnforge.passes.regalloc.bind import COPY_MNEMONIC, Binding, copy_op
from gcnforge.passes.regalloc.liveness import Liveness
from gcnforge.passes.regalloc.model import Group, Program
from gcnforge.passes.regalloc.split import Split


def writes_exec(region_op: Operation) -> bool:
    from gcnforge.passes.machine import minst

    for op in region_op.walk():
        if isinstance(op, RawInstOp):
            return True
        if isinstance(op, InstOp):
            m = minst(op)
            if m is not None and {("x", "exec_lo"), ("x", "exec_hi")} & m.all_writes:
                return True
    return False


def anchors(b: Binding) -> dict[int, SSAValue]:
    """id(group) -> the ``amdgcn.alloca`` naming the whole group (its value on entry)."""
    out: dict[int, SSAValue] = {}
    for v, (node, off, width) in b.where.items():
        root, o = node.find()
        if isinstance(v.owner, AllocaOp) and root.group is not None and off + o == 0 and width == root.width:
            out.setdefault(id(root.group), v)
    return out


def eligible(b: Binding, prog: Program):
    vector_ok = not writes_exec(b.op)
    entry = Liveness(prog).entry_live()
    named = anchors(b)
    # an operand naming part of a group is a split_range / make_range part in the kernel:
    # ``apply`` renames whole operands only, so such groups keep their storage
    partial = {id(r.group) for blk in prog.blocks for op in blk.ops for r in (*op.defs, *op.uses)
               if r.offset != 0 or r.w != r.group.width}

    def ok(g: Group) -> bool:
        if (g.file, g.width) not in COPY_MNEMONIC or (g.file in "va" and not vector_ok) or id(g) in partial:
            return False
        on_entry = entry & (((1 << g.width) - 1) << g.first_unit)
        return id(g) in named or not on_entry

    return ok


def apply(b: Binding, edits: Split, storage: dict[int, SSAValue] | None = None) -> list[InstOp]:
    """Rename and insert the copies in the kernel; returns the moves inserted. ``storage``
    receives id(version) -> the ``amdgcn.alloca`` made for it."""
    region = b.op.regions[0]
    blocks = list(region.blocks)
    entry = blocks[0]
    named = anchors(b)
    storage = {} if storage is None else storage

    def value(g: Group) -> SSAValue | None:
        if id(g) not in edits.versions:
            return named.get(id(g))  # the original group: its value on entry
        v = storage.get(id(g))
        if v is None:
            a = AllocaOp(REGISTER_TYPES[g.file].unallocated(g.width, g.align))
            entry.insert_op_before(a, entry.first_op)
            v = storage[id(g)] = a.result
        return v

    touched: set[int] = set()
    for mop, kind, i in edits.renamed:
        op = mop.origin[i] if mop.parallel else mop.origin  # a parallel copy: one move per def/use
        g = (mop.defs if kind == "defs" else mop.uses)[i].group
        v = value(g)
        if v is None:
            continue  # read where nothing defined it: keep the operand as it was
        ai = (mop.def_args if kind == "defs" else mop.use_args)[i]
        args = list(op.operands)
        args[ai] = v
        op.operands = args
        touched.add(id(op))
        if kind == "defs":
            for r, t in zip(op.outs, op.derive_result_types(op.mnemonic, [a.type for a in op.args], op.off_slots)):
                r._type = t  # noqa: SLF001 - a result follows its destination's type
    moves: list[InstOp] = []
    edge_blocks: dict[int, Block] = {}
    for c in edits.copies:
        dst, src = value(c.op.defs[0].group), value(c.op.uses[0].group)
        assert dst is not None and src is not None, "split copies name versions or anchored groups"
        mv = copy_op(dst, src)
        moves.append(mv)
        if c.edge is None:
            blk = blocks[c.block]
            blk.insert_op_before(mv, blk.last_op)
            continue
        e = edge_blocks.get(c.block)
        if e is None:
            p, s = c.edge
            e = edge_blocks[c.block] = Block()
            e.add_op(BranchOp("s_branch", blocks[s]))
            region.add_block(e)
            term = blocks[p].last_op
            term.successors = [e if d is blocks[s] else d for d in term.successors]
        e.insert_op_before(mv, e.last_op)
    return moves


def drop_self_copies(moves: list[InstOp]) -> None:
    """Erase inserted moves whose source and destination are the same registers, and edge
    blocks left holding only their branch."""
    for mv in moves:
        d, s = mv.args[0].type, mv.args[1].type
        if (d.FILE, d.begin.data, d.width) == (s.FILE, s.begin.data, s.width):
            blk = mv.parent_block()
            mv.detach()
            mv.erase()
            term = blk.last_op
            if blk.first_op is term and isinstance(term, BranchOp) and blk.parent is not None \
                    and blk is not blk.parent.blocks[0] and len(term.successors) == 1:
                dest = term.successors[0]
                for use in list(blk.uses):
                    user = use.operation
                    user.successors = [dest if d is blk else d for d in user.successors]
                if not blk.uses:
                    blk.parent.detach_block(blk)
                    blk.erase()


def drop_identity_moves(region_op: Operation) -> None:
    """Erase plain register moves (``COPY_MNEMONIC``, no modifiers) whose destination and
    source got the same registers and whose result nothing reads: they do nothing. They are
    ``amdgcn-lower-loops``' copies into loop and ``amdgcn.if`` storage that the allocation
    coalesced with the copied value (e.g. the initial values a trip-count guard's else path
    merges)."""
    moves = set(COPY_MNEMONIC.values())
    for o in list(region_op.walk()):
        if not (isinstance(o, InstOp) and o.mnemonic in moves and not o.mods and len(o.args) == 2):
            continue
        d, s = o.args[0].type, o.args[1].type
        if not (isinstance(d, RegisterType) and isinstance(s, RegisterType) and d.is_allocated):
            continue
        if (d.FILE, d.begin.data, d.width) == (s.FILE, s.begin.data, s.width) and not any(r.uses for r in o.results):
            o.detach()
            o.erase()

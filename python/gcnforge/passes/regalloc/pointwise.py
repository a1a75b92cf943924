"""Allocation instruction by instruction, moving values with parallel copies where the ones
in place leave a new range no room: the allocator's last resort, and what makes its
promise (``allocate``) hold.

**The bound.** At an instruction, every group with a live, read or written unit is placed
as a whole range (``width`` registers at a multiple of ``align``, inside the file; a pin at
its pin), but only its units that matter there occupy registers: the ones live across it,
the ones it reads, the ones it writes (``packing``: a value read for the last time may
share registers with what is written, unless the instruction is ``early_clobber``). A
write that replaces every live unit of a group (a new value: nothing of the old one is
live after) is a separate item from the group's read, so the new value may sit elsewhere;
a write of part of a group whose other units stay live (a ``make_range`` part), a tied
operand, an early-clobber read of the group written, and a pinned group are one item.
On entry, the values live there and the preloaded ones pack the same way. *The bound fits*
when such a placement exists at every instruction and on entry; then ``allocate_pointwise``
allocates. It is also necessary for any allocation of the model (a range is contiguous and
aligned wherever it is read or written, and a register holds one value at a time), so the
allocator as a whole allocates exactly the programs where the bound fits, short of the
search budget (``packing.SEARCH_STEPS`` per search, two searches per instruction at most).

**The walk.** Blocks in reverse post-order; the state is where each live group sits (its
current *version*, a ``Group`` with one register). At each instruction the writes are first
placed around the values where they are; when they find no room, one placement of all its
items is searched (current registers first) and a parallel copy (``Op.parallel``) before
the instruction moves the live units of every value that changes place into a new version.
A block reached first from one predecessor takes its state; every other edge into it gets
a parallel copy to that state (at the end of the predecessor, or in a new block on a
critical edge). The first version of a group is the group itself; a copy writes a new
version, or an existing one where an edge joins it. Where the bound fits this never fails:
each instruction's placement exists by the bound whatever the state before it, and a
parallel copy takes any placement of a set of values to any other (cycles are broken when
the copy is emitted, ``pcopy``).

Pre: a numbered ``Program`` (not yet rewritten by ``split`` / ``compact``). Post: every
group has ``reg``; the program is rewritten in place (operands renamed to versions, copies
and edge blocks inserted); ``Unplaceable`` names the instruction where the bound fails.
"""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic
from gcnforge.passes.regalloc.compact import _runs  # the live units of a group as runs
from gcnforge.passes.regalloc.liveness import Liveness, _postorder
from gcnforge.passes.regalloc.model import FILES, Block, Group, Op, Program, Ref
from gcnforge.passes.regalloc.packing import Item, SearchBudget, search

State = dict[int, tuple[Group, int]]  # id(original group) -> (its version here, first register)


class Unplaceable(Diagnostic):
    """No placement of the items at one instruction (the bound does not fit there)."""


def _own(g: Group) -> int:
    return ((1 << g.width) - 1) << g.first_unit


def _rel(mask: int, g: Group) -> int:
    return (mask & _own(g)) >> g.first_unit


class _Walk:
    def __init__(self, program: Program, limits: dict[str, int]):
        program.number()
        self.p = program
        self.limits = limits
        self.live = Liveness(program)
        self.placed: set[int] = set()  # originals already used as a version
        self.regs: dict[int, tuple[Group, int]] = {}  # id(version) -> (version, register)
        self.copies = 0
        self.origs = {id(g): g for g in program.groups}

    def version(self, g: Group, reg: int) -> Group:
        """A new version of ``g`` at ``reg`` (``g`` itself the first time; a pin: always)."""
        if g.pin is not None or id(g) not in self.placed:
            self.placed.add(id(g))
            v = g
        else:
            self.copies += 1
            v = Group(g.file, g.width, g.align, None, f"{g.name}.{self.copies}", g.origin, g.loc)
        self.regs[id(v)] = (v, reg)
        return v

    def place(self, items: list[Item], early_clobber: bool, where: Op | str) -> list[int]:
        """Registers for ``items`` file by file (``packing.search``), or ``Unplaceable``."""
        out = [0] * len(items)
        for f in FILES:
            idx = [k for k, it in enumerate(items) if it.group.file == f]
            if not idx:
                continue
            sub = [items[k] for k in idx]
            try:
                got = search(sub, self.limits.get(f, 0), early_clobber)
            except SearchBudget as e:
                raise _unplaceable(sub, f, self.limits.get(f, 0), where, f"the search gave up after {e} steps")
            if got is None:
                raise _unplaceable(sub, f, self.limits.get(f, 0), where)
            for k, b in zip(idx, got):
                out[k] = b
        return out

    def entry_state(self) -> State:
        live = self.live.entry_live()
        for r in self.p.entry_defs:
            live |= r.mask()
        gs = self.p.groups_in(live)
        regs = self.place([Item(g, t=_rel(live, g)) for g in gs], False, "entry")
        return {id(g): (self.version(g, b), b) for g, b in zip(gs, regs)}

    def fresh_state(self, live: int, where: str) -> State:
        """A state for a block no placed predecessor reaches (unreachable code)."""
        gs = self.p.groups_in(live)
        regs = self.place([Item(g, t=_rel(live, g)) for g in gs], False, where)
        return {id(g): (self.version(g, b), b) for g, b in zip(gs, regs)}

    def run(self) -> None:
        p = self.p
        n = len(p.blocks)
        if n == 0:
            return
        entry: list[State | None] = [None] * n
        entry[0] = self.entry_state()
        succs = [list(b.succs) for b in p.blocks]  # before edge blocks are added
        for b in reversed(_postorder(p)):
            st = entry[b]
            if st is None:
                st = entry[b] = self.fresh_state(self.live.live_in[b], f"block {b}")
            st = dict(st)
            ops = list(p.blocks[b].ops)
            points = {i: (d, u, a) for i, d, u, a in self.live.op_points(b)}
            for i, op in enumerate(ops):
                self.step(b, op, *points[i], st)
            for s in succs[b]:
                want = {k: v for k, v in st.items() if self.live.live_in[s] & _own(self.origs[k])}
                if entry[s] is None:
                    entry[s] = want
                else:
                    self.join(b, s, st, entry[s], len(succs[b]) > 1)

    def step(self, b: int, op: Op, d: int, u: int, after: int, st: State) -> None:
        """Place one instruction: its writes around the values in place, else a parallel copy
        first; rename its operands to versions; update ``st`` to what is live after it."""
        items, fresh = self.items(op, d, u, after, st)
        fixed = [Item(it.group, it.t, it.u, it.d, it.at, it.at) for it in items]
        try:
            regs = self.place(fixed, op.early_clobber, op)
        except Unplaceable:
            regs = self.place(items, op.early_clobber, op)
            self.move(b, op, items, regs, (after & ~d) | u, st)
        uses = tuple(Ref(st[id(r.group)][0], r.offset, r.width) if id(r.group) in st else r for r in op.uses)
        tied = tuple(Ref(st[id(r.group)][0], r.offset, r.width) if id(r.group) in st else r for r in op.tied)
        cs = op.copy_src
        if cs is not None and id(cs.group) in st:
            op.copy_src = Ref(st[id(cs.group)][0], cs.offset, cs.width)
        made: dict[int, Group] = {}
        for it, reg in zip(items, regs):
            if it.d and (id(it.group) in fresh or id(it.group) not in st):
                made[id(it.group)] = self.version(it.group, reg)
        defs = []
        for r in op.defs:
            v = made.get(id(r.group)) or st[id(r.group)][0]
            defs.append(Ref(v, r.offset, r.width))
        op.uses, op.tied, op.defs = uses, tied, tuple(defs)
        for g in self.p.groups_in(d | u | after):
            if not after & _own(g):
                st.pop(id(g), None)
            elif id(g) in made:
                v = made[id(g)]
                st[id(g)] = (v, self.regs[id(v)][1])

    def items(self, op: Op, d: int, u: int, after: int, st: State) -> tuple[list[Item], set[int]]:
        """The items at ``op`` (``packing``) and the groups it writes anew (read and written
        as two items)."""
        items: list[Item] = []
        fresh: set[int] = set()
        tied = {id(r.group) for r in op.tied}
        used = {id(r.group) for r in op.uses}
        across = after & ~d
        for g in self.p.groups_in(d | u | after):
            gt, gu, gd = _rel(across, g), _rel(u, g), _rel(d, g)
            at = st[id(g)][1] if id(g) in st else None
            new = gd and not gt and g.pin is None and id(g) not in tied \
                and not (op.early_clobber and id(g) in used)
            if new:
                fresh.add(id(g))
                if gu:
                    items.append(Item(g, u=gu, at=at))
                items.append(Item(g, d=gd))
            else:
                items.append(Item(g, gt, gu, gd, at))
        return items, fresh

    def move(self, b: int, op: Op, items: list[Item], regs: list[int], before: int, st: State) -> None:
        """A parallel copy before ``op``: every value whose item moves gets a new version
        there (its units live before ``op``)."""
        moves = []
        for it, reg in zip(items, regs):
            if it.at is None or reg == it.at or (it.t | it.u) == 0:
                continue
            g = it.group
            old = st[id(g)][0]
            v = self.version(g, reg)
            moves.append((old, v, _rel(before, g)))
            st[id(g)] = (v, reg)
        if moves:
            blk = self.p.blocks[b].ops
            blk.insert(blk.index(op), _parallel(moves, f"parallel copy (room for {op.text or 'an op'})", op.loc))

    def join(self, b: int, s: int, st: State, want: State, edge: bool) -> None:
        """Copies making ``b``'s values sit where ``s`` expects them (``want``)."""
        moves = []
        for k, (v, reg) in want.items():
            cur = st.get(k)
            if cur is None or cur[0] is v:
                continue
            moves.append((cur[0], v, _rel(self.live.live_in[s], self.origs[k])))
        if not moves:
            return
        cp = _parallel(moves, f"parallel copy (edge to block {s})", None)
        p = self.p
        if not edge:
            p.blocks[b].ops.append(cp)
            return
        e = len(p.blocks)
        p.blocks.append(Block([cp], [s], f"{p.blocks[b].name}.{p.blocks[s].name}"))
        p.blocks[b].succs = [e if x == s else x for x in p.blocks[b].succs]


def _parallel(moves: list[tuple[Group, Group, int]], text: str, loc: object | None) -> Op:
    defs: list[Ref] = []
    uses: list[Ref] = []
    for old, new, mask in moves:
        for o, w in _runs(mask, old.width):
            defs.append(Ref(new, o, w))
            uses.append(Ref(old, o, w))
    return Op(tuple(defs), tuple(uses), text, loc=loc, parallel=True)


def _unplaceable(items: list[Item], f: str, limit: int, where: Op | str, why: str = "") -> Unplaceable:
    kind = {"v": "VGPR", "a": "AGPR", "s": "SGPR"}[f]
    if isinstance(where, str):
        at = "on entry" if where == "entry" else f"on entry to {where}"
        what = "the values live there"
    else:
        at = f"at '{where.text}'"
        what = "the values live across it, read and written"
    msg = (f"out of {kind}s: {at}, {what} cannot be placed in {limit} {kind}s with every range whole, "
           f"aligned and inside the file, and pins fixed" + (f" ({why})" if why else ""))
    notes = tuple(f"{'pinned' if it.group.pin is not None else 'live'}: {it.group.describe()}" for it in items[:64])
    return Unplaceable(msg, None if isinstance(where, str) else where.loc, notes)


def allocate_pointwise(program: Program, limits: dict[str, int]) -> int:
    """Allocate ``program`` instruction by instruction (module docstring); returns the number
    of versions made. Raises ``Unplaceable`` where the bound does not fit."""
    w = _Walk(program, limits)
    w.run()
    used = {id(r.group) for blk in program.blocks for op in blk.ops for r in (*op.defs, *op.uses)}
    used |= {id(r.group) for r in program.entry_defs}
    for v, reg in w.regs.values():
        v.reg = reg
    program.groups = [v for v, _ in w.regs.values() if id(v) in used]
    program.number()
    return w.copies


class Snapshot:
    """A program as it was (blocks, operands, groups, placement hints), to start over from
    after ``split`` / ``compact`` rewrote it."""

    def __init__(self, program: Program):
        self.program = program
        self.blocks = [(b, list(b.ops), list(b.succs)) for b in program.blocks]
        self.ops = [(op, op.defs, op.uses, op.tied, op.copy_src) for b in program.blocks for op in b.ops]
        self.groups = [(g, g.want) for g in program.groups]
        self.entry_defs = program.entry_defs

    def restore(self) -> None:
        p = self.program
        p.blocks = [b for b, _ops, _succs in self.blocks]
        for b, ops, succs in self.blocks:
            b.ops, b.succs = list(ops), list(succs)
        for op, defs, uses, tied, cs in self.ops:
            op.defs, op.uses, op.tied, op.copy_src = defs, uses, tied, cs
        for g, want in self.groups:
            g.want, g.reg = want, None
        p.groups = [g for g, _want in self.groups]
        p.entry_defs = self.entry_defs
        p.number()

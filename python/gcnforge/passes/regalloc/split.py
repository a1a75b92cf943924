"""Live-range splitting: values redefined in place become SSA versions joined by copies.

Greedy colouring in first-definition order uses exactly as many registers as are live at
once when every value has one definition that dominates its uses: the interference graph
of a program in SSA form is chordal and that order is a perfect elimination order (Hack,
Grund and Goos, "Register Allocation for Programs in SSA-Form", CC 2006). A group written
in several places (a loop-carried accumulator, storage written on both sides of a branch)
breaks this: ``Gen(random.Random(5077)).program("nested")`` has 8 VGPRs live at most but
needs 9 colours.

``split`` renames such groups: every definition writes a fresh version; at each join block
where the group is live on entry a *phi* version is written by a copy at the end of each
predecessor (in a new block on the edge when that predecessor has other successors, so
the copy runs on that edge only). Copies kill their source and define the phi, so no point
has more registers live than before. The copy may share its source's registers
(``Op.copy_src``), so a phi and its inputs usually coincide and the copy is a no-op.

Eligible groups: not pinned, every write names the whole group (reads may name a part), never read and
written through one operand (``Op.tied``), and whatever ``eligible`` adds (the dialect
binding: a copy instruction for the width, EXEC never written for vector registers).

Pre: a numbered ``Program``. Post: the program rewritten in place (groups renumbered);
``Split`` lists what changed, for the binding to do the same to the IR.
"""

from __future__ import annotations

from collections.abc import Callable
from gcnforge.record import Record

from gcnforge.passes.regalloc.liveness import Liveness, _postorder
from gcnforge.passes.regalloc.model import Block, Group, Op, Program, Ref


class Copy(Record):
    __slots__ = _fields = ("op", "block", "edge")

    def __init__(self, op: Op, block: int, edge: tuple[int, int] | None = None) -> None:
        self.op = op  # the copy (one def: the phi version, one use: the incoming version)
        self.block = block  # the block it ends (before the terminator)
        self.edge = edge  # (pred, succ) when ``block`` is a new edge block


class Split(Record):
    """What splitting did (records, not dataclasses: no code generation at import, issue 15)."""

    __slots__ = _fields = ("versions", "renamed", "copies")

    def __init__(self, versions: dict[int, Group] | None = None, renamed: list[tuple[Op, str, int]] | None = None,
                 copies: list[Copy] | None = None) -> None:
        self.versions = {} if versions is None else versions  # id(version) -> original group
        # every reference to a split group (op, "defs"/"uses", index); it now names a version
        # (or the original group: the value on entry)
        self.renamed = [] if renamed is None else renamed
        self.copies = [] if copies is None else copies

    def original(self, g: Group) -> Group:
        return self.versions.get(id(g), g)


def _own(g: Group) -> int:
    return ((1 << g.width) - 1) << g.first_unit


def _written(op: Op, g: Group) -> int:
    m = 0
    for r in op.defs:
        if r.group is g:
            m |= r.mask()
    return m


def part_runs(program: Program, live: Liveness) -> tuple[dict[int, int], set[int]]:
    """Ranges built part by part count as one definition: ``id(op) -> run id`` for each op
    of a *run* (consecutive ops of one block that write disjoint parts of one group covering
    it, none reading it), and the groups written in part anywhere else (not SSA-able). A
    part written while the group's other units are dead (nothing reads them again) is a
    run of its own: a new version whose other units hold nothing."""
    run_of: dict[int, int] = {}
    bad: set[int] = set()
    for bi, b in enumerate(program.blocks):
        ops = b.ops
        after = {i: a for i, _d, _u, a in live.op_points(bi)}
        i = 0
        while i < len(ops):
            parts = [r for r in ops[i].defs if r.offset != 0 or r.w != r.group.width]
            if not parts:
                i += 1
                continue
            g = parts[0].group
            full = (1 << g.width) - 1
            covered, j = 0, i
            while j < len(ops) and covered != full:
                mine = [r for r in ops[j].defs if r.group is g]
                if not mine or any(r.group is g for r in ops[j].uses) or any(r.group is g for r in ops[j].tied):
                    break
                m = 0
                for r in mine:
                    m |= ((1 << r.w) - 1) << r.offset
                if m & covered:
                    break
                covered |= m
                j += 1
            if covered == full and all(len({id(r.group) for r in ops[k].defs
                                            if r.offset != 0 or r.w != r.group.width}) == 1 for k in range(i, j)):
                for k in range(i, j):
                    run_of[id(ops[k])] = id(ops[i])
                i = j
                continue
            # (it may read the group: reads are renamed before the write makes a version;
            # a parallel copy writes parts of several groups, each such a run)
            if all(not after[i] & _own(h) & ~_written(ops[i], h) and not any(r.group is h for r in ops[i].tied)
                   for h in {id(r.group): r.group for r in parts}.values()) \
                    and (ops[i].parallel or len({id(r.group) for r in parts}) == 1):
                run_of[id(ops[i])] = id(ops[i])
                i += 1
                continue
            for r in parts:
                bad.add(id(r.group))
            i += 1
    return run_of, bad


def _candidates(program: Program, live: Liveness, eligible: Callable[[Group], bool],
                run_of: dict[int, int], bad: set[int]) -> list[Group]:
    ndefs: dict[int, int] = {}
    bad = set(bad)
    for b in program.blocks:
        for op in b.ops:
            for r in op.tied:
                bad.add(id(r.group))
            if id(op) in run_of and run_of[id(op)] != id(op):
                continue  # a later part of a run: the run counted once, at its first op
            for r in op.defs:
                ndefs[id(r.group)] = ndefs.get(id(r.group), 0) + 1
    entry = live.entry_live()
    for r in program.entry_defs:
        entry |= r.mask()
    out = []
    for g in program.groups:
        n = ndefs.get(id(g), 0) + (1 if entry & (((1 << g.width) - 1) << g.first_unit) else 0)
        if n > 1 and g.pin is None and id(g) not in bad and eligible(g):
            out.append(g)
    return out


def _phi_copies(blocks: list[Block], phis: dict[tuple[int, int], Group], preds: list[list[int]],
                out: list, cand: dict[int, Group], res: Split) -> None:
    """Each phi's copy at the end of its predecessors, on a new edge block when the
    predecessor has other successors."""
    edge_blocks: dict[tuple[int, int], int] = {}
    for (s, gid), phi in phis.items():
        for p in preds[s]:
            src = (out[p] or {}).get(gid, cand[gid])
            cp = Op((Ref(phi),), (Ref(src),), f"copy {phi.name}", copy_src=Ref(src))
            if len(blocks[p].succs) == 1:
                blocks[p].ops.append(cp)
                res.copies.append(Copy(cp, p))
                continue
            e = edge_blocks.get((p, s))
            if e is None:
                e = len(blocks)
                blocks.append(Block([], [s], f"{blocks[p].name}.{blocks[s].name}"))
                blocks[p].succs = [e if x == s else x for x in blocks[p].succs]
                edge_blocks[(p, s)] = e
            blocks[e].ops.append(cp)
            res.copies.append(Copy(cp, e, (p, s)))


def split(program: Program, eligible: Callable[[Group], bool] = lambda g: True) -> Split | None:
    """Put every eligible multiply-defined group in SSA form; None when there is none."""
    program.number()
    live = Liveness(program)
    run_of, partial = part_runs(program, live)
    groups = _candidates(program, live, eligible, run_of, partial)
    if not groups:
        return None
    blocks = program.blocks
    n = len(blocks)
    preds: list[list[int]] = [[] for _ in range(n)]
    for bi, b in enumerate(blocks):
        for s in b.succs:
            if bi not in preds[s]:
                preds[s].append(bi)
    if preds[0]:
        return None  # the entry block is a loop header: its phis would need an entry edge
    # a join's copy moves the whole group: one only partly live there would read dead units
    # (more registers live than before), so such a group keeps its storage
    joins = [b for b in range(n) if len(preds[b]) > 1]

    def partly_live(g: Group) -> bool:
        own = ((1 << g.width) - 1) << g.first_unit
        return any(live.live_in[b] & own not in (0, own) for b in joins)

    groups = [g for g in groups if not partly_live(g)]
    if not groups:
        return None
    res = Split()
    cand = {id(g): g for g in groups}

    def version(g: Group, what: str) -> Group:
        v = Group(g.file, g.width, g.align, None, f"{g.name}.{what}", g.origin, g.loc)
        res.versions[id(v)] = g
        return v

    def live_in(b: int, g: Group) -> bool:
        return bool(live.live_in[b] & (((1 << g.width) - 1) << g.first_unit))

    phis: dict[tuple[int, int], Group] = {}
    for b in range(n):
        if len(preds[b]) > 1:
            for g in groups:
                if live_in(b, g):
                    phis[(b, id(g))] = version(g, f"phi{b}")
    order = list(reversed(_postorder(program)))
    out: list[dict[int, Group] | None] = [None] * n
    for b in order:
        if b == 0:
            cur = {id(g): g for g in groups}  # the original group is the value on entry
        elif len(preds[b]) == 1 and out[preds[b][0]] is not None:
            cur = dict(out[preds[b][0]])  # type: ignore[arg-type]
        else:
            cur = {id(g): phis.get((b, id(g)), g) for g in groups}
        for op in blocks[b].ops:
            uses = list(op.uses)
            for i, r in enumerate(uses):
                if id(r.group) in cand:
                    if cur[id(r.group)] is not r.group:
                        uses[i] = Ref(cur[id(r.group)], r.offset, r.width)
                    res.renamed.append((op, "uses", i))
            cs = op.copy_src
            if cs is not None and id(cs.group) in cand:
                op.copy_src = Ref(cur[id(cs.group)], cs.offset, cs.width)
            defs = list(op.defs)
            made: dict[int, Group] = {}  # one version per group an op writes (parts included)
            for i, r in enumerate(defs):
                if id(r.group) in cand:
                    v = made.get(id(r.group))
                    if v is None:
                        if run_of.get(id(op), id(op)) != id(op):
                            v = cur[id(r.group)]  # a later part of a run: the run's version
                        else:
                            v = version(r.group, f"d{b}")
                        made[id(r.group)] = v
                    cur[id(r.group)] = v
                    defs[i] = Ref(v, r.offset, r.width)
                    res.renamed.append((op, "defs", i))
            op.uses, op.defs = tuple(uses), tuple(defs)
        out[b] = cur
    _phi_copies(blocks, phis, preds, out, cand, res)
    used = {id(r.group) for b in blocks for op in b.ops for r in (*op.defs, *op.uses)}
    used |= {id(r.group) for r in program.entry_defs}
    program.groups = [g for g in program.groups if id(g) in used]
    program.number()
    return res

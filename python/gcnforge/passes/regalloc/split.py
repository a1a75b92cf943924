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

Eligible groups: not pinned, every reference names the whole group, never read and
written through one operand (``Op.tied``), and whatever ``eligible`` adds (the dialect
binding: a copy instruction for the width, EXEC never written for vector registers).

Pre: a numbered ``Program``. Post: the program rewritten in place (groups renumbered);
``Split`` lists what changed, for the binding to do the same to the IR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gcnforge.passes.regalloc.liveness import Liveness, _postorder
from gcnforge.passes.regalloc.model import Block, Group, Op, Program, Ref


@dataclass
class Copy:
    op: Op  # the copy (one def: the phi version, one use: the incoming version)
    block: int  # the block it ends (before the terminator)
    edge: tuple[int, int] | None = None  # (pred, succ) when ``block`` is a new edge block


@dataclass
class Split:
    versions: dict[int, Group] = field(default_factory=dict)  # id(version) -> original group
    # every reference to a split group (op, "defs"/"uses", index); it now names a version
    # (or the original group: the value on entry)
    renamed: list[tuple[Op, str, int]] = field(default_factory=list)
    copies: list[Copy] = field(default_factory=list)

    def original(self, g: Group) -> Group:
        return self.versions.get(id(g), g)


def _candidates(program: Program, live: Liveness, eligible: Callable[[Group], bool]) -> list[Group]:
    ndefs: dict[int, int] = {}
    bad: set[int] = set()
    for b in program.blocks:
        for op in b.ops:
            for r in op.tied:
                bad.add(id(r.group))
            for r in (*op.defs, *op.uses):
                if r.offset != 0 or r.w != r.group.width:
                    bad.add(id(r.group))
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


def split(program: Program, eligible: Callable[[Group], bool] = lambda g: True) -> Split | None:
    """Put every eligible multiply-defined group in SSA form; None when there is none."""
    program.number()
    live = Liveness(program)
    groups = _candidates(program, live, eligible)
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
                        uses[i] = Ref(cur[id(r.group)])
                    res.renamed.append((op, "uses", i))
            cs = op.copy_src
            if cs is not None and id(cs.group) in cand:
                op.copy_src = Ref(cur[id(cs.group)], cs.offset, cs.width)
            defs = list(op.defs)
            for i, r in enumerate(defs):
                if id(r.group) in cand:
                    v = version(r.group, f"d{b}")
                    cur[id(r.group)] = v
                    defs[i] = Ref(v)
                    res.renamed.append((op, "defs", i))
            op.uses, op.defs = tuple(uses), tuple(defs)
        out[b] = cur
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
    used = {id(r.group) for b in blocks for op in b.ops for r in (*op.defs, *op.uses)}
    used |= {id(r.group) for r in program.entry_defs}
    program.groups = [g for g in program.groups if id(g) in used]
    program.number()
    return res

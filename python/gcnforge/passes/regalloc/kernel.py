"""Register allocation of one ``amdgcn.kernel`` (or ``amdgcn.func``): bind, coalesce
copies, allocate (splitting live ranges when the live values fit but no colouring does,
then compacting around ranges that find no aligned place, last placing instruction by
instruction with parallel copies: ``pointwise`` / ``pointwise_ir``), check, write back,
and turn the parallel copies into ordered moves (``pcopy``).

Pre: ABI ops lowered and calls inlined. Post: every register-typed value is allocated;
coalesced moves are erased; ``Result`` reports registers used and the lower bound.
"""

from __future__ import annotations

from gcnforge.record import Record

from xdsl.ir import Operation, SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.structure_ops import AllocaOp
from gcnforge.passes.regalloc import pcopy, pointwise_ir, split_ir
from gcnforge.passes.regalloc.allocate import COMPACT_ROUNDS, Allocation, Interference, _assign, _result, allocate, fits
from gcnforge.passes.regalloc.bind import Binding, write_back
from gcnforge.passes.regalloc.check import check
from gcnforge.passes.regalloc.compact import compact, first_def
from gcnforge.passes.regalloc.liveness import Liveness
from gcnforge.passes.regalloc.model import Program, Ref
from gcnforge.passes.regalloc.pointwise import Unplaceable, allocate_pointwise
from gcnforge.passes.regalloc.spill import spill_one
from gcnforge.passes.regalloc.split import split


class Result(Record):
    __slots__ = _fields = ("allocation", "coalesced", "spilled", "split")

    def __init__(self, allocation: Allocation, coalesced: int, spilled: int = 0, split: int = 0) -> None:
        self.allocation = allocation
        self.coalesced = coalesced
        self.spilled = spilled
        self.split = split  # versions made by live-range splitting (0: not needed)


def _coalesce(b: Binding) -> int:
    """Join each copy's fresh destination with its source, and each MFMA's fresh result
    with its accumulator (SrcC), when they never hold different values at once (no
    interference once the copy / MFMA itself is discounted). Copies joined are erased."""
    if not b.copies and not b.accumulates:
        return 0
    prog, by_op = b.program()
    for copy in b.copies:
        m = by_op.get(id(copy))
        if m is not None and m.uses and not m.parallel:
            m.copy_src = m.uses[0]
    for op, _res, c in b.accumulates:
        m = by_op.get(id(op))
        r = b.ref_of(c)
        if m is not None and r is not None and r[0].group is not None:
            m.copy_src = Ref(r[0].group, r[1], r[2])
    prog.number()
    inter = Interference(prog, Liveness(prog))
    done = 0
    pairs = [(c, c.outs[0], c.args[1], True) for c in b.copies] + [(o, r, c, False) for o, r, c in b.accumulates]
    for op, dst, src, erase in pairs:
        d, s = b.ref_of(dst), b.ref_of(src)
        if d is None or s is None:
            continue
        droot, doff, dw = d
        sroot, soff, sw = s
        if droot is sroot or dw != sw:
            continue
        if doff == 0 and droot.width == dw and droot.pin is None:
            # the destination is a whole value: it moves into the source's registers
            if droot.align > 1 and (soff % droot.align or sroot.align < droot.align):
                continue
            inner, outer, off = droot, sroot, soff
        elif soff == 0 and sroot.width == sw and sroot.pin is None and erase:
            # the destination is part of a range (a make_range part): the source moves
            # into the range at that offset instead
            if sroot.align > 1 and doff % sroot.align:
                continue
            inner, outer, off = sroot, droot, doff
        else:
            continue
        gi, hi = inter.index.get(id(inner.group)), inter.index.get(id(outer.group))
        if gi is None or hi is None or hi in inter.adj[gi]:
            continue
        inner.parent, inner.offset = outer, off
        outer.align = max(outer.align, inner.align)
        for n in inter.adj[gi]:
            inter.adj[n].add(hi)
            inter.adj[hi].add(n)
        inter.adj[gi] = inter.adj[hi]
        if erase:
            dst.replace_all_uses_with(src)
            alloca = op.args[0].owner
            op.detach()
            op.erase()
            if isinstance(alloca, AllocaOp) and not alloca.result.uses:
                alloca.detach()
                alloca.erase()
        done += 1
    return done


def allocate_region_op(op: Operation, limits: dict[str, int], coalesce: bool = True, verify: bool = True,
                       spill: bool = False, split_ranges: bool = True) -> Result:
    """Allocate; with ``spill``, running out of VGPRs spills values to AGPRs and retries;
    with ``split_ranges``, live values that fit but cannot be coloured are split."""
    if not spill:
        return _allocate_once(op, limits, coalesce, verify, split_ranges)
    spilled = 0
    bound = sum(1 for _ in op.walk())  # each round spills one value: at most one per op
    while True:
        try:
            res = _allocate_once(op, limits, coalesce, verify, split_ranges)
            res.spilled = spilled
            return res
        except Diagnostic as d:
            if not d.message.startswith("out of VGPRs") or spilled >= bound or not spill_one(op):
                raise
            spilled += 1


def _bind(op: Operation, coalesce: bool, copy_parts: bool = False) -> tuple[Binding, Program, int, Liveness]:
    b = Binding(op, copy_parts)
    # the binding keeps the joins; erased copies simply no longer appear in the IR
    n = _coalesce(b) if coalesce else 0
    prog, _ = b.program()
    # registers read before any write hold what the hardware preloaded (ABI pins) or
    # what the author left there: they are defined on entry
    prog.number()
    live = Liveness(prog)
    prog.entry_defs = tuple(Ref(g) for g in prog.groups_in(live.entry_live()))
    # entry_defs change no op and add no group, so this liveness stays valid for allocate
    return b, prog, n, live


def _allocate_once(op: Operation, limits: dict[str, int], coalesce: bool, verify: bool,
                   split_ranges: bool = True) -> Result:
    b, prog, n, live = _bind(op, coalesce)
    moves: list = []
    nsplit = 0
    try:
        alloc = allocate(prog, limits, live, split_ranges=False, exact_units=split_ranges)
    except Diagnostic as d:
        # the live values fit but no colouring does: split storage written in several
        # places into SSA versions with moves at joins (split.py), in the kernel too
        if not split_ranges or not d.message.startswith("out of") \
                or not fits(Interference(prog, live), limits):
            raise
        err, alloc = d, None
        edits = split(prog, split_ir.eligible(b, prog))
        if edits is not None:
            moves = split_ir.apply(b, edits)
            nsplit = len(edits.versions)
            b, prog, m, live = _bind(op, coalesce)
            n += m
            try:
                alloc = allocate(prog, limits, live, split_ranges=False, exact_units=True)
            except Diagnostic as e:
                err = e
        if alloc is None:
            # a range still finds no aligned place: copy the values around its definition
            # out of its way (compaction), in the kernel too
            try:
                b, prog, alloc, more, nv, n2 = _compact(op, limits, coalesce, b, prog, err)
            except Diagnostic as e:
                if not e.message.startswith("out of"):
                    raise
                # the last resort: placement instruction by instruction (pointwise_ir)
                return _pointwise(op, limits, coalesce, verify, e, n)
            moves += more
            nsplit += nv
            n += n2
    if verify:
        problems = check(prog, limits)
        if problems:
            raise Diagnostic("register allocation failed its own check (a gcnforge bug): " + problems[0],
                             op, tuple(problems[1:8]))
    occ = pcopy.occupied(prog)
    write_back(b)
    split_ir.drop_self_copies(moves)
    if occ:
        pcopy.sequence(op, occ, limits, alloc.used)
        _drop_unused_storage(op)
    split_ir.drop_identity_moves(op)
    return Result(alloc, n, split=nsplit)


def _pointwise(op: Operation, limits: dict[str, int], coalesce: bool, verify: bool, err: Diagnostic,
               coalesced: int) -> Result:
    """Bind the kernel again, place its model instruction by instruction (``pointwise``) and
    write it back register by register (``pointwise_ir``); ``err`` (with a note saying
    where no placement exists, when that is why) when it cannot. Where no placement exists
    it tries once more with every ``make_range`` part copied into its range (a part read
    again after the range need not keep the range's alignment; not where a vector move
    would lose inactive lanes), the binding coalescing nothing."""
    b, prog, m, _live = _bind(op, coalesce)
    try:
        return _place(op, limits, verify, err, b, prog, coalesced + m)
    except Unplaceable as u:
        if split_ir.writes_exec(op):
            raise _noted(err, u) from None
        first = u
    b, prog, m, _live = _bind(op, False, copy_parts=True)
    try:
        return _place(op, limits, verify, err, b, prog, coalesced + m)
    except Unplaceable:
        raise _noted(err, first) from None


def _noted(err: Diagnostic, u: Unplaceable) -> Diagnostic:
    err.notes = (f"no placement exists {u.message.split(': ', 1)[1]}",) + err.notes
    return err


def _place(op: Operation, limits: dict[str, int], verify: bool, err: Diagnostic, b: Binding, prog: Program,
           coalesced: int) -> Result:
    if not pointwise_ir.covered(b, prog):
        raise err
    nblocks = len(prog.blocks)
    before = {id(x) for blk in prog.blocks for x in blk.ops}
    versions = allocate_pointwise(prog, limits)
    copies = [x for blk in prog.blocks for x in blk.ops if id(x) not in before]
    if pointwise_ir.vector_moves(prog, copies) and split_ir.writes_exec(op):
        raise err  # a vector move copies the active lanes only
    if verify:
        problems = check(prog, limits)
        if problems:
            raise Diagnostic("register allocation failed its own check (a gcnforge bug): " + problems[0],
                             op, tuple(problems[1:8]))
    alloc = _result(prog, Interference(prog, Liveness(prog)))
    pointwise_ir.write(b, prog, nblocks)
    occ = pcopy.occupied(prog)
    pcopy.sequence(op, occ, limits, alloc.used)
    _drop_unused_storage(op)
    return Result(alloc, coalesced, split=versions)


def _drop_unused_storage(op: Operation) -> None:
    """Erase storage nothing reads or writes any more (versions a later compaction round
    renamed away): it names no register."""
    for a in list(op.regions[0].blocks[0].ops):
        if isinstance(a, AllocaOp) and not a.result.uses and not a.result.type.is_allocated:
            a.detach()
            a.erase()


def _compact(op: Operation, limits: dict[str, int], coalesce: bool, b: Binding, prog: Program,
             err: Diagnostic):
    """Rounds of ``compact`` on the model, each mirrored in the kernel: the parallel copy as
    tagged moves (``pcopy.mirror``), the versions ``split`` makes as storage
    (``split_ir.apply``); then bind again, carry the placement hints over to the new groups
    (through the IR values naming them) and place the compacted ranges first. Bounded: at
    most ``COMPACT_ROUNDS`` rounds per defining op. -> (binding, program, allocation,
    moves inserted by splitting, versions made, copies coalesced)."""
    done: dict[int, int] = {}
    hints: list[tuple[SSAValue, int]] = []
    first: list[SSAValue] = []
    moves: list = []
    nsplit = coalesced = 0
    orig = err  # what failed first is what the author can act on (later errors name versions)
    while True:
        g = getattr(err, "group", None)
        where = first_def(prog, g) if g is not None else None
        if where is None:
            raise orig
        at = prog.blocks[where[0]].ops[where[1]]
        anchor = at.origin[0] if isinstance(at.origin, tuple) else at.origin
        gv = pcopy.whole_values(b).get(id(g))
        if anchor is None or gv is None:
            raise orig
        rounds = done.get(id(anchor), 0)
        if rounds >= COMPACT_ROUNDS:
            raise orig
        done[id(anchor)] = rounds + 1
        eligible = split_ir.eligible(b, prog)
        copies = compact(prog, g, limits.get(g.file, 0), getattr(err, "placed", {}), rounds, eligible)
        if not copies:
            raise orig
        copy = copies[0]
        ir_moves = pcopy.mirror(b, copy, anchor, sum(done.values()))  # one key per round
        if ir_moves is None:
            raise orig
        edits = split(prog, eligible)
        named = split_ir.anchors(b)
        if edits is None or not all(id(r.group) in edits.versions for r in copy.defs) \
                or not all(id(r.group) in edits.versions or id(r.group) in named for r in copy.uses):
            pcopy.erase(ir_moves)  # the kernel is left as it was
            raise orig
        storage: dict[int, SSAValue] = {}
        moves += split_ir.apply(b, edits, storage)
        nsplit += len(edits.versions)
        if g.want is not None:
            hints.append((gv, g.want))
        hints += [(storage[id(r.group)], w) for r, w in zip(copy.defs, copy.wants)
                  if w is not None and id(r.group) in storage]
        first.append(gv)
        b, prog, m, live = _bind(op, coalesce)
        coalesced += m
        for v, w in hints:
            r = b.ref_of(v)
            if r is not None and r[0].group is not None and r[1] == 0 and r[2] == r[0].width:
                r[0].group.want = w
        placed_first = []
        for v in first:
            r = b.ref_of(v)
            if r is not None and r[0].group is not None:
                placed_first.append(r[0].group)
        inter = Interference(prog, live)
        if not fits(inter, limits):
            raise orig  # copies never add pressure; kept as a guard
        try:
            alloc = _assign(prog, limits, inter, True, tuple(placed_first))
            return b, prog, alloc, moves, nsplit, coalesced
        except Diagnostic as e:
            err = e

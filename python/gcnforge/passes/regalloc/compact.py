"""Compaction: copies that move values out of the way of a range that finds no aligned place.

Splitting into SSA versions (``split``) makes single registers colourable with as many
registers as are live at once; ranges can still fail: at the definition of an aligned
range ``g`` enough registers may be free, but scattered (``v1`` and ``v3`` free, ``g`` needs
an even pair). SSA-based allocators answer with copies at the definition point that
re-pack the live values (Hack, Grund and Goos, "Register Allocation for Programs in
SSA-Form", CC 2006: copies split live ranges there). ``compact`` inserts copies ``h = h``
right before the op that first writes ``g`` (only the units of ``h`` live there; its dead
units hold nothing anyone reads). The caller then runs ``split``, which makes every copy a
new SSA version of ``h`` (with copies at joins), and allocates again; each copy and ``g``
carry a placement hint (``Op.wants`` / ``Group.want``) that the greedy placement takes when
the register is free:

* round 0 (``_repack``): every value there is copied, values the op reads for the last
  time first (they may take g's registers: g is written after they are read), and a fresh
  packing around the pins (``_layout``) gives the hints;
* round 1 (``_displace``): only the values the failed attempt placed inside the best window
  for g move, each to registers nobody holds before or after the op.

The copies at one point form one *parallel* copy (``Op.parallel``: every source is read
before any destination is written), so two values may exchange registers; the dialect
binding turns it into moves in a safe order once registers are known (``pcopy.sequence``:
cycles broken by a free register or ``v_swap_b32``).

Never moved: pinned groups (a pin is the author's choice) and what ``eligible`` refuses.

Pre: a numbered ``Program``; ``g`` failed placement. Post: the copies inserted (returned),
or ``[]`` when nothing is movable at that point.
"""

from __future__ import annotations

from collections.abc import Callable

from gcnforge.passes.regalloc.liveness import Liveness, _postorder
from gcnforge.passes.regalloc.model import Group, Op, Program, Ref


def _own(g: Group) -> int:
    return ((1 << g.width) - 1) << g.first_unit


def first_def(program: Program, g: Group) -> tuple[int, int] | None:
    """(block, op index) of the first op writing ``g`` along reverse post-order."""
    for b in reversed(_postorder(program)):
        for i, op in enumerate(program.blocks[b].ops):
            if any(r.group is g for r in op.defs):
                return b, i
    return None


def compact(program: Program, g: Group, limit: int, placed: dict[int, int], round_: int = 0,
            eligible: Callable[[Group], bool] = lambda h: True) -> list[Op]:
    """Insert copies at ``g``'s first definition: in round 0 every value there is re-packed
    (``_repack``); in a later round only the values blocking the best window for ``g``,
    as the failed attempt placed them (``placed``), move to registers nobody holds."""
    program.number()
    if first_def(program, g) is None:
        return []
    return (_repack if round_ == 0 else _displace)(program, g, limit, placed, eligible, Liveness(program))


def _point(program: Program, g: Group, live: Liveness) -> tuple[int, int, int, int, int]:
    """(block, op index, live before, live after, written) at g's first definition."""
    where = first_def(program, g)
    assert where is not None
    b, i = where
    for j, d, u, a in live.op_points(b):
        if j == i:
            return b, i, (a & ~d) | u, a, d
    raise AssertionError("op not found")


def _repack(program: Program, g: Group, limit: int, placed: dict[int, int], eligible, live: Liveness) -> list[Op]:
    """Copy every value live at the op (the ones it reads last first): they take the
    places a fresh packing gives them (``_layout``; values read last may share g's)."""
    b, i, before, after, defs = _point(program, g, live)
    op = program.blocks[b].ops[i]
    moving = []
    for h in program.groups_in(before & ~defs):
        if h is g or h.file != g.file or h.pin is not None:
            continue
        if any(r.group is h for r in op.uses) and op.early_clobber:
            continue
        if eligible(h):
            moving.append(h)
    dying = {id(h) for h in moving if not after & _own(h)}
    moving.sort(key=lambda h: (id(h) not in dying, -h.align, -h.width))
    want = _layout(program, g, moving, dying, before, after, limit)
    g.want = want.get(id(g))
    return _insert(program, b, i, _copy(moving, before, g, op, [want.get(id(h)) for h in moving]))


def _insert(program: Program, b: int, i: int, copy: Op) -> list[Op]:
    program.blocks[b].ops.insert(i, copy)
    program.number()
    return [copy]


def _copy(moving: list[Group], before: int, g: Group, op: Op, wants: list[int | None]) -> Op:
    """One parallel copy ``h = h`` for every moved ``h``, over the units of h live before
    ``op`` (its dead units hold nothing)."""
    defs: list[Ref] = []
    hints: list[int | None] = []
    for h, want in zip(moving, wants):
        for o, w in _runs((before & _own(h)) >> h.first_unit, h.width):
            defs.append(Ref(h, o, w))
            hints.append(want)
    names = ", ".join(h.name for h in moving)
    return Op(tuple(defs), tuple(defs), f"parallel copy {names} (compaction for {g.name})", loc=op.loc,
              parallel=True, wants=tuple(hints))


def _displace(program: Program, g: Group, limit: int, placed: dict[int, int], eligible, live: Liveness) -> list[Op]:
    program.number()
    b, i, before, after, defs = _point(program, g, live)
    op = program.blocks[b].ops[i]
    # registers held right before the op (everything read or live across) and right after
    # (live across and the op's other results), by the groups whose place is known
    held_before = held_after = 0
    movable: list[tuple[Group, int]] = []
    for h in program.groups_in(before | (after & ~_own(g))):
        if h is g or h.file != g.file:
            continue
        at = h.pin if h.pin is not None else placed.get(id(h))
        if at is None:
            continue
        mb = (before & _own(h)) >> h.first_unit
        ma = (after & _own(h)) >> h.first_unit
        held_before |= mb << at
        held_after |= ma << at
        # a value live across the op may move (the op's reads are renamed to the copy);
        # one the op reads for the last time may stay: g may take its registers
        if ma and mb == ma and h.pin is None and not (op.early_clobber and any(r.group is h for r in op.uses)) \
                and eligible(h):
            movable.append((h, at))
    fixed_after = held_after
    for h, at in movable:
        fixed_after &= ~(((after & _own(h)) >> h.first_unit) << at)
    best = None
    for base in range(0, limit - g.width + 1, g.align):
        win = ((1 << g.width) - 1) << base
        if fixed_after & win:
            continue
        moving = [(h, at) for h, at in movable if (((after & _own(h)) >> h.first_unit) << at) & win]
        targets = _targets(moving, held_before | held_after | win, limit)
        if targets is not None and (best is None or len(moving) < len(best[1])):
            best = (base, moving, targets)
    if best is None or not best[1]:
        return []
    base, moving, targets = best
    g.want = base
    return _insert(program, b, i, _copy([h for h, _at in moving], before, g, op, targets))


def _targets(moving: list[tuple[Group, int]], occupied: int, limit: int) -> list[int] | None:
    """Registers for the moved values that nothing holds before or after the op and that
    lie outside g's window (first fit, most aligned first), or None. A target is never a
    register some value still holds, so the copies, one after another, need no order."""
    out: dict[int, int] = {}
    for h, _at in sorted(moving, key=lambda x: (-x[0].align, -x[0].width)):
        for t in range(0, limit - h.width + 1, h.align):
            m = ((1 << h.width) - 1) << t
            if not occupied & m:
                out[id(h)] = t
                occupied |= m
                break
        else:
            return None
    return [out[id(h)] for h, _at in moving]


def _runs(mask: int, width: int) -> list[tuple[int, int]]:
    """Maximal runs of set bits in ``mask`` as (offset, width): the live units of a group
    (only those are copied; its dead units hold nothing anyone reads)."""
    out, k = [], 0
    while k < width:
        if mask >> k & 1:
            j = k
            while j < width and mask >> j & 1:
                j += 1
            out.append((k, j - k))
            k = j
        else:
            k += 1
    return out



def _layout(program: Program, g: Group, moving: list[Group], dying: set[int], before: int, after: int,
            limit: int) -> dict[int, int]:
    """Where g and the moved values would sit right at g's definition: after it, g and the
    values live across packed most-aligned first around the pinned registers (first fit);
    before it, the values read last in what is left (they may share g's registers). A hint
    for placement (``Group.want``), not a constraint: the allocator checks it."""
    def fit(w: int, a: int, occ: int) -> int | None:
        for b in range(0, limit - w + 1, a):
            if not occ >> b & ((1 << w) - 1):
                return b
        return None

    fixed_after = fixed_before = 0
    for h in program.groups_in(before | after):
        if h.file == g.file and h.pin is not None:
            fixed_after |= ((after & _own(h)) >> h.first_unit) << h.pin
            fixed_before |= ((before & _own(h)) >> h.first_unit) << h.pin
    out: dict[int, int] = {}
    occ = fixed_after
    for h in sorted([g] + [h for h in moving if id(h) not in dying], key=lambda h: (-h.align, -h.width)):
        b = fit(h.width, h.align, occ)
        if b is None:
            return {}
        out[id(h)] = b
        occ |= ((1 << h.width) - 1) << b
    occ = fixed_before
    for h in moving:
        if id(h) not in dying:
            occ |= ((1 << h.width) - 1) << out[id(h)]
    for h in sorted((h for h in moving if id(h) in dying), key=lambda h: (-h.align, -h.width)):
        b = fit(h.width, h.align, occ)
        if b is None:
            return {}
        out[id(h)] = b
        occ |= ((1 << h.width) - 1) << b
    return out

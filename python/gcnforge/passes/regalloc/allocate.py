"""Interference and register assignment over a ``model.Program``.

Two groups interfere when one is written while a unit of the other is live (Chaitin's
definition: values that are only read together may share nothing either, but that is
implied because each was written while the other was live, or both on entry). Registers
are then chosen greedily, groups in order of their first definition along a reverse
post-order walk: each takes the lowest base that is a multiple of its alignment and
overlaps no interfering group already placed. For single registers in SSA form this order
is optimal (interval-like graphs colour greedily in dominance order), so the result equals
the maximum number of simultaneously live registers; ranges and alignment can cost more.

When no colouring fits, ``allocate`` splits live ranges, compacts around ranges and, last,
places instruction by instruction with parallel copies (``pointwise``); it promises an
allocation wherever the alignment-aware bound fits (``allocate``'s docstring).

Pinned groups keep their register. Two pinned groups that interfere and overlap are an
error naming both; running out of registers is an error listing what is live at the point
of highest pressure, with the ops defining it.

Pre: a numbered ``Program`` (``Program.number()``). Post: every group has ``reg`` set;
``Allocation`` reports registers used and the pressure lower bound per file.
"""

from __future__ import annotations

from gcnforge.record import Record

from gcnforge.diagnostics import Diagnostic
from gcnforge.passes.regalloc.liveness import Liveness, _postorder
from gcnforge.passes.regalloc.model import FILES, Group, Program
from gcnforge.passes.regalloc.compact import compact
from gcnforge.passes.regalloc.pointwise import Snapshot, Unplaceable, allocate_pointwise
from gcnforge.passes.regalloc.split import split

FILE_NAMES = {"v": "VGPR", "a": "AGPR", "s": "SGPR"}
EXTRA_ORDERS = 6
# compaction rounds per range: a second round copies the values again from where the first
# put them (sequential copies cannot exchange two values in one round)
COMPACT_ROUNDS = 2


class Pressure(Record):
    """The worst point of one file's pressure (records, not dataclasses: no code generation
    at import, issue 15)."""

    __slots__ = _fields = ("units", "where", "block", "index", "live")

    def __init__(self, units: int = 0, where: object | None = None, block: int = 0, index: int = -1,
                 live: int = 0) -> None:
        self.units = units  # registers live at the worst point
        self.where = where  # the op (or "entry") there
        self.block = block
        self.index = index  # op index in block, -1 = block entry
        self.live = live  # unit mask live there


class Allocation(Record):
    __slots__ = _fields = ("used", "pressure")

    def __init__(self, used: dict[str, int] | None = None, pressure: dict[str, Pressure] | None = None) -> None:
        self.used = {} if used is None else used  # registers used (highest index + 1) per file
        self.pressure = {} if pressure is None else pressure  # max simultaneously live per file


class Interference:
    def __init__(self, program: Program, live: Liveness):
        self.program = program
        self.live = live
        idx = {id(g): i for i, g in enumerate(program.groups)}
        self.index = idx
        self.adj: list[set[int]] = [set() for _ in program.groups]
        self._same_file: dict[int, list[Group]] | None = None
        fmask = {f: program.file_mask(f) for f in FILES}
        self.pressure = {f: Pressure() for f in FILES}

        def note(mask: int, where: object, block: int, index: int) -> None:
            for f in FILES:
                n = (mask & fmask[f]).bit_count()
                p = self.pressure[f]
                if n > p.units:
                    self.pressure[f] = Pressure(n, where, block, index, mask & fmask[f])

        def add(gi: int, mask: int) -> None:
            for h in program.groups_in(mask):
                hi = idx[id(h)]
                if hi != gi:
                    self.adj[gi].add(hi)
                    self.adj[hi].add(gi)

        own = [self._own(g) for g in program.groups]
        adj = self.adj
        for b in range(len(program.blocks)):
            ops = program.blocks[b].ops
            # the live groups are kept as a set alongside the unit mask, updated per op
            # (big-int scans per definition would dominate on long kernels)
            live_set = {idx[id(g)] for g in program.groups_in(live.live_out[b])}
            # live.op_points inlined: the units live before an op are the next op's
            # "after", computed once (each step is a big-int operation over all units)
            ms = live.masks[b]
            after = live.live_out[b]
            for i in range(len(ms) - 1, -1, -1):
                d, u = ms[i]
                op = ops[i]
                clobber = after | d | (u if op.early_clobber else 0)
                note(clobber, op, b, i)
                dset = {idx[id(r.group)] for r in op.defs}
                uset = {idx[id(r.group)] for r in op.uses}
                around = live_set | dset
                if op.early_clobber:
                    around |= uset
                # a copy's destination may share its source's registers (same value)
                cs = op.copy_src
                spare = idx[id(cs.group)] if cs is not None and cs.offset == 0 and cs.w == cs.group.width else -1
                for gi in dset:
                    # one set union for gi's side; the other side edge by edge
                    others = around - {gi, spare}
                    adj[gi] |= others
                    for hi in others:
                        adj[hi].add(gi)
                new = (after & ~d) | u
                for gi in dset:
                    if not new & own[gi]:
                        live_set.discard(gi)
                live_set |= uset
                after = new
        entry = live.entry_live()
        for r in program.entry_defs:
            entry |= r.mask()
        note(entry, "entry", 0, -1)
        gs = program.groups_in(entry)
        for g in gs:
            add(idx[id(g)], entry & ~self._own(g))

    @staticmethod
    def _own(g: Group) -> int:
        return ((1 << g.width) - 1) << g.first_unit

    def neighbours(self, g: Group) -> list[Group]:
        return [self.program.groups[i] for i in self.adj[self.index[id(g)]]]

    def same_file_neighbours(self) -> dict[int, list[Group]]:
        """id(g) -> g's neighbours in its own register file (built once, shared by every
        placement order)."""
        if self._same_file is None:
            groups = self.program.groups
            self._same_file = {
                id(g): [h for h in (groups[i] for i in self.adj[gi]) if h.file == g.file]
                for gi, g in enumerate(groups)
            }
        return self._same_file


def _order(program: Program) -> list[Group]:
    """Groups by first definition along reverse post-order (then anything unseen)."""
    seen: set[int] = set()
    out: list[Group] = []
    for r in program.entry_defs:
        if id(r.group) not in seen:
            seen.add(id(r.group))
            out.append(r.group)
    for b in reversed(_postorder(program)):
        for op in program.blocks[b].ops:
            for r in (*op.defs, *op.uses):
                if id(r.group) not in seen:
                    seen.add(id(r.group))
                    out.append(r.group)
    for g in program.groups:
        if id(g) not in seen:
            out.append(g)
    return out


def _overlap(a: Group, b: Group) -> bool:
    return a.reg is not None and b.reg is not None and a.reg < b.reg + b.width and b.reg < a.reg + a.width


def _where(p: Pressure) -> str:
    if p.where == "entry" or p.where is None:
        return "on kernel entry"
    text = getattr(p.where, "text", "") or str(p.where)
    return f"at '{text}'"


def _loc(p: Pressure) -> object | None:
    return getattr(p.where, "loc", None) if p.where not in (None, "entry") else None


def allocate(program: Program, limits: dict[str, int], live: Liveness | None = None,
             split_ranges: bool = True, exact_units: bool | None = None) -> Allocation:
    """Assign ``reg`` to every group of ``program`` within ``limits`` (registers per file).

    When no order places every group although the registers live at once fit: with
    ``exact_units`` (default: ``split_ranges``) groups are placed again against the units
    actually live together; with ``split_ranges`` the multiply-defined groups are then put
    in SSA form with copies at joins (``split``: values redefined in place can make the
    interference graph need more colours than registers are live) and allocated again;
    a range that still finds no aligned place gets the values around its definition
    copied out of its way (``compact_and_assign``); if that fails too, the program is
    allocated instruction by instruction from scratch, moving values with parallel copies
    where the ones in place leave no room (``pointwise``).

    The promise (with ``split_ranges``): allocation fails only where *the bound* does not
    fit -- at some instruction, the values live across it, the ones it reads and the ones
    it writes cannot be placed, each range whole at an aligned first register inside the
    file (only its units live, read or written there occupy registers), pins at their
    pins; a value read for the last time may share registers with what is written, unless
    the instruction is early-clobber (``pointwise`` states it exactly). No allocation of
    the program exists then, so the allocator allocates exactly the programs where the
    bound fits. Bounded: each placement search tries at most ``packing.SEARCH_STEPS``
    registers, two searches per instruction; compaction at most ``COMPACT_ROUNDS`` rounds
    per group."""
    exact = split_ranges if exact_units is None else exact_units
    program.number()
    snap = Snapshot(program) if split_ranges else None
    live = live or Liveness(program)
    inter = Interference(program, live)
    try:
        return _assign(program, limits, inter, exact)
    except Diagnostic as e:
        if not split_ranges or not fits(inter, limits):
            raise
        first = err = e
    try:
        if split(program) is not None:
            try:
                return _assign(program, limits, Interference(program, Liveness(program)), exact)
            except Diagnostic as e:
                err = e
        return compact_and_assign(program, limits, err, exact)
    except Diagnostic:
        if not first.message.startswith("out of"):
            raise
    # the last resort: start over from the program as it was, instruction by instruction
    snap.restore()
    try:
        allocate_pointwise(program, limits)
    except Unplaceable as u:
        snap.restore()
        first.notes = (f"no placement exists {u.message.split(': ', 1)[1]}",) + first.notes
        raise first from None
    return _result(program, Interference(program, Liveness(program)))


def compact_and_assign(program: Program, limits: dict[str, int], err: Diagnostic, exact: bool,
                       eligible=lambda g: True, on_copies=None) -> Allocation:
    """Repeatedly: copy the values live where the range ``err`` names failed (``compact``),
    put the copies in SSA form (``split``) and allocate again. Each round moves the values
    around one range's first definition; a range (or any version of it) is compacted once
    (bounded: at most one
    round per group of the original program). ``on_copies`` sees each round's copies (the binding mirrors them)."""
    done: dict[int, int] = {}  # id(group of the original program) -> rounds spent on it
    root: dict[int, Group] = {}  # id(version) -> the group it is a version of
    first: list[Group] = []
    while True:
        g = getattr(err, "group", None)
        if g is None:
            raise err
        r = id(root.get(id(g), g))
        if done.get(r, 0) >= COMPACT_ROUNDS:
            raise err
        done[r] = done.get(r, 0) + 1
        first.append(g)
        copies = compact(program, g, limits.get(g.file, 0), getattr(err, "placed", {}), done[r] - 1, eligible)
        if not copies:
            raise err
        edits = split(program, eligible)
        if edits is not None:
            for v, o in list(edits.versions.items()):
                root[v] = root.get(id(o), o)
        for c in copies:
            for r, w in zip(c.defs, c.wants):
                if w is not None:
                    r.group.want = w  # the version split made for this copy
        if on_copies is not None:
            on_copies(copies, edits)
        inter = Interference(program, Liveness(program))
        if not fits(inter, limits):
            raise err  # copies never add pressure; kept as a guard
        try:
            return _assign(program, limits, inter, exact, tuple(first))
        except Diagnostic as e:
            err = e


def fits(inter: Interference, limits: dict[str, int]) -> bool:
    """Whether the registers live at once fit ``limits`` in every file."""
    return all(p.units <= limits.get(f, 0) for f, p in inter.pressure.items())


def _assign(program: Program, limits: dict[str, int], inter: Interference, exact: bool = False,
            first: tuple[Group, ...] = ()) -> Allocation:
    groups = _order(program)
    for g in groups:
        g.reg = None
    # pins first: they are fixed, and conflicts among them are the author's to fix
    pinned = [g for g in groups if g.pin is not None]
    for g in pinned:
        if g.pin % g.align or g.pin + g.width > limits.get(g.file, 0) or g.pin < 0:
            raise Diagnostic(
                f"{g.describe()} is pinned to {_spell(g.file, g.pin, g.width)}, which is "
                f"{'misaligned (needs alignment ' + str(g.align) + ')' if g.pin % g.align else 'outside the ' + str(limits.get(g.file, 0)) + ' available ' + FILE_NAMES[g.file] + 's'}",
                g.loc,
            )
        g.reg = g.pin
        for h in inter.neighbours(g):
            if h.pin is not None and h.reg is not None and h.file == g.file and _overlap(g, h):
                raise Diagnostic(
                    f"conflicting pinned registers: {g.describe()} at {_spell(g.file, g.reg, g.width)} and "
                    f"{h.describe()} at {_spell(h.file, h.reg, h.width)} are live at the same time",
                    g.loc or h.loc,
                    notes=(f"{h.name or 'the other value'} is defined here: {h.loc}",) if h.loc else (),
                )
    # Greedy placement in first-definition order is optimal for single registers; with
    # ranges and alignment it can fragment, so a second order (more-aligned, wider groups
    # first, then by definition) is tried too and the one using fewer registers kept.
    free = [g for g in groups if g.pin is None]
    rank = {id(g): i for i, g in enumerate(free)}
    orders = [free]
    if any(g.width > 1 for g in free):
        orders.append(sorted(free, key=lambda g: (-g.align, -g.width, rank[id(g)])))
        if len(free) <= 2000:  # a few more orders where they are cheap (seeded: deterministic)
            import random

            rnd = random.Random(len(free))
            orders.append(sorted(free, key=lambda g: (-g.width, -rank[id(g)])))
            for _ in range(EXTRA_ORDERS):
                keys = {id(g): rnd.random() for g in free}
                orders.append(sorted(free, key=lambda g: (-g.align, keys[id(g)])))
    if first:
        # ranges compaction made room for, placed first too: the values copied around them
        # are placed after, into what they leave free
        ahead = {id(g) for g in first}
        lead = [g for g in first if g.pin is None and id(g) in rank]
        orders += [lead + [g for g in o if id(g) not in ahead] for o in orders[:2]]
    def attempt(place) -> tuple[tuple[int, dict[int, int]] | None, Diagnostic | None]:
        best, first_error = None, None
        for order in orders:
            for g in free:
                g.reg = None
            try:
                place(order)
            except Diagnostic as e:
                first_error = first_error or e
                continue
            cost = sum(max((g.reg + g.width for g in program.groups if g.file == f), default=0) for f in FILES)
            if best is None or cost < best[0]:
                best = (cost, {id(g): g.reg for g in free})
        return best, first_error

    best, first_error = attempt(lambda order: _greedy(program, inter, order, limits))
    if best is None and exact and fits(inter, limits) and any(g.width > 1 for g in program.groups):
        # no order placed every group, though the live registers fit: place again with
        # conflicts between the units actually live together (a range partly dead lends
        # its dead registers), which the group-level graph forbids
        units = _unit_conflicts(program, inter)
        best, _ = attempt(lambda order: _greedy_units(program, units, order, limits))
    if best is None:
        assert first_error is not None
        raise first_error
    for g in free:
        g.reg = best[1][id(g)]
    return _result(program, inter)


def _result(program: Program, inter: Interference) -> Allocation:
    res = Allocation()
    for f in FILES:
        res.used[f] = max((g.reg + g.width for g in program.groups if g.file == f), default=0)
        res.pressure[f] = inter.pressure[f]
    return res


def _greedy(program: Program, inter: Interference, order: list[Group], limits: dict[str, int]) -> None:
    same = inter.same_file_neighbours()
    for g in order:
        limit = limits.get(g.file, 0)
        busy = [(h.reg, h.reg + h.width) for h in same[id(g)] if h.reg is not None]
        busy.sort()
        b = _want(g, busy, limit)
        if b is None:
            b = _place(busy, g.width, g.align, limit)
        if b + g.width > limit:
            raise _exhausted(program, inter, g, limit)
        g.reg = b


def _unit_conflicts(program: Program, inter: Interference) -> dict[int, dict[int, set[tuple[int, int]]]]:
    """id(g) -> id(h) -> {(units of g, units of h)} that must not share a register (masks
    relative to each group's first unit): what an op writes against everything live
    across that write, and everything live on entry pairwise."""
    live = inter.live
    conf: dict[int, dict[int, set[tuple[int, int]]]] = {id(g): {} for g in program.groups}

    def add(g: Group, gm: int, h: Group, hm: int) -> None:
        if g is h or g.file != h.file or not gm or not hm:
            return
        gm, hm = gm >> g.first_unit, hm >> h.first_unit
        conf[id(g)].setdefault(id(h), set()).add((gm, hm))
        conf[id(h)].setdefault(id(g), set()).add((hm, gm))

    for b in range(len(program.blocks)):
        ops = program.blocks[b].ops
        for i, d, u, after in live.op_points(b):
            op = ops[i]
            clobber = after | d | (u if op.early_clobber else 0)
            cs = op.copy_src
            spare = cs.group if cs is not None and cs.offset == 0 and cs.w == cs.group.width else None
            around = program.groups_in(clobber)
            for r in op.defs:
                g = r.group
                for h in around:
                    if h is not spare:
                        add(g, d & Interference._own(g), h, clobber & Interference._own(h))
    entry = live.entry_live()
    for r in program.entry_defs:
        entry |= r.mask()
    gs = program.groups_in(entry)
    for g in gs:
        for h in gs:
            add(g, entry & Interference._own(g), h, entry & Interference._own(h))
    return conf


def _greedy_units(program: Program, conf: dict, order: list[Group], limits: dict[str, int]) -> None:
    by_id = {id(g): g for g in program.groups}
    for g in order:
        limit = limits.get(g.file, 0)
        placed = [(by_id[h], pairs) for h, pairs in conf[id(g)].items() if by_id[h].reg is not None]
        w = g.want if g.want is not None and g.want % g.align == 0 and g.want + g.width <= limit else None
        for b in ([w] if w is not None else []) + list(range(0, limit - g.width + 1, g.align)):
            if all(not ((gm << b) & (hm << h.reg)) for h, pairs in placed for gm, hm in pairs):
                g.reg = b
                break
        else:
            d = Diagnostic(f"out of {FILE_NAMES[g.file]}s: cannot place {g.describe()} within {limit} "
                           f"{FILE_NAMES[g.file]}s", g.loc)
            d.group = g
            d.placed = {id(h): h.reg for h in program.groups if h.reg is not None}
            raise d


def _want(g: Group, busy: list[tuple[int, int]], limit: int) -> int | None:
    """``g.want`` (compaction's layout) when it is aligned, inside the file and free."""
    b = g.want
    if b is None or b % g.align or b + g.width > limit:
        return None
    return b if all(hi <= b or lo >= b + g.width for lo, hi in busy) else None


def _place(busy: list[tuple[int, int]], width: int, align: int, limit: int) -> int:
    """Best fit: the aligned position in the smallest hole between placed neighbours that
    holds ``width`` registers (keeping large holes for ranges), else the first aligned
    position above them all."""
    best, best_waste = None, None
    at = 0
    for lo, hi in busy:
        if lo > at:
            b = -(-at // align) * align
            if b + width <= lo:
                waste = (lo - at) - width
                if best_waste is None or waste < best_waste:
                    best, best_waste = b, waste
        if hi > at:
            at = hi
    if best is not None:
        return best
    return -(-at // align) * align


def _spell(file: str, reg: int, width: int) -> str:
    return f"{file}{reg}" if width == 1 else f"{file}[{reg}:{reg + width - 1}]"


def _exhausted(program: Program, inter: Interference, g: Group, limit: int) -> Diagnostic:
    p = inter.pressure[g.file]
    kind = FILE_NAMES[g.file]
    live = program.groups_in(p.live)
    notes = tuple(f"live: {h.describe()}" + (f" at {h.loc}" if h.loc else "") for h in live[:64])
    if len(live) > 64:
        notes += (f"... and {len(live) - 64} more",)
    if p.units > limit:
        msg = (f"out of {kind}s: {p.units} {kind}s are live {_where(p)} but only {limit} are available "
               f"(while placing {g.describe()})")
    else:
        msg = (f"out of {kind}s: cannot place {g.describe()} within {limit} {kind}s "
               f"(alignment and range sizes fragment the file; at most {p.units} are live at once, {_where(p)})")
        # pins never move: name the ones live with g, which may be what leaves no aligned place
        notes = tuple(f"pinned (never moved) and live with it: {h.describe()} at {_spell(h.file, h.pin, h.width)}"
                      for h in inter.neighbours(g) if h.pin is not None and h.file == g.file) + notes
    d = Diagnostic(msg, _loc(p) or g.loc, notes)
    d.group = g  # the range that found no place (compaction starts there)
    d.placed = {id(h): h.reg for h in program.groups if h.reg is not None}  # where the others went
    return d

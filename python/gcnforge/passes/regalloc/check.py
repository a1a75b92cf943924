"""An allocation checker that shares nothing with the allocator's liveness or interference.

It simulates what each physical register holds: a forward "must" data flow over the CFG
whose state maps ``(file, register)`` to the ``(group, unit)`` last written there on every
path (paths that disagree leave the register unknown). Then every use must find, in each
register it reads, the unit of the value it names; every range must be aligned and inside
the file; every pinned group must sit on its pin.

Pre: every group has ``reg``. Post: a list of problems (empty when the allocation is
correct). Bounded: states only lose entries at joins, so each block is revisited at most
(number of registers) times.
"""

from __future__ import annotations

from gcnforge.passes.regalloc.model import Group, Program, Ref

_TOP = None  # block not reached yet


def _write(state: dict, r: Ref, also: Ref | None = None) -> None:
    """Record that ``r``'s registers now hold its units; a copy's registers also still hold
    the source's units when source and destination share them."""
    g = r.group
    for k in range(r.w):
        reg = (g.file, g.reg + r.offset + k)
        tags = {(id(g), r.offset + k)}
        if also is not None:
            src = (also.group.file, also.group.reg + also.offset + k)
            if src == reg:
                tags |= state.get(reg, frozenset())
        state[reg] = frozenset(tags)


def check(program: Program, limits: dict[str, int]) -> list[str]:
    problems: list[str] = []
    groups: dict[int, Group] = {}
    for r in program.entry_defs:
        groups[id(r.group)] = r.group
    for b in program.blocks:
        for op in b.ops:
            for r in (*op.defs, *op.uses):
                groups[id(r.group)] = r.group
    for g in groups.values():
        if g.reg is None:
            problems.append(f"{g.name}: no register")
            continue
        if g.reg % g.align:
            problems.append(f"{g.name}: {g.file}{g.reg} not aligned to {g.align}")
        if g.reg < 0 or g.reg + g.width > limits.get(g.file, 0):
            problems.append(f"{g.name}: {g.file}[{g.reg}:{g.reg + g.width - 1}] outside the file")
        if g.pin is not None and g.reg != g.pin:
            problems.append(f"{g.name}: pinned to {g.pin} but placed at {g.reg}")
    if problems or not program.blocks:
        return problems
    n = len(program.blocks)
    entry: dict = {}
    for r in program.entry_defs:
        _write(entry, r)
    ins: list[dict | None] = [_TOP] * n
    ins[0] = entry
    work = [0]
    reported: set[tuple[int, int, int]] = set()
    visits = 0
    bound = (n + 1) * (sum(g.width for g in groups.values()) + 2) * 4
    while work:
        visits += 1
        if visits > bound:
            problems.append("checker did not converge (bug)")
            break
        b = work.pop()
        state = dict(ins[b])  # type: ignore[arg-type]
        for i, op in enumerate(program.blocks[b].ops):
            for r in op.uses:
                g = r.group
                for k in range(r.w):
                    reg = (g.file, g.reg + r.offset + k)
                    if (id(g), r.offset + k) not in state.get(reg, ()) and (b, i, id(g)) not in reported:
                        reported.add((b, i, id(g)))
                        held = state.get(reg)
                        other = ", ".join(sorted(groups[h[0]].name for h in held)) if held else "nothing known"
                        problems.append(
                            f"block {b} op {i} '{op.text}': reads {g.name} unit {r.offset + k} from "
                            f"{g.file}{reg[1]}, which holds {other}"
                        )
            for r in op.defs:
                _write(state, r, op.copy_src)
        for s in program.blocks[b].succs:
            old = ins[s]
            if old is _TOP:
                new = state
            else:
                new = {k: v & state[k] for k, v in old.items() if k in state and v & state[k]}
            if old is _TOP or new != old:
                ins[s] = new
                work.append(s)
    return problems

"""Placing the values around one instruction: where every range touching it can sit.

At one instruction the values are *items*: a group (a range of ``width`` registers aligned to
``align``) with three unit masks relative to its first register -- ``t`` the units live
across the instruction (live after it and not written by it), ``u`` the units it reads, ``d``
the units it writes. Units of different items may share a register only when neither is
live across (``t``) and they are not both read or both written: a value the instruction
reads for the last time may share registers with what it writes (not for an
``early_clobber`` instruction, whose writes may not land on what it reads). ``search``
finds an aligned first register for every item inside the file (pins and ``fixed`` items
where they are) or proves there is none.

The search is depth-first over the items (fixed ones first, then most aligned and widest
first), each item's current register (``at``) tried before the others, with a memo of the
partial placements known to fail. Bounded: at most ``budget`` candidate registers are tried
in one search (``SearchBudget`` beyond that); within the budget the answer is exact.
"""

from __future__ import annotations

from gcnforge.passes.regalloc.model import Group

SEARCH_STEPS = 200_000  # candidate registers tried in one search at most


class SearchBudget(Exception):
    """The search tried ``budget`` candidates without an answer."""


class Item:
    __slots__ = ("group", "t", "u", "d", "at", "fixed")

    def __init__(self, group: Group, t: int = 0, u: int = 0, d: int = 0, at: int | None = None,
                 fixed: int | None = None):
        self.group = group
        self.t, self.u, self.d = t, u, d  # unit masks relative to the group's first register
        self.at = at  # where it is now (tried first), None: not placed
        self.fixed = group.pin if group.pin is not None else fixed  # the only register allowed

    def __repr__(self) -> str:
        return f"Item({self.group!r}, t={self.t:b}, u={self.u:b}, d={self.d:b}, at={self.at}, fixed={self.fixed})"


def _candidates(it: Item, limit: int) -> list[int]:
    g = it.group
    if it.fixed is not None:
        ok = it.fixed % g.align == 0 and 0 <= it.fixed and it.fixed + g.width <= limit
        return [it.fixed] if ok else []
    out = list(range(0, limit - g.width + 1, g.align))
    if it.at is not None and it.at in out:
        out.remove(it.at)
        out.insert(0, it.at)
    return out


def search(items: list[Item], limit: int, early_clobber: bool = False, budget: int = SEARCH_STEPS) -> list[int] | None:
    """First registers for ``items`` (in their order), or None when no placement exists;
    raises ``SearchBudget`` after ``budget`` candidates."""
    order = sorted(range(len(items)), key=lambda k: (items[k].fixed is None, -items[k].group.align,
                                                      -items[k].group.width, k))
    its = [items[k] for k in order]
    cands = [_candidates(it, limit) for it in its]
    n = len(its)
    occ = [(0, 0, 0)] * (n + 1)  # (live across, read, written) registers before level i
    nxt = [0] * (n + 1)  # next candidate index per level
    pos = [0] * n
    failed: set[tuple[int, int, int, int]] = set()
    steps = 0
    i = 0
    while i < n:
        ot, ou, od = occ[i]
        placed = False
        if nxt[i] > 0 or (i, ot, ou, od) not in failed:
            it = its[i]
            while nxt[i] < len(cands[i]):
                b = cands[i][nxt[i]]
                nxt[i] += 1
                steps += 1
                if steps > budget:
                    raise SearchBudget(budget)
                t, u, d = it.t << b, it.u << b, it.d << b
                if t & (ot | ou | od) or u & (ot | ou) or d & (ot | od):
                    continue
                if early_clobber and (u & od or d & ou):
                    continue
                pos[i] = b
                occ[i + 1] = (ot | t, ou | u, od | d)
                nxt[i + 1] = 0
                placed = True
                break
        if placed:
            i += 1
            continue
        failed.add((i, ot, ou, od))
        if i == 0:
            return None
        i -= 1
    out = [0] * n
    for k, b in zip(order, pos):
        out[k] = b
    return out

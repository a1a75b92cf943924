"""Liveness of register units over a ``model.Program``'s control-flow graph.

Backward data flow, per dword unit (so a ``make_range`` part written on its own kills only
its own units): ``live_in(b) = use(b) | (live_out(b) & ~def(b))``, ``live_out(b) = OR of
live_in(s)``. Loops converge because the sets only grow and are bounded by the number of
units; the worklist is visited in post-order so most CFGs settle in two sweeps.

Pre: ``program.number()`` has run. Post: ``Liveness.live_in/live_out`` per block, and
``op_points(b)`` yields, for each op of block b, the units live just after it.
"""

from __future__ import annotations

from collections.abc import Iterator

from gcnforge.passes.regalloc.model import Op, Program


def _postorder(program: Program) -> list[int]:
    n = len(program.blocks)
    seen = [False] * n
    order: list[int] = []
    if n == 0:
        return order
    stack: list[tuple[int, int]] = [(0, 0)]
    seen[0] = True
    while stack:
        b, i = stack.pop()
        succs = program.blocks[b].succs
        if i < len(succs):
            stack.append((b, i + 1))
            s = succs[i]
            if not seen[s]:
                seen[s] = True
                stack.append((s, 0))
        else:
            order.append(b)
    # unreachable blocks still get liveness (they are analysed, never entered)
    order.extend(b for b in range(n) if not seen[b])
    return order


def op_masks(op: Op) -> tuple[int, int]:
    d = 0
    for r in op.defs:
        d |= r.mask()
    u = 0
    for r in op.uses:
        u |= r.mask()
    return d, u


class Liveness:
    def __init__(self, program: Program):
        self.program = program
        blocks = program.blocks
        n = len(blocks)
        self.masks: list[list[tuple[int, int]]] = [[op_masks(op) for op in b.ops] for b in blocks]
        gen = [0] * n
        kill = [0] * n
        for bi, ms in enumerate(self.masks):
            g = k = 0
            for d, u in reversed(ms):
                g = (g & ~d) | u
                k = (k | d) & ~u
            gen[bi], kill[bi] = g, k
        preds: list[list[int]] = [[] for _ in range(n)]
        for bi, b in enumerate(blocks):
            for s in b.succs:
                preds[s].append(bi)
        self.preds = preds
        live_in = [0] * n
        live_out = [0] * n
        work = _postorder(program)
        on = set(work)
        # bounded: each block's live_in only grows, at most nunits times per block
        while work:
            b = work.pop(0)
            on.discard(b)
            out = 0
            for s in blocks[b].succs:
                out |= live_in[s]
            live_out[b] = out
            new_in = gen[b] | (out & ~kill[b])
            if new_in != live_in[b]:
                live_in[b] = new_in
                for p in preds[b]:
                    if p not in on:
                        on.add(p)
                        work.append(p)
        self.live_in = live_in
        self.live_out = live_out

    def op_points(self, b: int) -> Iterator[tuple[int, int, int, int]]:
        """(op index, def mask, use mask, live-after mask) from the last op to the first."""
        live = self.live_out[b]
        ms = self.masks[b]
        for i in range(len(ms) - 1, -1, -1):
            d, u = ms[i]
            yield i, d, u, live
            live = (live & ~d) | u

    def entry_live(self) -> int:
        return self.live_in[0] if self.program.blocks else 0

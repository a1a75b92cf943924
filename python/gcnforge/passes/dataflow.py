"""The one forward dataflow solver over a kernel's blocks (wait pass, hazard pass, SSA recovery).

A problem is an entry state for the first block, a transfer function (a block's entry state
to its exit state) and a merge of two states at a join; the solver returns every block's
entry state at the fixpoint. States must compare with ``==`` and the merge must be monotone
over a finite height, so the worklist settles; a round limit turns a bug into ``None``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.ir import Block

from gcnforge.dialect.structure_ops import BranchOp

S = TypeVar("S")


def successors(blocks: Sequence[Block]) -> list[list[int]]:
    """Per block, the indices of the blocks its terminating branch may go to."""
    index = {id(b): i for i, b in enumerate(blocks)}
    return [[index[id(s)] for s in b.last_op.dests] if isinstance(b.last_op, BranchOp) else [] for b in blocks]


def forward(succs: Sequence[Sequence[int]], entry: S, transfer: Callable[[int, S], S], merge: Callable[[S, S], S],
            rounds_per_block: int = 64) -> list[S | None] | None:
    """Entry states of blocks ``0..n-1`` (None: unreachable), or None when the worklist does
    not settle within ``rounds_per_block * (n + 1)`` block visits."""
    n = len(succs)
    ins: list[S | None] = [None] * n
    ins[0] = entry
    work, queued = deque([0]), {0}
    for _ in range(rounds_per_block * (n + 1)):
        if not work:
            return ins
        b = work.popleft()
        queued.discard(b)
        out = transfer(b, ins[b])  # type: ignore[arg-type]
        for s in succs[b]:
            new = out if ins[s] is None else merge(ins[s], out)  # type: ignore[arg-type]
            if new != ins[s]:
                ins[s] = new
                if s not in queued:
                    queued.add(s)
                    work.append(s)
    return ins if not work else None

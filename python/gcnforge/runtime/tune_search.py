"""Search beyond the full grid for ``gcnforge tune``: a roofline lower bound per trial (prune a
variant whose bound already loses to the best time found for its shape) and a seeded,
budgeted candidate order (``--budget N``: the N most promising variants per shape).

A family opts in with ``work(variant, shape) -> Work``: the FLOPs the variant executes
(padding of partial tiles included), the fewest bytes it must move, the MFMA instruction the
FLOPs run on, and its launch count. The bound reads only the device profile (one home for
hardware facts): FLOPs at the MFMA's peak rate at the boost clock (``DeviceProfile.
mfma_peak_flops``), bytes at the fastest path any byte could take (the highest of the peak
HBM, Infinity Cache, all-XCD L2 and all-CU vector L1 bandwidths: the model may find inputs
cached anywhere), plus the profile's per-launch overhead. Every term is an optimistic limit of what the timing model charges, so a pruned
variant cannot be the winner; ``tests/runtime/test_tune_scale.py`` checks that against the
full grid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Work:
    """What one trial must do at least (see the module docstring)."""

    flops: float = 0.0  # executed FLOPs (partial tiles count whole)
    bytes: float = 0.0  # fewest bytes read and written in memory
    mfma: str | None = None  # the MFMA mnemonic the FLOPs run on (None: no compute bound)
    launches: int = 1


def lower_bound(work: Work, profile: Any) -> float:
    """Seconds no run of ``work`` on ``profile`` can beat."""
    compute = work.flops / profile.mfma_peak_flops(work.mfma) if work.mfma and work.flops else 0.0
    clk = profile.clock_hz
    bandwidth = max(profile.hbm_bytes_per_s, profile.hbm_achievable, profile.mall_bytes_per_s,
                    profile.l2_bytes_per_clk_per_xcd * profile.xcds * clk, profile.l1_bytes_per_clk * profile.cus * clk)
    memory = work.bytes / bandwidth if work.bytes else 0.0
    return max(compute, memory) + profile.launch_overhead_s * work.launches


def bounds(family: Any, variants: Sequence[Any], shapes: Sequence[tuple[int, ...]], profile: Any
           ) -> dict[tuple[int, int], float] | None:
    """(shape index, variant index) -> lower bound, or None without ``family.work`` or a profile."""
    work = getattr(family, "work", None)
    if work is None or profile is None:
        return None
    return {(si, vi): lower_bound(work(v, tuple(s)), profile) for si, s in enumerate(shapes)
            for vi, v in enumerate(variants)}


def order(n_shapes: int, n_variants: int, lb: dict[tuple[int, int], float] | None, seed: int,
          budget: int | None) -> list[tuple[int, int]]:
    """The (shape index, variant index) trials to run, in the order to start them: per shape by
    ascending bound (a seeded random order without bounds, so a budget samples the grid
    fairly), the shapes interleaved so that each shape's most promising trial runs early and
    sets the bar its other trials are pruned against. ``budget``: keep the first N per shape.
    The chosen set depends on the seed and the bounds only, never on timing, so ``--jobs``
    does not change it."""
    rng = np.random.default_rng(seed)
    per_shape = []
    for si in range(n_shapes):
        noise = rng.permutation(n_variants)
        key = (lambda vi: (lb[(si, vi)], vi)) if lb else (lambda vi: (noise[vi], vi))
        vs = sorted(range(n_variants), key=key)
        per_shape.append(vs[:budget] if budget else vs)
    out = []
    for rank in range(max((len(v) for v in per_shape), default=0)):
        out += [(si, vs[rank]) for si, vs in enumerate(per_shape) if rank < len(vs)]
    return out

"""How many random programs at the register limit allocate, without and with live-range
splitting and compaction (issue 19.4).

The programs are the allocator property test's (``tests/passes/test_regalloc_core.Gen``:
straight line, diamond, loop, nested loop; values redefined in place around the loops).
A program is *at the limit* when its most VGPRs live at once, counted by the test's own
liveness (``max_live``), equals the VGPR limit (8) and the other files fit theirs. Each is
allocated with ``split_ranges=False, exact_units=False`` (the allocator before issue 19.4)
and with the defaults (placement against the units live together, live-range splitting,
then compaction copies around ranges that find no aligned place); every allocation is
checked by ``regalloc.check``. ``ranges fit`` counts the programs whose live values pack
at every point when each range counts whole and aligned (the test's ``ranges_fit``: the
bound the allocator promises to meet), ``after`` how many of all allocate, ``fit+alloc``
how many of those that fit allocate. Counts, not times:

    python benchmarks/bench_regalloc_limit.py [--seeds 2000]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "passes"))

from test_regalloc_core import SMALL, Gen, max_live, ranges_fit  # noqa: E402

from gcnforge.diagnostics import Diagnostic  # noqa: E402
from gcnforge.passes.regalloc.allocate import allocate  # noqa: E402
from gcnforge.passes.regalloc.check import check  # noqa: E402

SHAPES = ("line", "diamond", "loop", "nested")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=2000)
    args = ap.parse_args()
    rows: dict[tuple[bool, bool], list[int]] = {}  # (wide, pins) -> [at limit, before, after, fit, fit+alloc]
    for seed in range(args.seeds):
        for wide in (False, True):
            for pins in (False, True):
                for shape in SHAPES:
                    live = max_live(Gen(random.Random(seed), wide, pins).program(shape))
                    if live["v"] != SMALL["v"] or any(live[f] > SMALL[f] for f in SMALL):
                        continue
                    row = rows.setdefault((wide, pins), [0, 0, 0, 0, 0])
                    row[0] += 1
                    fit = ranges_fit(Gen(random.Random(seed), wide, pins).program(shape), SMALL)
                    row[3] += fit
                    for col, split in ((1, False), (2, True)):
                        p = Gen(random.Random(seed), wide, pins).program(shape)
                        try:
                            allocate(p, SMALL, split_ranges=split, exact_units=split)
                        except Diagnostic:
                            continue
                        assert check(p, SMALL) == [], (seed, wide, pins, shape)
                        row[col] += 1
                        row[4] += split and fit
    print(f"programs with max-live = {SMALL['v']} VGPRs (limit {SMALL['v']}), seeds 0..{args.seeds - 1}")
    print(f"{'ranges':>8} {'pins':>5} {'at limit':>9} {'before':>7} {'after':>7} {'ranges fit':>11} {'fit+alloc':>10}")
    for (wide, pins), (n, before, after, fit, both) in sorted(rows.items()):
        print(f"{'yes' if wide else 'no':>8} {'yes' if pins else 'no':>5} {n:9d} {before:7d} {after:7d} {fit:11d} {both:10d}")


if __name__ == "__main__":
    main()

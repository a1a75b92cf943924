"""How many random programs at the register limit allocate, against the bound the allocator
promises (issues 19.4, 28.6).

The programs are the allocator property test's (``tests/passes/test_regalloc_core.Gen``:
straight line, diamond, loop, nested loop; values redefined in place around the loops;
with ``ranges``, 2- and 4-register ranges, some built part by part; with ``pins``, an SGPR
pair and v0 pinned as the ABI preloads are). A program is *at the limit* when its most
VGPRs live at once, counted by the test's own liveness (``max_live``), equals the VGPR limit
(8) and the other files fit theirs. Each is allocated with ``split_ranges=False,
exact_units=False`` (``before``: the allocator before issue 19.4) and with the defaults
(``allocate``: placement against the units live together, live-range splitting,
compaction, then placement instruction by instruction with parallel copies); every
allocation is checked by ``regalloc.check``. ``bound fits`` counts the programs where the
bound the allocator promises fits, decided by the test's own liveness and exhaustive
placement search (``bound_fits``: at every op, the values live across it, read and written
can be placed, each range whole at an aligned register, only its units live, read or
written there occupying registers, pins fixed); ``fit+alloc`` how many of those allocate
(the promise: all of them). ``whole`` counts the programs whose live values pack at every
point when a range counts whole while any of it is live (``ranges_fit``, the bound before
issue 28).

With ``--kernels N`` it also counts kernels through the ``amdgcn-regalloc`` pass: the random
kernels of ``tests/passes/test_regalloc_kernels`` (loads, ALU ops, 64-bit shifts of
``make_range`` pairs, stores), each allocated with exactly as many VGPRs as its roomy build
says are live at once (``regalloc_bound``), with ``split_ranges=false`` (the pass before
issue 19.4) and with the defaults (splitting, then compaction: parallel copies emitted as
moves); every allocated kernel passes the SSA checker (``verify_ssa.check_ssa``). Counts,
not times:

    python benchmarks/bench_regalloc_limit.py [--seeds 2000] [--kernels 200]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "passes"))

from test_regalloc_core import SMALL, Gen, bound_fits, max_live, ranges_fit  # noqa: E402

from gcnforge.diagnostics import Diagnostic  # noqa: E402
from gcnforge.passes.regalloc.allocate import allocate  # noqa: E402
from gcnforge.passes.regalloc.check import check  # noqa: E402

SHAPES = ("line", "diamond", "loop", "nested")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--kernels", type=int, default=0)
    args = ap.parse_args()
    if args.kernels:
        kernels(args.kernels)
    # (ranges, pins) -> [at limit, before, allocate, bound fits, fit+alloc, whole]
    rows: dict[tuple[bool, bool], list[int]] = {}
    for seed in range(args.seeds):
        for wide in (False, True):
            for pins in (False, True):
                for shape in SHAPES:
                    def make(seed=seed, wide=wide, pins=pins, shape=shape):
                        return Gen(random.Random(seed), wide, pins).program(shape)

                    live = max_live(make())
                    if live["v"] != SMALL["v"] or any(live[f] > SMALL[f] for f in SMALL):
                        continue
                    row = rows.setdefault((wide, pins), [0] * 6)
                    row[0] += 1
                    fit = bound_fits(make(), SMALL)
                    row[3] += fit
                    row[5] += ranges_fit(make(), SMALL)
                    for col, split in ((1, False), (2, True)):
                        p = make()
                        try:
                            allocate(p, SMALL, split_ranges=split, exact_units=split)
                        except Diagnostic:
                            continue
                        assert check(p, SMALL) == [], (seed, wide, pins, shape)
                        row[col] += 1
                        row[4] += split and fit
    print(f"programs with max-live = {SMALL['v']} VGPRs (limit {SMALL['v']}), seeds 0..{args.seeds - 1}")
    print(f"{'ranges':>6} {'pins':>5} {'at limit':>9} {'before':>7} {'bound fits':>11} {'allocate':>9} "
          f"{'fit+alloc':>10} {'whole':>6}")
    for (wide, pins), (n, before, after, fit, both, whole) in sorted(rows.items()):
        share = f"{100 * both / fit:.0f}%" if fit else "-"
        print(f"{'yes' if wide else 'no':>6} {'yes' if pins else 'no':>5} {n:9d} {before:7d} {fit:11d} {after:9d} "
              f"{both:5d} {share:>4} {whole:6d}")


def kernels(n: int) -> None:
    from test_regalloc_kernels import OPS, program

    from gcnforge.builder import Arg, Module
    from gcnforge.dialect.structure_ops import KernelOp
    from gcnforge.passes import pipeline as pl
    from gcnforge.passes.regalloc.verify_ssa import check_ssa

    def compile_with(build, options: str):
        m = Module("rand")
        with m.kernel("rand", [Arg.ptr("src"), Arg.ptr("dst")], workgroup_size=(64, 1, 1)) as k:
            build(k)
        pipe = pl.DEFAULT.replace("amdgcn-regalloc", f"amdgcn-regalloc{{{options}}}")
        try:
            pl.run(m.top, pl.parse(pipe))
        except Diagnostic:
            return None
        kern = next(op for op in m.top.walk() if isinstance(op, KernelOp))
        assert check_ssa(kern) == []
        return kern

    names = [*OPS, "pair", "pair"]
    before = after = 0
    for seed in range(n):
        r = random.Random(seed)
        ops = [(r.choice(names), r.randrange(40), r.randrange(40)) for _ in range(r.randrange(4, 14))]
        build, _ = program(ops, r.randrange(1, 4))
        bound = compile_with(build, "").attributes["regalloc_bound"].data["v"].value.data
        before += compile_with(build, f"max_vgprs={bound} split_ranges=false") is not None
        after += compile_with(build, f"max_vgprs={bound}") is not None
    print(f"kernels allocated with max_vgprs = their max-live VGPRs, seeds 0..{n - 1}: "
          f"{before}/{n} with split_ranges=false, {after}/{n} with the defaults")


if __name__ == "__main__":
    main()

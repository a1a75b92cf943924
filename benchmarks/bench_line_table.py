"""What the DWARF line table costs a compile: translation (``module_code``) and assembly of a
20,000-instruction kernel whose every instruction changes source line (two Python lines
alternate: a ``.loc`` before each instruction), against the same allocated kernel with every
op location removed (no ``.loc``, no line table) as the anchor, alternated in one process;
CPU seconds, min and median of ``--repeat`` runs.

    python benchmarks/bench_line_table.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import time

from xdsl.dialects.builtin import UnknownLoc

from gcnforge.binary import assemble
from gcnforge.builder import Arg, Module
from gcnforge.passes import pipeline
from gcnforge.translate.asm import module_code


def build(n: int = 20000):
    m = Module("big")
    with m.kernel("big", [Arg.ptr("a"), Arg.ptr("c")], workgroup_size=(64, 1, 1)) as k:
        a, c = k.args()
        off = k.v_lshlrev_b32(2, k.thread_id("x"))
        vals = []
        for i in range(32):
            v, t = k.global_load_dword(off, a, offset=4 * i)
            vals.append(v)
        k.wait(t)
        done = 33
        while done < n - 64:
            for i in range(0, 32, 2):
                vals[i] = k.v_add_f32(vals[i], vals[(i + 1) % 32])
                vals[i + 1] = k.v_add_f32(vals[i + 1], vals[(i + 2) % 32])
                done += 2
        for i in range(32):
            k.global_store_dword(off, vals[i], c, offset=4 * i)
    pipeline.run(m.top, pipeline.parse(pipeline.DEFAULT))
    return m.top


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    located = build()
    bare = located.clone()
    for op in bare.walk():
        op.location = UnknownLoc()
    t: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):
        for name, top in (("line table", located), ("no locations", bare)):
            t0 = time.process_time()
            text, md = module_code(top)
            t1 = time.process_time()
            assemble(text, metadata=md)
            t2 = time.process_time()
            t.setdefault((name, "translate"), []).append(t1 - t0)
            t.setdefault((name, "assemble"), []).append(t2 - t1)
    print(f"{'':14}{'translate min/median':>24}{'assemble min/median':>24}")
    for name in ("line table", "no locations"):
        cells = []
        for step in ("translate", "assemble"):
            v = sorted(t[(name, step)])
            cells.append(f"{v[0]:.3f} / {v[len(v) // 2]:.3f} s")
        print(f"{name:14}{cells[0]:>24}{cells[1]:>24}")
    for step in ("translate", "assemble"):
        print(f"{step}: {min(t[('line table', step)]) / min(t[('no locations', step)]):.2f}x the anchor (min)")


if __name__ == "__main__":
    main()

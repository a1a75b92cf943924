"""Assemble a 20,000-line gfx942 file with gcnforge and with llvm-mc; print the ratio.

The file cycles through the LLVM corpus forms (all families present) so the mix covers
scalar, memory and vector encodings. Both tools produce the encodings of every line
(``llvm-mc -show-encoding`` vs ``gcnforge.asm.listing.show_encoding``); timings are
best-of-N wall clock in this process.

    python benchmarks/bench_assembler.py [--lines 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gcnforge.asm.listing import show_encoding  # noqa: E402
from gcnforge.llvm_tools import require_tool  # noqa: E402
from tools.isa_gen import common, corpus  # noqa: E402


def build_source(n: int) -> str:
    lines = [line for _, line in corpus.forms()]
    ok = [line for line, (b, _) in zip(lines, common.assemble(lines)) if b is not None]
    # keep forms gcnforge also accepts (the corpus test reports any that differ)
    from gcnforge.asm import parse_instruction
    from gcnforge.diagnostics import Diagnostic, SourceLoc

    good = []
    for line in ok:
        try:
            parse_instruction(line, SourceLoc("<bench>", 1))
            good.append(line)
        except Diagnostic:
            pass
    body = [good[i % len(good)] for i in range(n)]
    return "\n".join(body) + "\n"


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    src = build_source(args.lines)
    mc = require_tool("llvm-mc")
    with tempfile.NamedTemporaryFile("w", suffix=".s", delete=False) as f:
        f.write(src)
        path = f.name

    def run_llvm():
        subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding", path], check=True,
                       capture_output=True)

    def run_ours():
        show_encoding(src, path)

    run_ours()  # warm the table and codec caches (one-time load is reported separately)
    t_llvm = best(run_llvm, args.repeat)
    t_ours = best(run_ours, args.repeat)
    Path(path).unlink()
    print(f"lines: {args.lines}")
    print(f"llvm-mc -show-encoding : {t_llvm:.3f} s")
    print(f"gcnforge show_encoding : {t_ours:.3f} s")
    print(f"ratio gcnforge / llvm-mc: {t_ours / t_llvm:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Compile time, Python process start -> code-object bytes, for a small kernel (the README
vector_add) and generated kernels of 5,000 and 20,000 instructions (chains of VALU ops over
32 live values, loads and stores). Each is timed as a fresh ``python -c`` process, so imports
are included; the anchor is an empty ``python -c 'import gcnforge'`` process in the same run,
and the ratios printed are against it. For the large kernels it also prints CPU seconds per
1,000 instructions after subtracting the small kernel's process (start-up, imports, table),
and how that rate grows from 5,000 to 20,000 instructions (1.0 = linear).

    python benchmarks/bench_compile.py [--sizes 5000,20000]
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# bytecode caching on, as in an installed package (kept out of the source tree)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                                 / "gcnforge-bench" / "pycache")

BIG = '''
from gcnforge.builder import Arg, Module
NINST = {n}
m = Module("big")
with m.kernel("big", [Arg.ptr("a"), Arg.ptr("c")], workgroup_size=(64, 1, 1)) as k:
    a, c = k.args()
    off = k.v_lshlrev_b32(2, k.thread_id("x"))
    vals = []
    for i in range(32):
        v, t = k.global_load_dword(off, a, offset=4 * i)
        vals.append(v)
    k.wait(t)
    n = 33
    while n < NINST - 64:
        for i in range(32):
            vals[i] = k.v_add_f32(vals[i], vals[(i + 1) % 32])
            n += 1
    for i in range(32):
        k.global_store_dword(off, vals[i], c, offset=4 * i)
    k.s_endpgm()
'''


def timed(code: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child): on a shared machine the CPU time is the
    steadier figure."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=ENV)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def compile_code(path: Path) -> str:
    return ("from pathlib import Path\nfrom gcnforge.cli.cmd_compile import compile_file, DEFAULT\n"
            f"b = compile_file(Path({str(path)!r}), DEFAULT, None, 'builtin', False)\nassert len(b) > 0\n")


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="5000,20000", help="instruction counts of the large kernels")
    sizes = [int(x) for x in ap.parse_args().sizes.split(",")]
    with tempfile.TemporaryDirectory() as d:
        small = ROOT / "examples" / "authoring_vector_add.py"
        anchor = min(timed("import gcnforge") for _ in range(3))
        small_t = min(timed(compile_code(small)) for _ in range(2))
        rows = [("small kernel (vector_add):", small_t, None)]
        for n in sizes:
            big = Path(d) / f"big{n}.py"
            big.write_text(BIG.replace("{n}", str(n)))
            rows.append((f"{n:,}-instruction kernel:", timed(compile_code(big)), n))
        print("                                      wall       CPU   (ratio to anchor, CPU)   CPU s per 1,000 insts")
        print(f"anchor (python -c 'import gcnforge'): {anchor[0]:6.3f} s {anchor[1]:6.3f} s")
        rates = []
        for name, (w, c), n in rows:
            extra = ""
            if n:
                rate = (c - small_t[1]) / n * 1000
                rates.append(rate)
                extra = f"   {rate:.3f}"
            print(f"{name:37s} {w:6.3f} s {c:6.3f} s   {c / anchor[1]:.1f}x{extra}")
        if len(rates) >= 2:
            print(f"rate growth {sizes[0]:,} -> {sizes[-1]:,} instructions: {rates[-1] / rates[0]:.2f}x (1.0 = linear)")


if __name__ == "__main__":
    main()

"""Compile time, Python process start -> code-object bytes, for a small kernel (the README
vector_add) and a 5,000-instruction kernel (generated: chains of VALU ops over 32 live
values, loads and stores). Each is timed as a fresh ``python -c`` process, so imports are
included; the anchor is an empty ``python -c 'import gcnforge'`` process in the same run,
and the ratios printed are against it.

    python benchmarks/bench_compile.py
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BIG = '''
from gcnforge.builder import Arg, Module
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
    while n < 5000 - 64:
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
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def compile_code(path: Path) -> str:
    return ("from pathlib import Path\nfrom gcnforge.cli.cmd_compile import compile_file, DEFAULT\n"
            f"b = compile_file(Path({str(path)!r}), DEFAULT, None, 'builtin', False)\nassert len(b) > 0\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        big = Path(d) / "big.py"
        big.write_text(BIG)
        small = ROOT / "examples" / "authoring_vector_add.py"
        anchor = min(timed("import gcnforge") for _ in range(3))
        small_t = min(timed(compile_code(small)) for _ in range(2))
        big_t = timed(compile_code(big))
        print("                                      wall       CPU   (ratio to anchor, CPU)")
        print(f"anchor (python -c 'import gcnforge'): {anchor[0]:6.3f} s {anchor[1]:6.3f} s")
        for name, (w, c) in (("small kernel (vector_add):", small_t), ("5,000-instruction kernel:", big_t)):
            print(f"{name:37s} {w:6.3f} s {c:6.3f} s   {c / anchor[1]:.1f}x")


if __name__ == "__main__":
    main()

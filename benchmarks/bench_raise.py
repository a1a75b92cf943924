"""Raise + re-emit a code object vs the plain disassemble + reassemble round trip.

The anchor is ``gcnforge.binary.to_asm.code_object_to_asm`` + ``assemble`` on the same
object (what the binary layer does without the dialect); the ratio says what going through
the dialect (ops, verification, per-op re-encode check) costs. Input: an example's code
object (default ``examples/topk_softmax.py``) or a given file.

    python benchmarks/bench_raise.py [--input K.hsaco] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gcnforge.binary import assemble, read_code_object  # noqa: E402
from gcnforge.binary.to_asm import code_object_to_asm  # noqa: E402
from gcnforge.raising import module_code_object, raise_code_object  # noqa: E402


def best(fn, n: int) -> float:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--input")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    if a.input:
        data = Path(a.input).read_bytes()
    else:
        from gcnforge.cli.cmd_compile import DEFAULT, compile_file

        data = compile_file(Path(__file__).resolve().parents[1] / "examples" / "topk_softmax.py", DEFAULT, None,
                            "builtin", False)
    co = read_code_object(data)
    n = sum(len(k.code) for k in co.kernels.values()) // 4
    anchor = best(lambda: assemble(code_object_to_asm(co)), a.repeat)
    lifted = best(lambda: module_code_object(raise_code_object(co)), a.repeat)
    print(f"code object: {len(co.kernels)} kernel(s), ~{n} instruction words")
    print(f"disassemble+reassemble (anchor): {anchor * 1e3:8.1f} ms")
    print(f"raise+emit (dialect):            {lifted * 1e3:8.1f} ms   ratio {lifted / anchor:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

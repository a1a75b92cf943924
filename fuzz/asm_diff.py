"""Differential fuzzing of the assembler against ``llvm-mc`` (LLVM 22, the oracle).

Random instructions of every encoding in the ISA table (random field bits, so random
registers, immediates and modifiers; multi-dword VGPR tuples even as gfx90a+ requires) are
decoded by gcnforge into text; that text is assembled by gcnforge and by llvm-mc. Counted
per direction: both accept with the same bytes / different bytes, LLVM accepts and we
reject, LLVM rejects and we accept, both reject.

    python -m fuzz.asm_diff --count 100000 --seed 1      # the long run
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

from gcnforge.asm import decode, parse_instruction
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa import table
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.testing import random_inst_word

LIT = (0x3E80_0000).to_bytes(4, "little")  # a literal dword after each word (0.25: not inline)


def random_lines(count: int, seed: int) -> list[str]:
    """Texts of ``count`` random instructions gcnforge decodes (every encoding, uniformly)."""
    rng = random.Random(seed)
    by_enc: dict[str, list] = {}
    for i in table.instructions():
        if i.encoding in ENCODINGS:
            by_enc.setdefault(i.encoding, []).append(i)
    encs = sorted(by_enc)
    out: list[str] = []
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        inst = rng.choice(by_enc[rng.choice(encs)])
        try:
            d = decode(random_inst_word(rng, inst) + LIT)
            if d.inst is None:
                continue
            text = d.text(0, lambda a: str(a // 4))
        except Exception:  # noqa: BLE001 - the decoder's own fuzzing is tests/asm/test_llvm_fuzz.py
            continue
        if any(c in text for c in "<>"):  # symbolized branch targets: not stand-alone text
            continue
        out.append(text)
    return out


def ours(line: str) -> bytes | None:
    try:
        return parse_instruction(line, SourceLoc("<diff>", 1)).encode(0, lambda n: 0)
    except Diagnostic:
        return None


def compare(lines: list[str]) -> tuple[Counter, list[tuple[str, str]]]:
    from tools.isa_gen import common

    theirs = common.assemble_text(lines)
    counts: Counter = Counter()
    examples: list[tuple[str, str]] = []
    for line, (_, data, err) in zip(lines, theirs):
        mine = ours(line)
        if data is None and mine is None:
            k = "both reject"
        elif data is None:
            k = "LLVM rejects, gcnforge accepts"
        elif mine is None:
            k = "LLVM accepts, gcnforge rejects"
        elif bytes(data) == mine:
            k = "same bytes"
        else:
            k = "different bytes"
        counts[k] += 1
        if k not in ("same bytes", "both reject") and len(examples) < 40:
            examples.append((k, line + (f"   [LLVM: {err}]" if err else "")))
    return counts, examples


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.asm_diff", description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2000, help="instructions to generate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=5000, help="lines per llvm-mc run")
    a = ap.parse_args(argv)
    lines = random_lines(a.count, a.seed)
    total: Counter = Counter()
    shown: list = []
    for i in range(0, len(lines), a.batch):
        c, ex = compare(lines[i:i + a.batch])
        total += c
        shown += ex
    print(f"{len(lines)} instructions (seed {a.seed})")
    for k in ("same bytes", "different bytes", "LLVM accepts, gcnforge rejects", "LLVM rejects, gcnforge accepts",
              "both reject"):
        print(f"  {k:32} {total[k]}")
    for k, line in shown[:20]:
        print(f"  [{k}] {line}")
    return 0 if not total["different bytes"] else 1


if __name__ == "__main__":
    sys.exit(main())

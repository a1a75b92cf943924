"""Differential fuzzing of the assembler against ``llvm-mc`` (LLVM 22, the oracle).

Random instructions of every encoding in the ISA table (random field bits, so random
registers, immediates and modifiers; multi-dword VGPR tuples even as gfx90a+ requires) are
decoded by gcnforge into text; that text is assembled by gcnforge and by llvm-mc. Counted
per direction: both accept with the same bytes / different bytes, LLVM accepts and we
reject, LLVM rejects and we accept, both reject.

    python -m fuzz.asm_diff --count 100000 --seed 1      # the long run
    python -m fuzz.asm_diff --count 20000 --mcpu gfx950  # another table (llvm-mc -mcpu too)

One LLVM 22 defect is counted apart, not as "different bytes" (``llvm_drops_sc1``).
"""

from __future__ import annotations

import argparse
import random
import re
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


_F64_ATOMIC_RTN_AGPR = re.compile(r"(flat|global)_atomic_(add|min|max)_f64 a\[")
LLVM_SC1 = "LLVM drops sc1 (known LLVM defect)"


def llvm_drops_sc1(line: str, mine: bytes, theirs: bytes) -> bool:
    """LLVM 22 encodes a returning {flat,global}_atomic_{add,min,max}_f64 with AGPR data
    without its SC1 bit (bit 25), though it prints ``sc1`` back, sets the bit for the same
    instruction with VGPR data and for the non-returning AGPR form, and its own disassembler
    calls the bytes with the bit set "invalid instruction encoding". The MI300 ISA guide's FLAT
    layout has SC1 at bit 25 for every FLAT/GLOBAL instruction, so gcnforge keeps the bit as
    written; only a difference of exactly that bit on exactly these forms is counted here."""
    return bool(_F64_ATOMIC_RTN_AGPR.match(line)) and " sc1" in line and len(mine) == len(theirs) >= 4 \
        and mine[3] & 2 and theirs == mine[:3] + bytes([mine[3] & ~2]) + mine[4:]


def compare(lines: list[str], mcpu: str = "gfx942") -> tuple[Counter, list[tuple[str, str]]]:
    from tools.isa_gen import common

    theirs = common.assemble_text(lines, mcpu)
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
        elif llvm_drops_sc1(line, mine, bytes(data)):
            k = LLVM_SC1
        else:
            k = "different bytes"
        counts[k] += 1
        if k not in ("same bytes", "both reject", LLVM_SC1) and len(examples) < 40:
            examples.append((k, line + (f"   [LLVM: {err}]" if err else "")))
    return counts, examples


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.asm_diff", description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2000, help="instructions to generate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=5000, help="lines per llvm-mc run")
    ap.add_argument("--mcpu", default=table.TARGET, choices=table.known_targets(),
                    help="instruction table and llvm-mc -mcpu")
    a = ap.parse_args(argv)
    total: Counter = Counter()
    shown: list = []
    with table.use_target(a.mcpu):
        lines = random_lines(a.count, a.seed)
        for i in range(0, len(lines), a.batch):
            c, ex = compare(lines[i:i + a.batch], a.mcpu)
            total += c
            shown += ex
    print(f"{len(lines)} instructions (seed {a.seed}, {a.mcpu})")
    for k in ("same bytes", "different bytes", "LLVM accepts, gcnforge rejects", "LLVM rejects, gcnforge accepts",
              "both reject", LLVM_SC1):
        print(f"  {k:32} {total[k]}")
    for k, line in shown[:20]:
        print(f"  [{k}] {line}")
    return 0 if not total["different bytes"] else 1


if __name__ == "__main__":
    sys.exit(main())

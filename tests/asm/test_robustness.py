"""Bad input never escapes as anything but a Diagnostic, and never hangs: mutated corpus
lines (random insertions/deletions/replacements, fixed seed) go through parse + encode; the
decoder takes random bytes."""

from __future__ import annotations

import random
import time

from gcnforge.asm import decode, disassemble, parse_instruction
from gcnforge.diagnostics import Diagnostic, SourceLoc
from tools.isa_gen import corpus

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_[]():,.-+*/|&^~!@#$%<> \t'\"xvsa"


def test_mutated_lines_only_raise_diagnostics():
    lines = [line for _, line in corpus.forms(["scalar", "memory"])]
    rng = random.Random(7)
    t0 = time.perf_counter()
    for _ in range(3000):
        chars = list(rng.choice(lines))
        for _ in range(rng.randint(1, 3)):
            p = rng.randrange(len(chars) + 1)
            r = rng.random()
            if r < 0.4 and chars:
                del chars[min(p, len(chars) - 1)]
            elif r < 0.8:
                chars.insert(p, rng.choice(ALPHABET))
            elif chars:
                chars[min(p, len(chars) - 1)] = rng.choice(ALPHABET)
        text = "".join(chars)
        try:
            parse_instruction(text, SourceLoc("f.s", 1)).encode(0, lambda name: 0)
        except Diagnostic as d:
            assert d.loc is not None and d.message
    assert time.perf_counter() - t0 < 60


def test_random_bytes_always_decode():
    rng = random.Random(3)
    blob = bytes(rng.getrandbits(8) for _ in range(40000))
    pcs = [pc for pc, _ in disassemble(blob)]
    assert pcs[0] == 0 and all(b > a for a, b in zip(pcs, pcs[1:]))
    for pc in range(0, 4000, 4):
        di = decode(blob, pc)
        assert di.size in (4, 8, 12) and isinstance(di.text(pc), str)

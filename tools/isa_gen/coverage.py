"""Coverage of the ISA table against LLVM 22, independent of the generators' probes.

For every encoding and every opcode value, a zero word and several random words (fixed
seed) are decoded by ``llvm-mc --disassemble``; any opcode LLVM decodes that
``table.by_opcode`` lacks (or names differently) is reported as missing.

    python -m tools.isa_gen.coverage [--mcpu gfx950] [ENCODING ...]
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from gcnforge.isa import table
from gcnforge.isa.encodings import DECODE_ORDER, ENCODINGS
from tools.isa_gen.common import CRASHED, disassemble

TRIES = 6


def classify(raw: bytes) -> str | None:
    w = int.from_bytes(raw[:4], "little")
    for name in DECODE_ORDER:
        e = ENCODINGS[name]
        if w & e.match_mask == e.match_value:
            return name
    return None


def _lookup(enc: str, op: int):
    if enc in ("VOP3A", "VOP3B"):
        return table.by_opcode("VOP3A", op) or table.by_opcode("VOP3B", op)
    return table.by_opcode(enc, op)


def coverage(encodings: list[str] | None = None, seed: int = 1, mcpu: str = "gfx942") -> dict[str, tuple[int, list]]:
    """Per encoding: (instructions in ``mcpu``'s table, [(opcode, LLVM mnemonic) missing])."""
    with table.use_target(mcpu):
        return _coverage(encodings, seed, mcpu)


def _coverage(encodings: list[str] | None, seed: int, mcpu: str) -> dict[str, tuple[int, list]]:
    rng = random.Random(seed)
    encs = encodings or [e for e in DECODE_ORDER if e != "VOP3B"]
    probes: list[tuple[str, int, bytes]] = []
    for enc in encs:
        e = ENCODINGS[enc]
        for op in range(1 << e.opcode.width):
            for k in range(TRIES + 1):
                w = 0 if k == 0 else rng.getrandbits(e.size * 8)
                w = (w & ~e.match_mask) | e.match_value
                w = e.opcode.put(w, op)
                raw = w.to_bytes(e.size, "little")
                if classify(raw) == enc or (enc == "VOP3A" and classify(raw) == "VOP3B"):
                    probes.append((enc, op, raw))
    res = disassemble([p[2] for p in probes], mcpu)
    out: dict[str, tuple[int, list]] = {}
    missing: dict[str, set] = {e: set() for e in encs}
    for (enc, op, _), d in zip(probes, res):
        if d is None:
            continue
        inst = _lookup(enc, op)
        base = d.mnemonic
        if inst is None or (inst.mnemonic != base and inst.base != base.rsplit("_e", 1)[0]):
            missing[enc].add((op, base))
    have = Counter(i.encoding for i in table.instructions())
    for enc in encs:
        n = have[enc] + (have["VOP3B"] if enc == "VOP3A" else 0)
        out[enc] = (n, sorted(missing[enc]))
    return out


def main(argv: list[str]) -> int:
    mcpu = "gfx942"
    if argv[:1] == ["--mcpu"]:
        mcpu, argv = argv[1], argv[2:]
    cov = coverage(argv or None, mcpu=mcpu)
    total_missing = 0
    for enc, (n, miss) in cov.items():
        total_missing += len(miss)
        print(f"{enc:10s} {n:5d} opcodes in table   missing vs LLVM: {len(miss)}"
              + (f"  e.g. {miss[:4]}" if miss else ""))
    print(f"total: {sum(n for n, _ in cov.values())} instructions, {total_missing} missing")
    if CRASHED:
        print(f"({len(CRASHED)} probes crash llvm-mc -show-encoding and were skipped, e.g. "
              f"{CRASHED[0].hex(',')}; see tools/isa_gen/common.py CRASHED)")
    return 1 if total_missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

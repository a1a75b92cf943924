"""Regenerate ``python/gcnforge/isa/data/gfx942_*.json`` from LLVM 22 (bit-for-bit).

    python -m tools.isa_gen [--only scalar,memory,vector] [--check]

Each group module exposes ``rows() -> list[Instruction]``; ``vector`` (helper B's
``tools/isa_gen/vector.py``) is included when present."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from gcnforge.isa.table import DATA_DIR, instruction_to_dict

GROUPS = ("scalar", "memory", "vector")


def render(rows) -> str:
    rows = sorted(rows, key=lambda i: (i.encoding, i.opcode, i.mnemonic))
    doc = {
        "generator": "tools/isa_gen (python -m tools.isa_gen); source: LLVM 22 llvm-mc -mcpu=gfx942 + AMD MI300 ISA guide",
        "target": "gfx942",
        "instructions": [instruction_to_dict(i) for i in rows],
    }
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def generate(group: str) -> str | None:
    try:
        mod = importlib.import_module(f"tools.isa_gen.{group}")
    except ModuleNotFoundError:
        return None
    return render(mod.rows())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.isa_gen")
    ap.add_argument("--only", default=",".join(GROUPS))
    ap.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = ap.parse_args(argv)
    bad = 0
    for g in args.only.split(","):
        text = generate(g)
        if text is None:
            print(f"{g}: no generator module, skipped")
            continue
        path = Path(DATA_DIR) / f"gfx942_{g}.json"
        if args.check:
            same = path.exists() and path.read_text() == text
            print(f"{path}: {'up to date' if same else 'DIFFERS'}")
            bad += not same
        else:
            path.write_text(text)
            print(f"wrote {path} ({text.count(chr(10))} lines)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

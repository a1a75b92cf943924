"""Regenerate ``python/gcnforge/isa/data/gfx942_*.json`` (and the gfx950 deltas over them,
``gfx950_*.delta.json``) from LLVM 22, bit-for-bit.

    python -m tools.isa_gen [--mcpu gfx942|gfx950] [--only scalar,memory,vector] [--check]

Each group module exposes ``rows() -> list[Instruction]``, probing ``llvm-mc`` with
``common.MCPU``. For a target stored as a delta (``table.DELTA_BASE``) the full table is
generated from LLVM for that target and written as its difference from the committed base
target's file (see ``gcnforge.isa.table``); applying the delta must give the full table back."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from gcnforge.isa import table
from gcnforge.isa.table import DATA_DIR, instruction_to_dict
from tools.isa_gen import common

GROUPS = ("scalar", "memory", "vector")


def render(rows, target: str = "gfx942") -> str:
    rows = sorted(rows, key=lambda i: (i.encoding, i.opcode, i.mnemonic))
    doc = {
        "generator": f"tools/isa_gen (python -m tools.isa_gen); source: LLVM 22 llvm-mc -mcpu={target} + AMD MI300 ISA guide",
        "target": target,
        "instructions": [instruction_to_dict(i) for i in rows],
    }
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def render_delta(full: list[dict], base: list[dict], target: str, base_target: str) -> str:
    """The delta file of ``target`` over ``base_target`` for one group."""
    keys = [table.record_key(d) for d in full]
    if len(set(keys)) != len(keys):
        raise SystemExit(f"{target}: duplicate (encoding, opcode, mnemonic) keys; a delta needs unique keys")
    old = {table.record_key(d): d for d in base}
    new = {table.record_key(d): d for d in full}
    doc = {
        "generator": f"tools/isa_gen (python -m tools.isa_gen --mcpu {target}); source: LLVM 22 llvm-mc -mcpu={target}",
        "target": target,
        "base": base_target,
        "remove": [list(k) for k in sorted(set(old) - set(new))],
        "instructions": [new[k] for k in sorted(new) if old.get(k) != new[k]],
    }
    if table.apply_delta(base, doc) != full:
        raise SystemExit(f"{target}: the delta does not rebuild the generated table")
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def generate(group: str, target: str = "gfx942") -> str | None:
    try:
        mod = importlib.import_module(f"tools.isa_gen.{group}")
    except ModuleNotFoundError:
        return None
    saved, common.MCPU = common.MCPU, target
    try:
        text = render(mod.rows(), target)
    finally:
        common.MCPU = saved
    base = table.DELTA_BASE.get(target)
    if base is None:
        return text
    committed = json.loads((Path(DATA_DIR) / f"{base}_{group}.json").read_text())["instructions"]
    return render_delta(json.loads(text)["instructions"], committed, target, base)


def out_path(group: str, target: str) -> Path:
    suffix = ".delta.json" if target in table.DELTA_BASE else ".json"
    return Path(DATA_DIR) / f"{target}_{group}{suffix}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.isa_gen")
    ap.add_argument("--mcpu", default="gfx942", choices=table.known_targets())
    ap.add_argument("--only", default=",".join(GROUPS))
    ap.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = ap.parse_args(argv)
    bad = 0
    for g in args.only.split(","):
        text = generate(g, args.mcpu)
        if text is None:
            print(f"{g}: no generator module, skipped")
            continue
        path = out_path(g, args.mcpu)
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

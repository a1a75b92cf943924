"""Regenerate ``python/gcnforge/isa/data/gfx942.mfma.json``: shape, data types, execution cycles
and pass count of every gfx942 MFMA / SMFMAC.

    python -m tools.isa_gen.mfma [--check]

Source: AMD's Matrix Instruction Calculator (public repository
ROCm/amd_matrix_instruction_calculator, ``matrix_calculator.py -a CDNA3 -d``, "Execution
cycles", "M/N/K", "blocks", operand types), as committed in the emulator's layout data
``python/gcnforge/emulator/data/mfma_layouts.json`` (regenerated from the calculator by
``emulator/data/gen_mfma_layouts.py``). This script only selects the per-instruction facts
the compiler and the performance model need, so neither has to open the emulator's layout
tables. One pass is four cycles (the ISA guide's MFMA dependency tables count passes; LLVM's
GCNHazardRecognizer takes the same number from its scheduling model). ``xdl``: LLVM's
``is_gfx940_xdl`` (VOP3PInstructions.td): every gfx940 MFMA except the DGEMMs (f64) and the
ones with f32 inputs (``v_mfma_f32_*_f32``: not xf32), which run on the non-XDL path and
need one wait state less after them (checked against clang 22 in tests/passes/test_hazard_rules.py).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = ROOT / "python/gcnforge/emulator/data/mfma_layouts.json"
OUT = ROOT / "python/gcnforge/isa/data/gfx942.mfma.json"


def render() -> str:
    data = json.loads(LAYOUTS.read_text())
    rows = {}
    for name, v in sorted(data["instructions"].items()):
        t = v["types"]
        rows[name] = {"m": v["m"], "n": v["n"], "k": v["k"], "blocks": v["blocks"], "cycles": v["cycles"],
                      "passes": v["cycles"] // 4, "sparse": name.startswith("v_smfmac"),
                      "xdl": not name.startswith("v_mfma_f64") and not re.fullmatch(r"v_mfma_f32_\w+_f32", name),
                      "types": [t["Src0"], t["Src1"], t["Src2"], t["Vdst"]]}
    head = {"generator": "tools/isa_gen/mfma.py (python -m tools.isa_gen.mfma)", "source": data["source"],
            "target": "gfx942"}
    lines = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    body = [f"  {json.dumps(n)}: {json.dumps(r, sort_keys=True)}" for n, r in rows.items()]
    return "{\n" + "\n".join(lines) + '\n "mfma": {\n' + ",\n".join(body) + "\n }\n}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.isa_gen.mfma")
    ap.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print(f"{OUT}: {'up to date' if same else 'DIFFERS'}")
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

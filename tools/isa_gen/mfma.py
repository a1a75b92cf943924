"""Regenerate ``python/gcnforge/isa/data/gfx942.mfma.json``: shape, data types, execution cycles
and pass count of every gfx942 MFMA / SMFMAC; with ``--mcpu gfx950``, ``gfx950.mfma.json``.

    python -m tools.isa_gen.mfma [--mcpu gfx942|gfx950] [--check]

gfx950 (``--mcpu gfx950``, needs LLVM 22's llvm-mca): the file is a delta over gfx942's, so a
shape shared by both targets lives only in gfx942's file. ``remove``: the gfx942 MFMAs
gfx950's instruction table lacks (the xf32 ones); ``passes``: the shared MFMAs whose pass
count differs on gfx950; ``mfma``: rows of the MFMAs gfx950 adds. Pass counts come from
LLVM 22's gfx950 scheduling model (SISchedule.td, the model GCNHazardRecognizer reads its
pass counts from) as ``llvm-mca -mcpu=gfx950`` reports them: an MFMA's ``RThroughput`` is
its ``WriteNPassMAI`` resource cycles, i.e. N (on gfx942 it equals the calculator's count
for every MFMA: tests/isa/test_mfma_facts_gfx950.py); the f8f6f4 rows add ``passes_fp8`` (see
``F8F6F4_FP8_FACTOR``). Shapes of the new MFMAs are read from their LLVM names (``MxNxK``, ``_Nb``
blocks, operand types), which is how LLVM spells them.

Source: AMD's Matrix Instruction Calculator (public repository
ROCm/amd_matrix_instruction_calculator, ``matrix_calculator.py -a CDNA3 -d``, "Execution
cycles", "M/N/K", "blocks", operand types), as committed in the emulator's layout data
``python/gcnforge/isa/data/mfma_layouts.json`` (regenerated from the calculator by
``isa/data/gen_mfma_layouts.py``). This script only selects the per-instruction facts
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
LAYOUTS = ROOT / "python/gcnforge/isa/data/mfma_layouts.json"
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


# The f8f6f4 MFMAs take twice the passes when A or B is FP8/BF8 (AMD CDNA4 ISA guide 7.1: 16x16x128
# is 16 cycles with FP6/FP4 sources, 32 when either is FP8/BF8; LLVM 22 schedules them as
# format-specific pseudo-opcodes, which llvm-mca's one MC opcode does not show: it reports the FP6/FP4
# count). Held to clang 22 -mcpu=gfx950's s_nop counts in tests/passes/test_hazard_rules_gfx950.py.
F8F6F4_FP8_FACTOR = 2

# operand-type names as the gfx942 file (the calculator) spells them, by LLVM name suffix
_TYPES = {"f16": "FP16", "bf16": "BF16", "f32": "FP32", "f64": "FP64", "i8": "int8", "fp8": "FP8", "bf8": "BF8",
          "f8f6f4": "F8F6F4"}
_SHAPE = re.compile(r"v_(?:mfma|smfmac)_(?P<d>[a-z0-9]+)_(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)(?:_(?P<b>\d+)b)?_(?P<ab>\w+)$")


def new_row(name: str, passes: int) -> dict:
    """A row for an MFMA gfx942 lacks, from its LLVM name and its gfx950 pass count."""
    m = _SHAPE.match(name)
    if m is None:
        raise SystemExit(f"{name}: not an MxNxK MFMA name")
    ab = m["ab"].split("_")
    a, b = (ab * 2)[:2] if len(ab) == 1 else ab
    d = {"f32": "FP32", "i32": "int32"}[m["d"]]
    sparse = name.startswith("v_smfmac")
    row = {"m": int(m["m"]), "n": int(m["n"]), "k": int(m["k"]), "blocks": int(m["b"] or 1), "cycles": 4 * passes,
           "passes": passes, "sparse": sparse, "xdl": m["ab"] not in ("f32", "f64"),
           "types": [_TYPES[a], _TYPES[b], "A" if sparse else d, d]}
    if m["ab"] == "f8f6f4":
        row["passes_fp8"] = F8F6F4_FP8_FACTOR * passes
    return row


def mca_passes(lines: dict[str, str], mcpu: str) -> dict[str, int]:
    """``RThroughput`` per MFMA of ``llvm-mca -mcpu=MCPU`` (one line each, in order)."""
    import subprocess
    import tempfile

    sys.path.insert(0, str(ROOT / "python"))
    from gcnforge.llvm_tools import require_tool

    mca = require_tool("llvm-mca")
    with tempfile.NamedTemporaryFile("w", suffix=".s") as f:
        f.write("\n".join(lines.values()) + "\n")
        f.flush()
        out = subprocess.run([mca, "-mtriple=amdgcn", f"-mcpu={mcpu}", "--instruction-info", "--iterations=1", f.name],
                             capture_output=True, text=True, check=True).stdout
    info = out.split("Instruction Info:")[1].split("Resources:")[0]
    rows = [ln.split() for ln in info.split("Instructions:")[1].splitlines()]
    got = [float(r[2]) for r in rows if len(r) > 4 and r[0] == "1" and r[4].startswith(("v_mfma", "v_smfmac"))]
    if len(got) != len(lines):
        raise SystemExit(f"llvm-mca reported {len(got)} MFMAs for {len(lines)} lines")
    return {n: int(g) for n, g in zip(lines, got)}


def mfma_lines(target: str) -> dict[str, str]:
    """One assembly line per MFMA of ``target``'s instruction table (VGPR operands, aligned)."""
    sys.path.insert(0, str(ROOT / "python"))
    from gcnforge.isa import table

    out = {}
    for i in table.instructions(target):
        if i.sem != "mfma" or i.mnemonic in out:
            continue
        regs, at = [], 0
        for o in i.operands:
            if o.name == "src2" and not i.mnemonic.startswith("v_smfmac"):
                regs.append(regs[0])  # SrcC = vdst
                continue
            regs.append(f"v{at}" if o.dwords == 1 else f"v[{at}:{at + o.dwords - 1}]")
            at = -(-(at + o.dwords) // 8) * 8
        out[i.mnemonic] = f"{i.mnemonic} {', '.join(regs)}"
    return out


def render_gfx950() -> str:
    base = json.loads(OUT.read_text())["mfma"]
    passes = mca_passes(mfma_lines("gfx950"), "gfx950")
    head = {"generator": "tools/isa_gen/mfma.py (python -m tools.isa_gen.mfma --mcpu gfx950)",
            "source": "LLVM 22 gfx950 scheduling model (llvm-mca -mcpu=gfx950 RThroughput = passes); "
                      "shapes of new MFMAs from their names",
            "target": "gfx950", "base": "gfx942"}
    lines = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append(f' "remove": {json.dumps(sorted(set(base) - set(passes)))},')
    changed = {n: p for n, p in sorted(passes.items()) if n in base and base[n]["passes"] != p}
    lines.append(f' "passes": {json.dumps(changed, sort_keys=True)},')
    body = [f"  {json.dumps(n)}: {json.dumps(new_row(n, p), sort_keys=True)}" for n, p in sorted(passes.items())
            if n not in base]
    return "{\n" + "\n".join(lines) + '\n "mfma": {\n' + ",\n".join(body) + "\n }\n}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.isa_gen.mfma")
    ap.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    ap.add_argument("--mcpu", default="gfx942", choices=("gfx942", "gfx950"))
    args = ap.parse_args(argv)
    text = render() if args.mcpu == "gfx942" else render_gfx950()
    out = OUT if args.mcpu == "gfx942" else OUT.with_name("gfx950.mfma.json")
    if args.check:
        same = out.exists() and out.read_text() == text
        print(f"{out}: {'up to date' if same else 'DIFFERS'}")
        return 0 if same else 1
    out.write_text(text)
    print(f"wrote {out} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate ``mfma_layouts.json`` from AMD's Matrix Instruction Calculator.

The register layouts of the gfx942 (CDNA3) MFMA instructions are facts published by AMD
in the public repository ROCm/amd_matrix_instruction_calculator (``matrix_calculator.py``,
commit 2ef9189). This script runs that tool (kept OUTSIDE this repository; none of its
code is copied here) and records, for every dense CDNA3 MFMA, which register slot and
lane hold each element of A, B and D (C has D's layout), plus the instruction's shape,
data types and pass count. It also records a few layouts under the CBSZ/ABID/BLGP
modifiers as test vectors for the emulator's modifier rules.

Usage: python gen_mfma_layouts.py /path/to/matrix_calculator.py  (needs ``tabulate``)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

CELL = re.compile(r"([ABDK])\[(\d+)\]\[(\d+)\](?:\.B(\d+))?")
COL = re.compile(r"v(?:\[(\d+):(\d+)\]|(\d+))(?:\.\[(\d+):(\d+)\])?")


def run(calc: str, *args: str) -> str:
    return subprocess.run([sys.executable, calc, "-a", "CDNA3", *args], check=True,
                          capture_output=True, text=True).stdout


def layout(calc: str, inst: str, matrix: str, *mods: str) -> dict:
    """-> {"cols": [[first_reg, bit_lo, bits]], "cells": [[lane, col, i, j, block], ...]}"""
    text = run(calc, "-i", inst, f"-{matrix}", "-M", "-c", *mods)  # -k: the compression indices
    rows = [ln for ln in text.splitlines() if ln and ln[0].isdigit() or ln.startswith("lane,")]
    header = rows[0].split(",")[1:]
    cols = []
    for h in header:
        m = COL.fullmatch(h)
        assert m, h
        if m.group(3) is not None:  # v3 or v3.[15:0]
            reg = int(m.group(3))
            lo, bits = (int(m.group(5)), int(m.group(4)) - int(m.group(5)) + 1) if m.group(4) else (0, 32)
        else:  # v[1:0]: a 64-bit element
            reg, lo, bits = int(m.group(2)), 0, 64
        cols.append([reg, lo, bits])
    cells = []
    for ln in rows[1:]:
        parts = ln.split(",")
        lane = int(parts[0])
        for c, cell in enumerate(parts[1:]):
            for mm in CELL.finditer(cell):
                cells.append([lane, c, int(mm.group(2)), int(mm.group(3)), int(mm.group(4) or 0)])
    return {"cols": cols, "cells": cells}


def detail(calc: str, inst: str) -> dict:
    text = run(calc, "-i", inst, "-d")
    get = lambda key: re.search(rf"{key}:\s*(\S+)", text).group(1)  # noqa: E731
    types = dict(re.findall(r"(Src0|Src1|Src2|Vdst): (\S+)", text))
    return {"m": int(get("M")), "n": int(get("N")), "k": int(get("K")), "blocks": int(get("blocks")),
            "cycles": int(get("Execution cycles")), "types": types,
            "gprs": {x: int(m.group(1)) for x in "ABCD"
                     if (m := re.search(rf"GPRs required for {x}:\s*(\d+)", text))}}


def main(calc: str) -> None:
    names = [ln.strip() for ln in run(calc, "-L").splitlines() if ln.strip().startswith(("v_mfma", "v_smfmac"))]
    out = {"source": "ROCm/amd_matrix_instruction_calculator matrix_calculator.py @2ef9189, -a CDNA3",
           "instructions": {}, "modifier_vectors": []}
    for name in names:
        d = detail(calc, name)
        d["A"] = layout(calc, name, "A")
        d["B"] = layout(calc, name, "B")
        d["D"] = layout(calc, name, "D")
        if name.startswith("v_smfmac"):  # sparse A: per 4-element chunk, 2 stored values + 4 index bits
            d["sparse"] = True
            d["K"] = layout(calc, name, "k")
        out["instructions"][name] = d
    # Modifier test vectors (the emulator applies CBSZ/ABID/BLGP by rule; these check it).
    for name, mat, mods in [
        ("v_mfma_f32_4x4x4_16b_f16", "A", ("--cbsz", "2", "--abid", "1")),
        ("v_mfma_f32_4x4x4_16b_f16", "A", ("--cbsz", "4", "--abid", "15")),
        ("v_mfma_f32_16x16x4_4b_f16", "A", ("--cbsz", "1", "--abid", "1")),
        ("v_mfma_f32_32x32x1_2b_f32", "A", ("--cbsz", "1", "--abid", "1")),
        ("v_mfma_f32_4x4x1_16b_f32", "B", ("--blgp", "1")),
        ("v_mfma_f32_4x4x1_16b_f32", "B", ("--blgp", "2")),
        ("v_mfma_f32_4x4x1_16b_f32", "B", ("--blgp", "3")),
        ("v_mfma_f32_4x4x1_16b_f32", "B", ("--blgp", "4")),
        ("v_mfma_f32_4x4x1_16b_f32", "B", ("--blgp", "5")),
        ("v_mfma_f32_4x4x1_16b_f32", "B", ("--blgp", "6")),
        ("v_mfma_f32_4x4x1_16b_f32", "B", ("--blgp", "7")),
        ("v_mfma_f32_4x4x4_16b_f16", "B", ("--blgp", "3")),
    ]:
        out["modifier_vectors"].append({"inst": name, "matrix": mat, "mods": list(mods),
                                        **layout(calc, name, mat, *mods)})
    path = Path(__file__).with_name("mfma_layouts.json")
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(names)} instructions)")


if __name__ == "__main__":
    main(sys.argv[1])

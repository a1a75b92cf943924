"""Regenerate ``mfma_layouts.json`` from AMD's Matrix Instruction Calculator.

The register layouts of the gfx942 (CDNA3) MFMA instructions are facts published by AMD
in the public repository ROCm/amd_matrix_instruction_calculator (``matrix_calculator.py``,
commit 2ef9189). This script runs that tool (kept OUTSIDE this repository; none of its
code is copied here) and records, for every dense CDNA3 MFMA, which register slot and
lane hold each element of A, B and D (C has D's layout), plus the instruction's shape,
data types and pass count. It also records a few layouts under the CBSZ/ABID/BLGP
modifiers as test vectors for the emulator's modifier rules.

Usage: python gen_mfma_layouts.py /path/to/matrix_calculator.py  (needs ``tabulate``)
       python gen_mfma_layouts.py --gfx950   (mfma_layouts_gfx950.json; see gfx950() below)
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


# ---- gfx950 (CDNA4) ---------------------------------------------------------------------------------
# The calculator has no CDNA4 yet (commit 2ef9189 lists CDNA1-3 and RDNA3-4; the request is the open
# issue ROCm/amd_matrix_instruction_calculator#7), so the layouts of the MFMA shapes new in gfx950
# are built here from the rule AMD documents for them (CDNA4 ISA guide, chapter 7 "Matrix
# Arithmetic Instructions", as worked out in AMD's ROCm blog "Matrix Core Programming on AMD CDNA3
# and CDNA4 architecture", 2025-10-01, section 5.4/5.5 HIP examples):
#   * A row i = lane % M (B column j = lane % N); the lane group g = lane // M holds a run of K.
#   * A lane's operand bits are read in 128-bit chunks; within a chunk the elements are consecutive
#     K indices, element e at bit e * width (low bits first); chunk c of every lane group comes after
#     chunk c - 1 of all groups: k = c * (K / chunks) + g * per_chunk + e.
#     fp8/bf8 in the f8f6f4 MFMAs: 2 chunks of 16 (blog 5.4: lane 0 holds K 0-15 and 32-47 of
#     32x32x64); fp4: one chunk of 32 (blog 5.5: lane 0 holds K 0-31, lane 32 K 32-63);
#     16-bit and i8 shapes: one chunk (8 resp. 16 elements).
#   * fp6/bf6 (192 bits a lane, not a whole number of chunks): 32 consecutive K, element e at bits
#     6e..6e+5 of the lane's 6 dwords (crossing dword boundaries). NOT confirmed by an AMD example.
#   * C/D: the layout of the CDNA3 MFMA with the same M x N (calculator facts, mfma_layouts.json).
# The shapes present on gfx942 keep the calculator's CDNA3 layouts (mfma_layouts.json).
GFX950_DENSE = {  # name: (m, n, k, A/B element type, C/D type, the CDNA3 MFMA whose D layout is shared)
    "v_mfma_f32_16x16x32_f16": (16, 16, 32, "FP16", "FP32", "v_mfma_f32_16x16x16_f16"),
    "v_mfma_f32_16x16x32_bf16": (16, 16, 32, "BF16", "FP32", "v_mfma_f32_16x16x16_f16"),
    "v_mfma_f32_32x32x16_f16": (32, 32, 16, "FP16", "FP32", "v_mfma_f32_32x32x8_f16"),
    "v_mfma_f32_32x32x16_bf16": (32, 32, 16, "BF16", "FP32", "v_mfma_f32_32x32x8_f16"),
    "v_mfma_i32_16x16x64_i8": (16, 16, 64, "int8", "int32", "v_mfma_i32_16x16x32_i8"),
    "v_mfma_i32_32x32x32_i8": (32, 32, 32, "int8", "int32", "v_mfma_i32_32x32x16_i8"),
    "v_mfma_f32_16x16x128_f8f6f4": (16, 16, 128, "f8f6f4", "FP32", "v_mfma_f32_16x16x16_f16"),
    "v_mfma_f32_32x32x64_f8f6f4": (32, 32, 64, "f8f6f4", "FP32", "v_mfma_f32_32x32x8_f16"),
}
# f8f6f4 operand formats by CBSZ (A) / BLGP (B) value (LLVM 22 / CDNA4 ISA guide): bits per element
F8F6F4_FORMATS = {0: ("FP8", 8), 1: ("BF8", 8), 2: ("FP6", 6), 3: ("BF6", 6), 4: ("FP4", 4)}
_WIDTH = {"FP16": 16, "BF16": 16, "int8": 8}


def input_layout(rows: int, k: int, width: int, transpose: bool) -> dict:
    """The A (rows = M) or B (rows = N, ``transpose``: cells are [k][j]) layout by the rule above."""
    groups = 64 // rows
    per_lane = k // groups
    chunks = 2 if width == 8 and per_lane * width == 256 else 1  # two 128-bit chunks (f8f6f4 fp8)
    per_chunk = per_lane // chunks
    cols, cells, col_of = [], [], {}
    for lane in range(64):
        r, g = lane % rows, lane // rows
        for e in range(per_lane):
            c, ec = divmod(e, per_chunk)
            kk = c * (k // chunks) + g * per_chunk + ec
            bit = e * width
            key = (bit // 32, bit % 32, width)
            if key not in col_of:
                col_of[key] = len(cols)
                cols.append(list(key))
            cells.append([lane, col_of[key]] + ([kk, r] if transpose else [r, kk]) + [0])
    return {"cols": cols, "cells": cells}


def gfx950(path: Path | None = None) -> None:
    base = json.loads(Path(__file__).with_name("mfma_layouts.json").read_text())["instructions"]
    out = {"source": "rule of the CDNA4 ISA guide ch. 7 (see gen_mfma_layouts.py); C/D from the CDNA3 "
                     "calculator layouts; the calculator has no CDNA4 (ROCm/amd_matrix_instruction_calculator#7)",
           "instructions": {}}
    for name, (m, n, k, ty, cd, dref) in GFX950_DENSE.items():
        d = {"m": m, "n": n, "k": k, "blocks": 1, "gprs": {"C": base[dref]["gprs"]["D"], "D": base[dref]["gprs"]["D"]},
             "D": base[dref]["D"]}
        if ty == "f8f6f4":
            d["types"] = {"Src0": ty, "Src1": ty, "Src2": cd, "Vdst": cd}
            d["formats"] = {}
            for code, (fmt, width) in F8F6F4_FORMATS.items():
                d["formats"][fmt] = {"code": code, "bits": width, "gprs": m * k * width // 64 // 32,
                                     "A": input_layout(m, k, width, False), "B": input_layout(n, k, width, True)}
        else:
            w = _WIDTH[ty]
            d["types"] = {"Src0": ty, "Src1": ty, "Src2": cd, "Vdst": cd}
            d["gprs"].update(A=m * k * w // 64 // 32, B=n * k * w // 64 // 32)
            d["A"], d["B"] = input_layout(m, k, w, False), input_layout(n, k, w, True)
        out["instructions"][name] = d
    path = path or Path(__file__).with_name("mfma_layouts_gfx950.json")
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(out['instructions'])} instructions)")


if __name__ == "__main__":
    gfx950() if sys.argv[1:] == ["--gfx950"] else main(sys.argv[1])

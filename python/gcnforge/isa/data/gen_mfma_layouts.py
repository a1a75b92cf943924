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
    # 128-bit chunks: two for 256 bits a lane (f8f6f4 fp8, the SMFMACs' B), else one (fp6's 192 bits: see above)
    chunks = per_lane * width // 128 if per_lane * width % 128 == 0 else 1
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


# ---- gfx950 SMFMAC (4:2 structured-sparse A) ----------------------------------------------------------
# The calculator has no CDNA4, and no AMD worked example shows these layouts; they are built by the same
# 128-bit-chunk rule, which AMD's composable_kernel states for exactly these instructions
# (ck_tile/core/arch/mma/sparse: the gfx950 amdgcn_mma<..., MmaOpFamily::SPARSE> specialisations give
# kABKPerLane = 16 (16-bit) / 32 (8-bit) dense K a lane, kAKNumAccess = 1, kBKNumAccess = 2):
#   * A is stored compressed: two of every four dense K, 128 bits a lane = ONE chunk, so lane group
#     g = lane // M holds the dense K run [g * P, g * P + P) (P = 16 resp. 32) of row lane % M. Register
#     slot q (32 bits for 16-bit values, 16 bits for 8-bit) holds the two kept values of the lane's q-th
#     group of four, the first in its low half (the CDNA3 calculator's convention).
#   * B is dense, 256 bits a lane = TWO chunks: chunk c of lane group g holds K c * K/2 + g * P/2 + e.
#     (So A's lane group 1 pairs with B's lane group 2 in the first chunk: the operands differ.)
#   * The compression index (Src2): nibble q of the lane's index set = the positions (bits [1:0] first
#     kept value, [3:2] second) of its q-th group of four. A set is 16 bits for 16-bit sources (ABID
#     picks one of two) and all 32 bits for 8-bit sources (LLVM PR #193541, "Correct gfx950 smfmac sparse
#     index verifier", citing the CDNA4 ISA's layout tables; gfx942 uses 8 resp. 16-bit sets).
#   * C/D: the layout of the CDNA3 MFMA with the same M x N (as for the dense shapes).
GFX950_SPARSE = {  # name: (m, n, k, A/B type, C/D type, the CDNA3 MFMA whose D layout is shared)
    "v_smfmac_f32_16x16x64_f16": (16, 16, 64, "FP16", "FP32", "v_mfma_f32_16x16x16_f16"),
    "v_smfmac_f32_16x16x64_bf16": (16, 16, 64, "BF16", "FP32", "v_mfma_f32_16x16x16_f16"),
    "v_smfmac_f32_32x32x32_f16": (32, 32, 32, "FP16", "FP32", "v_mfma_f32_32x32x8_f16"),
    "v_smfmac_f32_32x32x32_bf16": (32, 32, 32, "BF16", "FP32", "v_mfma_f32_32x32x8_f16"),
    "v_smfmac_i32_16x16x128_i8": (16, 16, 128, "int8", "int32", "v_mfma_i32_16x16x32_i8"),
    "v_smfmac_i32_32x32x64_i8": (32, 32, 64, "int8", "int32", "v_mfma_i32_32x32x16_i8"),
    **{f"v_smfmac_f32_16x16x128_{a}_{b}": (16, 16, 128, a.upper(), "FP32", "v_mfma_f32_16x16x16_f16")
       for a in ("fp8", "bf8") for b in ("fp8", "bf8")},
    **{f"v_smfmac_f32_32x32x64_{a}_{b}": (32, 32, 64, a.upper(), "FP32", "v_mfma_f32_32x32x8_f16")
       for a in ("fp8", "bf8") for b in ("fp8", "bf8")},
}
_WIDTH.update(FP8=8, BF8=8)


def sparse_a_layout(m: int, k: int, width: int) -> tuple[dict, dict]:
    """(A, K) layouts of a gfx950 SMFMAC by the rule above: cells [lane, slot, i, dense k, 0]; an A
    slot holds a pair of values, a K slot one 4-bit index."""
    per_lane = k // (64 // m)  # dense K a lane
    a_cols, k_cols, a_cells, k_cells = [], [], [], []
    for q in range(per_lane // 4):
        bit = q * 2 * width
        a_cols.append([bit // 32, bit % 32, 2 * width])
        k_cols.append([0, 4 * q, 4])
    for lane in range(64):
        r, g = lane % m, lane // m
        for q in range(per_lane // 4):
            for p in range(4):
                kk = g * per_lane + 4 * q + p
                a_cells.append([lane, q, r, kk, 0])
                k_cells.append([lane, q, r, kk, 0])
    return {"cols": a_cols, "cells": a_cells}, {"cols": k_cols, "cells": k_cells}


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
    for name, (m, n, k, ty, cd, dref) in GFX950_SPARSE.items():
        w = _WIDTH[ty]
        a, kl = sparse_a_layout(m, k, w)
        tb = ty if ty in ("FP16", "BF16", "int8") else name.rsplit("_", 1)[1].upper()
        out["instructions"][name] = {
            "m": m, "n": n, "k": k, "blocks": 1, "sparse": True, "index_bits": 16 if w == 16 else 32,
            "types": {"Src0": ty, "Src1": tb, "Vdst": cd},
            "gprs": {"A": m * k * w // 2 // 64 // 32, "B": n * k * w // 64 // 32, "C": base[dref]["gprs"]["D"],
                     "D": base[dref]["gprs"]["D"]},
            "A": a, "B": input_layout(n, k, w, True), "K": kl, "D": base[dref]["D"]}
    path = path or Path(__file__).with_name("mfma_layouts_gfx950.json")
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({len(out['instructions'])} instructions)")


if __name__ == "__main__":
    gfx950() if sys.argv[1:] == ["--gfx950"] else main(sys.argv[1])

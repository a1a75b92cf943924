"""gfx950 block-scaled MFMAs through the builder: built with their scale VGPRs, scale-byte
selectors (op_sel / op_sel_hi) and A/B formats (cbsz / blgp, which size A and B), printed as
assembly that llvm-mc -mcpu=gfx950 accepts and encodes with the fields the builder was given
(the 16-byte pair: v_mfma_ld_scale_b32's VOP3P word pair, then the MFMA's, CDNA4 ISA guide)."""

from __future__ import annotations

import re
import subprocess

import pytest

from gcnforge.builder import Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.isa import table
from gcnforge.translate.inst_text import inst_text
from gcnforge.testing import require_llvm

WIDTH = {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}  # A/B VGPRs by format (LLVM's VReg_256/192/128 operands)
# (shape, cbsz, blgp, op_sel, op_sel_hi)
CASES = [("16x16x128", 0, 0, [0, 0], [0, 0]), ("16x16x128", 4, 4, [1, 0, 0], [0, 1, 0]),
         ("16x16x128", 1, 2, [0, 1], [1, 1]), ("32x32x64", 3, 4, [1, 1, 0], [1, 0, 0]),
         ("32x32x64", 2, 0, [0, 0, 0], [0, 0, 0]), ("32x32x64", 4, 1, [0, 1], [0, 1])]


def _module():
    m = Module("scaled", target="gfx950")
    with m.kernel("k") as k:
        for shape, cbsz, blgp, sel, hi in CASES:
            acc = k.vgpr(0, 4 if shape.startswith("16") else 16)
            a, b = k.vgpr(16, WIDTH[cbsz]), k.vgpr(24, WIDTH[blgp])
            k.inst(f"v_mfma_scale_f32_{shape}_f8f6f4", acc, a, b, acc, k.vgpr(40), k.vgpr(41 + cbsz),
                   op_sel=sel, op_sel_hi=hi, cbsz=cbsz, blgp=blgp)
    m.verify()
    return m


def test_llvm_mc_encodes_the_builders_fields():
    tools = require_llvm("llvm-mc")
    m = _module()
    with table.use_target("gfx950"):
        lines = [inst_text(op) for op in m.top.walk() if isinstance(op, InstOp)]
    assert len(lines) == len(CASES)
    out = subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    encs = [bytes(int(b, 16) for b in e.split(",")) for e in re.findall(r"encoding: \[([^\]]*)\]", out.stdout)]
    assert len(encs) == len(CASES)
    for (shape, cbsz, blgp, sel, hi), enc, line in zip(CASES, encs, lines, strict=True):
        assert len(enc) == 16, line
        lo, mf = int.from_bytes(enc[:8], "little"), int.from_bytes(enc[8:], "little")
        # ld_scale word pair (VOP3P): op_sel [12:11], src0 [40:32], src1 [49:41], op_sel_hi [60:59]
        assert ((lo >> 11) & 1, (lo >> 12) & 1) == tuple(sel[:2]), line
        assert ((lo >> 59) & 1, (lo >> 60) & 1) == tuple(hi[:2]), line
        assert ((lo >> 32) & 0x1FF, (lo >> 41) & 0x1FF) == (256 + 40, 256 + 41 + cbsz), line
        # MFMA word pair (VOP3P-MAI): cbsz [10:8], abid bit 0 [11] (scaled), blgp [63:61]
        assert ((mf >> 8) & 7, (mf >> 11) & 1, mf >> 61) == (cbsz, 1, blgp), line
        assert (mf >> 16) & 0x7F == (0x2D if shape.startswith("16") else 0x2E), line


def test_builtin_assembler_agrees():
    from gcnforge.asm import parse_instruction
    from gcnforge.diagnostics import SourceLoc

    tools = require_llvm("llvm-mc")
    m = _module()
    with table.use_target("gfx950"):
        lines = [inst_text(op) for op in m.top.walk() if isinstance(op, InstOp)]
        ours = [parse_instruction(t, SourceLoc("<t>", 1, 1)).encode(0, lambda _l: 0) for t in lines]
    out = subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60, check=True).stdout
    theirs = [bytes(int(b, 16) for b in e.split(",")) for e in re.findall(r"encoding: \[([^\]]*)\]", out)]
    assert ours == theirs


@pytest.mark.parametrize("mods,msg", [
    ({"op_sel": [2, 0]}, "op_sel takes 2 or 3 entries of 0 or 1"),
    ({"op_sel_hi": [1]}, "op_sel_hi takes 2 or 3 entries"),
    ({"op_sel": [0, 0, 0, 0]}, "op_sel takes 2 or 3 entries"),
    ({"cbsz": 0}, "src0 must be 8 dword(s) wide"),  # fp8 A is 8 VGPRs, fp4 is 4
    ({"abid": 1}, "unknown modifier"),
])
def test_bad_forms_are_located_diagnostics(mods, msg):
    m = Module("bad", target="gfx950")
    with m.kernel("k") as k:
        a = k.vgpr(0, 4)
        with pytest.raises(Diagnostic, match=re.escape(msg)) as e:
            k.v_mfma_scale_f32_16x16x128_f8f6f4(a, k.vgpr(4, 4), a, k.vgpr(8), k.vgpr(9),
                                                **{"cbsz": 4, "blgp": 4, **mods})
    assert e.value.loc is not None and "test_scaled_mfma.py" in str(e.value)


def test_not_a_gfx942_instruction():
    m = Module("old")  # gfx942
    with m.kernel("k") as k:
        with pytest.raises(Diagnostic, match="not a gfx942 instruction|not an instruction of the gfx942"):
            k.inst("v_mfma_scale_f32_16x16x128_f8f6f4", k.vgpr(0, 4), k.vgpr(4, 4), k.vgpr(0, 4), k.vgpr(8), k.vgpr(9))

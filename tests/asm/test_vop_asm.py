"""Vector-ALU assembler/disassembler behaviour that the corpus does not show by itself:
bad input gives a Diagnostic at the right column (and LLVM refuses the same line, checked
live), decoded operand values for the emulator, and the e32/e64/sdwa/dpp choice."""

from __future__ import annotations

import pytest

from gcnforge.asm import decode, disassemble, parse_instruction
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.testing import require_llvm

LOC = SourceLoc("t.s", 7, 1)

# (line, column of the offending token, words the message must contain)
BAD = [
    ("v_add_f32_e64 v1, 0x1234, v3", 19, "literal"),
    ("v_add_f32 v1, s2, s3", 19, "vsrc1"),
    ("v_add_f64 v[1:2], v[2:3], v[4:5]", 11, "alignment"),
    ("v_add_f32_e32 v1, a2, v3", 19, "AGPR"),
    ("v_add_f32 v1, v2", 15, "number of operands"),
    ("v_mov_b32 v1, v2 row_shl:16", 26, "row_shl"),
    ("v_mov_b64 v[0:1], v[2:3] row_shl:1", 34, "row_newbcast"),
    ("v_cmp_lt_f32_e32 s[0:1], v1, v2", 18, "vcc"),
    ("v_pk_add_f16 v1, v2, v3 op_sel:[1,2]", 32, "0 or 1"),
    ("v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], v[0:15]", 49, "same register file"),
    ("v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:8", 62, "cbsz"),
    ("v_add_u16 v1, 0x12345, v2", 15, "16-bit"),
    ("v_readlane_b32 s1, v2, v3", 24, "VGPR"),
    ("v_readfirstlane_b32 m0, v2", 21, "m0"),
    ("v_add_f32 v1, -v2, v3 mul:3", 27, "mul:2"),
    ("v_fmamk_f32 v1, s2, 0x1234, v3", 17, "constant bus"),
    ("v_cndmask_b32_e32 v1, s2, v3, vcc", 23, "constant bus"),
    ("v_add_f32_e64 v1, s1, s2", 23, "constant bus"),
    ("v_add_u32_sdwa v1, v2, v3 dst_sel:WORD_2", 35, "dst_sel"),
    ("v_add_u32_e64 v1, sext(v2), v3", 19, "sext"),
    ("v_add_f32_sdwa v1, 0x1234, v3", 20, "literal"),
    ("v_accvgpr_write_b32 v1, v2", 21, "AGPR"),
    ("v_pk_fma_f32 v[0:1], v[2:3], v[4:5]", 30, "number of operands"),
    ("v_add_f32_e64 v1, v2, v3 clamp clamp", 32, "duplicate"),
    ("v_mov_b32 v1, src_flat_scratch_base_lo", 15, "invalid"),
]


@pytest.mark.parametrize("line,col,words", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_located_diagnostic(line, col, words):
    with pytest.raises(Diagnostic) as ei:
        parse_instruction(line, LOC)
    d = ei.value
    assert d.loc.file == "t.s" and d.loc.line == 7
    assert d.loc.col == col, str(d)
    assert words.lower() in d.message.lower(), str(d)


def test_llvm_refuses_the_same_bad_lines():
    require_llvm("llvm-mc")
    from tools.isa_gen import common

    res = common.assemble([b[0] for b in BAD])
    accepted = [b[0] for b, (enc, err) in zip(BAD, res) if enc is not None]
    assert not accepted, f"LLVM accepts lines we reject: {accepted}"


def _values(text):
    di = decode(parse_instruction(text, LOC).encode())
    return di, {o.name: o for o in di.operands}


def test_operand_values_for_the_emulator():
    di, v = _values("v_add_f32_e64 v1, -|s2|, 1.0 clamp")
    assert (v["vdst"].file, v["vdst"].index) == ("v", 1)
    assert (v["src0"].file, v["src0"].index) == ("s", 2)
    assert v["src1"].file is None and v["src1"].value == 0x3F800000
    assert di.modifiers["clamp"] == 1 and di.modifiers["neg"] & 1 and di.modifiers["abs"] & 1

    di, v = _values("v_add_f16 v1, 0.5, v2")
    assert v["src0"].value == 0x3800  # inline constant converted for the f16 operand

    di, v = _values("v_fma_f64 v[0:1], v[2:3], 1.0, v[4:5]")
    assert v["src1"].value == 0x3FF0000000000000 and v["src0"].dwords == 2

    di, v = _values("v_mul_f32 v3, 0x40490fdb, v4")
    assert v["src0"].literal and v["src0"].value == 0x40490FDB and di.size == 8

    di, v = _values("v_mfma_f32_32x32x8_f16 a[0:15], a[16:17], v[2:3], a[0:15]")
    assert (v["vdst"].file, v["vdst"].dwords) == ("a", 16)
    assert (v["src0"].file, v["src0"].index) == ("a", 16)
    assert v["src1"].file == "v" and v["src2"].file == "a"

    di, v = _values("v_cmp_gt_u32_e64 s[4:5], v1, 7")
    assert (v["sdst"].file, v["sdst"].index, v["sdst"].dwords) == ("s", 4, 2) and v["src1"].value == 7

    di, v = _values("v_add_co_u32_e32 v1, vcc, v2, v3")
    assert v["sdst"].file == "vcc" and di.inst.implicit_defs == ("vcc",)

    di, v = _values("v_mov_b32_sdwa v1, s7 dst_sel:WORD_1 src0_sel:BYTE_2")
    assert (v["src0"].file, v["src0"].index) == ("s", 7)
    assert di.modifiers["dst_sel"] == 5 and di.modifiers["src0_sel"] == 2

    di, v = _values("v_mov_b32_dpp v1, v2 row_shr:3 row_mask:0x5 bank_mask:0xa")
    assert {k: di.modifiers[k] for k in ("dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl")} == {
        "dpp_ctrl": 0x113, "row_mask": 5, "bank_mask": 10, "bound_ctrl": 0}
    di, v = _values("v_add_f32_dpp v1, -v2, |v3| row_shl:1")
    assert di.modifiers["src0_neg"] == 1 and di.modifiers["src1_abs"] == 1


@pytest.mark.parametrize("line,mnemonic", [
    ("v_add_f32 v1, v2, v3", "v_add_f32_e32"),
    ("v_add_f32 v1, s2, v3", "v_add_f32_e32"),
    ("v_add_f32 v1, v2, s3", "v_add_f32_e64"),
    ("v_add_f32 v1, -v2, v3", "v_add_f32_e64"),
    ("v_add_f32 v1, v2, v3 clamp", "v_add_f32_e64"),
    ("v_add_f32 v1, v2, v3 src0_sel:WORD_1", "v_add_f32_sdwa"),
    ("v_add_f32 v1, v2, v3 quad_perm:[0,0,1,1]", "v_add_f32_dpp"),
    ("v_cmp_lt_f32 vcc, v1, v2", "v_cmp_lt_f32_e32"),
    ("v_cmp_lt_f32 s[0:1], v1, v2", "v_cmp_lt_f32_e64"),
    ("v_cndmask_b32 v1, v2, v3, s[4:5]", "v_cndmask_b32_e64"),
    ("v_fma_f32_e64 v1, v2, v3, v4", "v_fma_f32"),
])
def test_encoding_choice_without_suffix(line, mnemonic):
    pi = parse_instruction(line, LOC)
    assert pi.inst.mnemonic == mnemonic
    assert decode(pi.encode()).text().split()[0] == mnemonic


def test_undecodable_and_truncated_bytes_never_raise():
    # a VOP3 word without its second dword, and a literal-taking e32 op without its literal
    for blob in (bytes.fromhex("010001d1"), bytes.fromhex("ff020a7e"), bytes(range(256)) * 3):
        for _pc, di in disassemble(blob):
            assert di.size >= 4 and di.text()

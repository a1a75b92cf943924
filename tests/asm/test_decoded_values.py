"""What the emulator reads from ``DecodedInst``: operand files/indices/widths, immediate
bit patterns (inline constants converted for the operand type, literals), modifiers."""

from __future__ import annotations

from gcnforge.asm import decode, disassemble, parse_instruction
from gcnforge.diagnostics import SourceLoc


def _d(text: str):
    return decode(parse_instruction(text, SourceLoc("t", 1)).encode())


def test_scalar_operand_values():
    di = _d("s_add_u32 s5, 1.0, 0x1234")
    dst, a, b = di.operands
    assert (dst.file, dst.index, dst.dwords) == ("s", 5, 1)
    assert a.file is None and a.value == 0x3F800000 and not a.literal
    assert b.value == 0x1234 and b.literal and di.literal == 0x1234 and di.size == 8
    di = _d("s_mov_b64 vcc, -1")
    assert (di.operands[0].file, di.operands[0].dwords) == ("vcc", 2)
    assert di.operands[1].value == 0xFFFFFFFFFFFFFFFF
    di = _d("s_mov_b64 s[2:3], 1.0")
    assert di.operands[1].value == 0x3FF0000000000000
    di = _d("s_mov_b32 ttmp3, exec_lo")
    assert (di.operands[0].file, di.operands[0].index) == ("ttmp", 3)
    assert di.operands[1].file == "exec_lo"


def test_branch_and_waitcnt_values():
    out = disassemble(parse_instruction("s_branch -2", SourceLoc("t", 1)).encode(), base_pc=0x100)
    (pc, di), = out
    assert di.operands[0].value == -2
    assert di.text(pc, lambda a: f"L_{a:x}") == "s_branch L_fc"
    di = _d("s_waitcnt vmcnt(1) lgkmcnt(2)")
    assert di.operands[0].value == 0x0271  # vmcnt[3:0]=1, expcnt=7, lgkmcnt=2


def test_memory_operand_values():
    di = _d("global_load_dwordx2 a[2:3], v4, s[6:7] offset:-8 sc0")
    vdst, vaddr, saddr = di.operands
    assert (vdst.file, vdst.index, vdst.dwords) == ("a", 2, 2)
    assert (vaddr.file, vaddr.dwords) == ("v", 1) and (saddr.file, saddr.index, saddr.dwords) == ("s", 6, 2)
    assert di.modifiers["offset"] == -8 and di.modifiers["sc0"] == 1
    di = _d("buffer_load_dword v1, v[2:3], s[8:11], 0 idxen offen offset:16")
    vdata, vaddr, srsrc, soff = di.operands
    assert (vaddr.file, vaddr.index, vaddr.dwords) == ("v", 2, 2)
    assert (srsrc.file, srsrc.index, srsrc.dwords) == ("s", 8, 4) and soff.value == 0
    di = _d("ds_write2_b32 v1, v2, v3 offset0:4 offset1:8")
    assert [o.name for o in di.operands] == ["addr", "data0", "data1"]
    assert di.modifiers == {"offset0": 4, "offset1": 8}
    di = _d("s_load_dwordx4 s[4:7], s[0:1], s8 offset:0x10")
    assert di.operands[2].file == "s" and di.operands[2].index == 8 and di.modifiers["offset"] == 0x10


def test_sdwa_compare_to_vcc_is_vcc():
    # SDWA VOPC with SD=0 writes vcc whatever the SDST field holds (ISA guide "SDWA": SD)
    di = _d("v_cmp_class_f32_sdwa vcc, v22, v20 src0_sel:WORD_1 src1_sel:DWORD")
    assert (di.operands[0].file, di.operands[0].index, di.operands[0].dwords) == ("vcc", 106, 2)
    di = _d("v_cmp_class_f32_sdwa s[4:5], v22, v20 src0_sel:WORD_1 src1_sel:DWORD")
    assert (di.operands[0].file, di.operands[0].index) == ("s", 4)


def test_packed_f32_inline_constants_are_32_bit():
    # llvm-mc 22 encodes both "v_pk_mul_f32 v[6:7], 0x3f800000, v[30:31]" and "..., 1.0, ..." as
    # inline constant 242: the constant of a packed-f32 operand is the 32-bit f32 pattern
    di = decode(bytes([0x06, 0x40, 0xB1, 0xD3, 0xF2, 0x3C, 0x02, 0x18]))
    assert di.text() == "v_pk_mul_f32 v[6:7], 1.0, v[30:31]"
    assert di.operands[1].value == 0x3F800000
    assert _d("v_pk_fma_f32 v[0:1], -2.0, v[2:3], v[4:5]").operands[1].value == 0xC0000000

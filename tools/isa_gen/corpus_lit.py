"""Corpus forms for the ``lit(...)`` literal modifier (rule in ``gcnforge.asm.literal``).

Every form writes a literal dword, so the live comparison checks both halves of the rule:
the assembler must force the literal (bytes equal to ``llvm-mc -show-encoding``), and the
disassembler must print ``lit(0x...)`` exactly for the values LLVM 22 marks (text equal to
``llvm-mc --disassemble``). Values: the inline integers and their neighbours, the f32/f16/f64
inline patterns, and a few plain literals (which must NOT print ``lit``); operands of the
32-bit and 64-bit (zero-extended) integer classes, as sources 0 and 1. Misuse forms (a
register, a symbol, a too-wide value, a float for a 64-bit integer) must be rejected by both.

Vector-ALU operands (f32/f16/v2f16/f64/i16 classes) are added only once the vector parser
accepts ``lit(...)`` (``gcnforge.asm.vop_src`` belongs to the vector-ALU author).
"""

from __future__ import annotations

# 32-bit dwords around every boundary of the rule, and the float patterns of each width.
VALUES = ["0", "1", "64", "65", "-1", "-16", "-17", "0xffffffff", "0xfffffff0", "0xffffffef", "0x41",
          "0x3f800000", "0xbf000000", "0xc0800000", "0x3e22f983", "0x3e22f984", "0x3c00", "0x3118",
          "0x13c00", "0x3ff00000", "0x80000000", "0x12345678", "0.5", "-4.0", "1.0", "1.5", "0.15915494",
          "1+2", "(1<<6)"]
MISUSE = ["s1", "vcc_lo", "sym", "0x100000000", "-0x80000001", ""]

SCALAR32 = ["s_mov_b32 s0, {}", "s_add_u32 s0, {}, s1", "s_addc_u32 s17, s17, {}", "s_cmp_eq_u32 s0, {}",
            "s_lshl_b64 s[0:1], s[2:3], {}", "s_bitcmp0_b64 s[0:1], {}", "s_and_b32 s5, {}, 7"]
SCALAR64 = ["s_mov_b64 s[0:1], {}", "s_and_b64 s[0:1], {}, s[2:3]", "s_lshl_b64 s[0:1], {}, 1",
            "s_cselect_b64 s[4:5], s[2:3], {}"]

VECTOR = ["v_mov_b32 v0, {}", "v_add_f32 v0, {}, v1", "v_add_u32 v0, {}, v1", "v_add_f16 v0, {}, v1",
          "v_add_u16 v0, {}, v1", "v_pk_fmac_f16 v0, {}, v1", "v_cmp_eq_f64 vcc, {}, v[0:1]",
          "v_cmp_eq_u64 vcc, {}, v[0:1]", "v_fmamk_f32 v0, v1, {}, v2", "v_dot2c_i32_i16 v0, {}, v1"]


def _vector_lit_supported() -> bool:
    from gcnforge.asm import parse_instruction
    from gcnforge.diagnostics import Diagnostic, SourceLoc

    try:
        parse_instruction("v_mov_b32 v0, lit(1)", SourceLoc("<probe>", 1))
    except Diagnostic:
        return False
    return True


def forms() -> list[str]:
    out = []
    for tmpl in SCALAR32 + SCALAR64:
        out += [tmpl.format(f"lit({v})") for v in VALUES + MISUSE]
        out.append(tmpl.format("lit (0x3f800000)"))
    # a literal shared by both sources, and a forced literal next to an inline constant
    out += ["s_add_u32 s0, lit(1), lit(1)", "s_add_u32 s0, lit(0x40), 64", "s_add_u32 s0, 0x41, lit(0x41)"]
    if _vector_lit_supported():
        for tmpl in VECTOR:
            out += [tmpl.format(f"lit({v})") for v in VALUES + MISUSE]
    return out

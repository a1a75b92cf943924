"""The ``lit(...)`` literal modifier: the printing rule of ``gcnforge.asm.literal`` checked
against ``llvm-mc --disassemble`` run live for every operand class (scalar and vector), and the
assembler's handling of ``lit(expr)`` (round trip, diagnostics). The scalar forms are also in
the live corpus (``tools/isa_gen/corpus_lit.py``)."""

from __future__ import annotations

import struct

import pytest

from gcnforge.asm import decode, parse_instruction
from gcnforge.asm.literal import forces_lit
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.testing import require_llvm
from tools.isa_gen import common

# One instruction per operand class, written with a non-inline literal so llvm-mc gives the
# encoding whose literal dword the sweep then replaces: (template, optype, dwords).
CLASSES = [
    ("s_add_u32 s0, s0, 0x12345678", "b32", 1),
    ("s_mov_b64 s[0:1], 0x12345678", "b64", 2),
    ("s_lshl_b64 s[0:1], s[2:3], 0x12345678", "b32", 1),
    ("v_add_f32 v0, 0x12345678, v1", "f32", 1),
    ("v_mov_b32 v0, 0x12345678", "i32", 1),
    ("v_add_u16 v0, 0x1234, v1", "i16", 1),
    ("v_add_f16 v0, 0x1234, v1", "f16", 1),
    ("v_pk_fmac_f16 v0, 0x12345678, v1", "v2f16", 1),
    ("v_dot2c_i32_i16 v0, 0x12345678, v1", "v2i16", 1),
    ("v_cmp_eq_u64 vcc, 0x12345678, v[0:1]", "i64", 2),
    ("v_cmp_eq_f64 vcc, 0x12345678, v[0:1]", "f64", 2),
]
_PATTERNS = [0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000, 0x40800000, 0xC0800000,
             0x3E22F983, 0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118, 0x3FE00000,
             0x3FF00000, 0xBFF00000]
SWEEP = sorted({v & 0xFFFFFFFF for v in range(-20, 70)} | set(_PATTERNS)
               | {(p + d) & 0xFFFFFFFF for p in _PATTERNS for d in (1, 0x10000, -0x10000)}
               | {0xFFFF, 0xFFF0, 0xFFEF, 0x10000, 0x10040, 0x400040, 0x3C003C00, 0x80000000, 0x7FFFFFFF, 0x12345678})


def test_print_rule_matches_llvm_for_every_operand_class():
    require_llvm("llvm-mc")
    encs = common.assemble([t for t, _, _ in CLASSES])
    blobs, keys = [], []
    for (tmpl, optype, dwords), (enc, err) in zip(CLASSES, encs):
        assert enc is not None and len(enc) == 8, (tmpl, err)
        for v in SWEEP:
            blobs.append(enc[:4] + struct.pack("<I", v))
            keys.append((tmpl.split()[0], optype, dwords, v))
    texts = common.disassemble(blobs)
    bad = []
    marked = 0
    for (mn, optype, dwords, v), d in zip(keys, texts):
        assert d is not None, (mn, hex(v))
        want = "lit(" in d.text
        marked += want
        if forces_lit(v, optype, dwords) != want:
            bad.append((mn, hex(v), d.text))
    assert marked > 500  # the sweep does exercise the marked side
    assert not bad, f"{len(bad)} disagreements with llvm-mc, e.g. {bad[:5]}"


def _enc(line: str) -> bytes:
    return parse_instruction(line, SourceLoc("<t>", 1)).encode(0)


@pytest.mark.parametrize("line,text", [
    ("s_addc_u32 s3, s3, lit(0xffffffff)", "s_addc_u32 s3, s3, lit(0xffffffff)"),
    ("s_mov_b32 s0, lit(1.0)", "s_mov_b32 s0, lit(0x3f800000)"),
    ("s_mov_b32 s0, lit (64)", "s_mov_b32 s0, lit(0x40)"),
    ("s_mov_b32 s0, lit(-17)", "s_mov_b32 s0, 0xffffffef"),  # not inline-able: plain literal
    ("s_mov_b64 s[0:1], lit(-1)", "s_mov_b64 s[0:1], 0xffffffff"),  # zero-extended: not -1
    ("s_mov_b64 s[0:1], lit(1<<6)", "s_mov_b64 s[0:1], lit(0x40)"),
    ("s_add_u32 s0, lit(1), lit(1)", "s_add_u32 s0, lit(0x1), lit(0x1)"),
])
def test_lit_forces_a_literal_and_round_trips(line, text):
    b = _enc(line)
    assert len(b) == 8  # the literal dword is always there
    t = decode(b).text()
    assert " ".join(t.split()) == text
    assert _enc(t) == b  # the printed text reassembles to the same bytes


def test_without_lit_the_value_goes_inline():
    assert len(_enc("s_addc_u32 s3, s3, 0xffffffff")) == 4
    assert _enc("s_addc_u32 s3, s3, lit(0xffffffff)")[4:] == b"\xff\xff\xff\xff"


@pytest.mark.parametrize("line,col,words", [
    ("s_mov_b32 s0, lit(s1)", 15, "register"),
    ("s_mov_b32 s0, lit(vcc_lo)", 15, "register"),
    ("s_mov_b32 s0, lit(sym)", 15, "symbols"),
    ("s_addc_u32 s1, s1, lit(sym@rel32@hi+12)", 20, "symbols"),
    ("s_mov_b32 s0, lit()", 15, "not a valid operand"),
    # a value that does not fit: LLVM 22 points at the value inside lit(
    ("s_mov_b32 s0, lit(0x100000000)", 19, "invalid operand for instruction"),
    ("s_mov_b64 s[0:1], lit(0x100000000)", 23, "invalid operand for instruction"),
    ("s_mov_b64 s[0:1], lit(1.0)", 23, "floating-point"),
    # LLVM 22 silently encodes this with ONE literal (2) for both sources; we refuse it
    ("s_add_u32 s0, lit(2), 0x1234", 23, "only one 32-bit literal"),
    ("s_setpc_b64 lit(1)", 13, "must be a 2-dword scalar register"),
])
def test_lit_misuse_is_a_located_diagnostic(line, col, words):
    with pytest.raises(Diagnostic) as e:
        _enc(line)
    assert words in e.value.message
    assert e.value.loc.col == col, e.value.loc


def test_misuse_is_rejected_by_llvm_too():
    require_llvm("llvm-mc")
    lines = ["s_mov_b32 s0, lit(s1)", "s_mov_b32 s0, lit(sym)", "s_mov_b32 s0, lit()",
             "s_mov_b32 s0, lit(0x100000000)", "s_mov_b64 s[0:1], lit(1.0)", "s_setpc_b64 lit(1)"]
    for line, (enc, err) in zip(lines, common.assemble(lines)):
        assert enc is None, line


def test_f64_inline_equivalent_literal_text_matches_llvm():
    """An f64 operand never prints lit(): LLVM prints the constant the literal stands for."""
    require_llvm("llvm-mc")
    from gcnforge.asm.literal import f64_literal_text

    enc, _ = common.assemble(["v_cmp_eq_f64 vcc, 0x12345678, v[0:1]"])[0]
    vals = SWEEP
    texts = common.disassemble([enc[:4] + struct.pack("<I", v) for v in vals])
    bad = []
    for v, d in zip(vals, texts):
        shown = d.text.split(",")[1].strip()
        want = f64_literal_text(v) or f"0x{v:x}"
        if shown != want:
            bad.append((hex(v), d.text, want))
    assert not bad, bad[:5]


# lit(expr) conversion for each operand class, against the literal dword llvm-mc encodes
# (vector instructions included: the conversion is shared by the scalar and vector parsers).
CONVERT = [("v_add_u16 v0, {}, v1", "i16", 1, ["-1", "0xffff", "-32768", "1.5", "1.0", "0x3c00"]),
           ("v_add_f16 v0, {}, v1", "f16", 1, ["-1", "0xffff", "1.0", "0.15915494", "64"]),
           ("v_pk_fmac_f16 v0, {}, v1", "v2f16", 1, ["-1", "0x12345678", "1.0"]),
           ("v_cmp_eq_f64 vcc, {}, v[0:1]", "f64", 2, ["1.0", "0.15915494", "1.1", "0x3ff00000", "-1"]),
           ("v_cmp_eq_u64 vcc, {}, v[0:1]", "i64", 2, ["-1", "64", "0xffffffff"]),
           ("v_add_f32 v0, {}, v1", "f32", 1, ["1.0", "-17", "0.15915494", "0x3e22f983", "1+2"])]


def test_lit_conversion_matches_llvm_for_every_operand_class():
    require_llvm("llvm-mc")
    from gcnforge.asm.operands import Tok, encode_forced_literal

    cases = [(tmpl.format(f"lit({v})"), optype, dwords) for tmpl, optype, dwords, vs in CONVERT for v in vs]
    for (line, optype, dwords), (enc, err) in zip(cases, common.assemble([c[0] for c in cases])):
        assert enc is not None, (line, err)
        text = line[line.index("lit("):line.index(")", line.index("lit(")) + 1]
        r = encode_forced_literal(Tok(text, 1), SourceLoc("<t>", 1), dwords=dwords, optype=optype)
        assert struct.pack("<I", r.literal) == enc[4:8], line

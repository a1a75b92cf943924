"""Vector-ALU source operands: parsing and printing of the 9-bit source space with the
operand-type rules LLVM 22 applies to inline constants and literals, and the float/integer
input modifiers (``-x``, ``|x|``, ``neg(c)``, ``abs(x)``, ``sext(x)``).

Rules (probed against ``llvm-mc -mcpu=gfx942``; number space in AMD Instinct MI300 ISA
Reference Guide 3.7 / 12.x):

* integers -16..64 are inline; otherwise an integer whose bit pattern is an inline float
  of the operand's type (f32 bits for 32-bit operands, f16 bits for f16, the f64 pattern
  for 64-bit; for fp64 a 32-bit value is taken as the high dword) is inline too.
  16-bit *integer* operands take no float patterns and no 16-bit wrap (0xffff is a literal).
* a float token is converted to the operand's float type (f16/f32/f64; integer operands
  take f32 bits, i16 takes f16 bits) and is inline when it equals an inline float.
* otherwise a 32-bit literal (fp64: the high dword, the low one must be zero); 16-bit
  operands take 16-bit literals.
* printing: inline ints in decimal, inline floats as ``0.5``..``-4.0`` and 1/(2*pi) as
  ``0.15915494`` (``0.15915494309189532`` for 64-bit); literals as ``0x%x`` (16-bit
  operands print the low 16 bits); a negated constant prints ``neg(c)``, an abs'd one
  ``|c|``; registers ``-v1`` ``|v1|`` ``-|v1|``; SDWA ``sext(v1)``.
"""

from __future__ import annotations

import math
import struct

from gcnforge.asm.literal import f64_literal_text, forces_lit, format_forced, is_lit_form
from gcnforge.asm.operands import (
    INLINE_FLOATS, LITERAL, NUM_SGPRS, SRC_SPECIAL, TTMP_BASE, VGPR_BASE, Tok, f16_bits, f32_bits, f64_bits, format_reg,
    _NUMBER_START, encode_forced_literal, format_sreg, inline_int_code, parse_float, parse_int, parse_reg,
    reject_lds_direct,
    sreg_code, check_vreg_tuple,
)
from gcnforge.diagnostics import Diagnostic, SourceLoc

_SRC_NAMES: dict[str, int] = {}
for _c, _n in SRC_SPECIAL.items():
    _SRC_NAMES[_n] = _c
    _SRC_NAMES[_n[4:]] = _c  # LLVM accepts shared_base, vccz, execz, scc, lds_direct...
_SRC_NAMES["src_scc"] = 253
# LLVM 22 names two more source codes on gfx942 (flat scratch base, ISA guide 3.7 table)
_EXTRA_SPECIAL = {230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi"}
# (printed when decoded, refused when written: "register not available on this GPU")

_F16_INLINE = {t[2]: c for c, t in INLINE_FLOATS.items()}
_F32_INLINE = {t[1]: c for c, t in INLINE_FLOATS.items()}
_F64_INLINE = {t[3]: c for c, t in INLINE_FLOATS.items()}
# bf16 operands (gfx950) take the inline floats as bf16 bit patterns: the f32 value's high half
# (exact for +-0.5 ... +-4.0), and 0x3E22 for 1/(2*pi) (LLVM 22 AMDGPU bf16 inline constants:
# llvm-mc -mcpu=gfx950 encodes v_dot2c_f32_bf16 v0, 0x3f80, v2 with source code 242, "1.0").
_BF16_INLINE = {t[1] >> 16: c for c, t in INLINE_FLOATS.items() if t[1] & 0xFFFF == 0} | {0x3E22: 248}


def _bf16_bits(fv: float) -> int | None:
    """bf16 bits of ``fv``, rounded to nearest even from binary32 (None if out of range)."""
    b = f32_bits(fv)
    if b is None:
        return None
    if (b & 0x7F800000) == 0x7F800000:
        return b >> 16
    r = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return None if (r & 0x7F80) == 0x7F80 else r


def bits_of(optype: str, dwords: int) -> int:
    """Constant width of an operand: its value type decides (v_pk_*_f32 read 64-bit
    registers but take 32-bit constants); untyped 2-dword operands are 64-bit."""
    if optype in ("f64", "i64"):
        return 64
    if optype in ("f16", "i16", "bf16"):
        return 16
    if optype:
        return 32
    return 64 if dwords == 2 else 32


def is_number(text: str) -> bool:
    return parse_int(text) is not None or parse_float(text) is not None


def split_mods(text: str) -> tuple[str, bool, bool, bool]:
    """(core text, neg, abs, sext) of a source token."""
    t = text
    if "(" not in t and t[:1] not in "-|":  # no neg(...), abs(...), sext(...), -x or |x|
        return t.strip(), False, False, False
    neg = absm = sext = False
    low = t.lower()
    if low.startswith("neg(") and t.endswith(")"):
        neg, t = True, t[4:-1]
    elif t.startswith("-") and not is_number(t):
        neg, t = True, t[1:]
    low = t.lower()
    if len(t) >= 2 and t.startswith("|") and t.endswith("|"):
        absm, t = True, t[1:-1]
    elif low.startswith("abs(") and t.endswith(")"):
        absm, t = True, t[4:-1]
    low = t.lower()
    if low.startswith("sext(") and t.endswith(")"):
        sext, t = True, t[5:-1]
    return t.strip(), neg, absm, sext


_f16_bits = f16_bits


def _err(msg: str, tok: Tok, loc: SourceLoc) -> Diagnostic:
    return Diagnostic(msg, tok.loc(loc))


def _f32_pattern(iv: int) -> int | None:
    """The inline code of a 32-bit f32 pattern for a packed 16-bit integer source, which LLVM
    checks as 32-bit (llvm-mc 22: ``v_pk_add_u16 v3, 0x3f800000, v26`` is the inline 1.0)."""
    return _F32_INLINE.get(iv & 0xFFFFFFFF) if -(1 << 31) <= iv < (1 << 32) else None


def encode_const(core: str, tok: Tok, loc: SourceLoc, optype: str, dwords: int, literal_ok: bool,
                 what: str) -> tuple[int, int | None] | None:
    """(code, literal) of a numeric source, or None if ``core`` is not a number."""
    if is_lit_form(core):  # lit(expr): always a literal dword (gcnforge.asm.literal)
        r = encode_forced_literal(Tok(core, tok.col), loc, dwords=dwords, optype=optype, literal_ok=literal_ok,
                                  what=what)
        return LITERAL, r.literal
    nb = bits_of(optype, dwords)
    is_float_type = optype.startswith(("f", "v2f", "bf", "v2bf"))
    iv = parse_int(core)
    if iv is not None:
        c = inline_int_code(iv)
        if c is not None:
            return c, None
        if optype in ("bf16", "v2bf16") and iv in _BF16_INLINE:
            return _BF16_INLINE[iv], None
        if nb == 64:
            if iv & 0xFFFFFFFFFFFFFFFF in _F64_INLINE:
                return _F64_INLINE[iv & 0xFFFFFFFFFFFFFFFF], None
            if optype == "f64" and -(1 << 31) <= iv < (1 << 32) and ((iv & 0xFFFFFFFF) << 32) in _F64_INLINE:
                return _F64_INLINE[(iv & 0xFFFFFFFF) << 32], None
        elif nb == 16 or optype in ("v2f16", "v2i16", "v2bf16"):
            if optype in ("f16", "v2f16", "bf16") and -(1 << 15) <= iv < (1 << 16):
                if (iv & 0xFFFF) in _F16_INLINE:
                    return _F16_INLINE[iv & 0xFFFF], None
                c = inline_int_code(iv - (1 << 16) if iv >= 1 << 15 else iv)
                if c is not None:
                    return c, None
            if nb == 32 and (1 << 31) <= iv < (1 << 32):
                c = inline_int_code(iv - (1 << 32))
                if c is not None:
                    return c, None
            if optype in ("v2i16", "v2b16") and (c := _f32_pattern(iv)) is not None:
                return c, None
        elif (1 << 31) <= iv < (1 << 32):
            c = inline_int_code(iv - (1 << 32))  # a 32-bit pattern of a small negative integer
            if c is not None:
                return c, None
            if iv in _F32_INLINE:
                return _F32_INLINE[iv], None
        elif -(1 << 31) <= iv < (1 << 31) and (iv & 0xFFFFFFFF) in _F32_INLINE:
            return _F32_INLINE[iv & 0xFFFFFFFF], None
        if not literal_ok:
            raise _err(f"literal {core} not allowed here: {what} accepts only registers and inline constants "
                       "(-16..64, +-0.5, +-1.0, +-2.0, +-4.0, 0.15915494)", tok, loc)
        if nb == 16:
            if not -(1 << 15) <= iv < (1 << 16):
                raise _err(f"immediate {core} out of range: {what} takes a 16-bit literal", tok, loc)
            # f16 literals are 16 bits; i16 ones keep a negative value sign-extended (LLVM 22)
            return LITERAL, iv & (0xFFFF if optype in ("f16", "bf16") else 0xFFFFFFFF)
        if not -(1 << 31) <= iv < (1 << 32):
            raise _err(f"immediate {core} out of range: {what} takes a 32-bit literal", tok, loc)
        return LITERAL, iv & 0xFFFFFFFF
    fv = parse_float(core)
    if fv is None:
        return None
    if nb == 64:
        b = f64_bits(fv)
        if b in _F64_INLINE:
            return _F64_INLINE[b], None
        if not literal_ok:
            raise _err(f"literal {core} not allowed here: {what} accepts only inline constants", tok, loc)
        if optype != "f64":
            b32 = f32_bits(fv)
            if b32 is None:
                raise _err(f"floating-point literal {core} out of range", tok, loc)
            return LITERAL, b32
        return LITERAL, b >> 32
    if optype in ("bf16", "v2bf16"):
        h = 0x3E22 if abs(fv - 1 / (2 * math.pi)) < 1e-7 else _bf16_bits(fv)  # 0.15915494: LLVM's 1/(2*pi)
        if h is not None and h in _BF16_INLINE:
            return _BF16_INLINE[h], None
        if not literal_ok:
            raise _err(f"literal {core} not allowed here: {what} accepts only inline constants", tok, loc)
        if h is None:
            raise _err(f"floating-point literal {core} out of range for bf16", tok, loc)
        return LITERAL, h
    if optype in ("f16", "v2f16", "bf16"):
        h = _f16_bits(fv)
        if h is not None and h in _F16_INLINE:
            return _F16_INLINE[h], None
        if h is not None and h <= 64:  # an exact denormal whose bits are an inline integer (LLVM 22)
            return inline_int_code(h), None
        if not literal_ok:
            raise _err(f"literal {core} not allowed here: {what} accepts only inline constants", tok, loc)
        if h is None:
            raise _err(f"floating-point literal {core} out of range for f16", tok, loc)
        return LITERAL, h
    b = f32_bits(fv)
    if nb == 16 and f16_bits(fv) is None:  # LLVM checks a float for a 16-bit integer operand as f16
        raise _err(f"floating-point literal {core} out of range for a 16-bit operand", tok, loc)
    if b is None:
        raise _err(f"floating-point literal {core} out of range for f32", tok, loc)
    if b in _F32_INLINE and (abs(fv - 1 / (2 * math.pi)) < 1e-7 or _F32_INLINE[b] != 248):
        return _F32_INLINE[b], None
    if b <= 64:  # an exact denormal whose bits are an inline integer (LLVM 22)
        return inline_int_code(b), None
    if not literal_ok:
        raise _err(f"literal {core} not allowed here: {what} accepts only inline constants", tok, loc)
    return LITERAL, b


def encode_reg9(core: str, tok: Tok, loc: SourceLoc, dwords: int, *, sgpr: bool, vgpr: bool, agpr: bool,
                what: str) -> tuple[int, str] | None:
    """(9-bit code, file) of a register source; AGPRs use the VGPR codes (the file is
    chosen by an acc bit). None if ``core`` is not a register."""
    if core[:1] in _NUMBER_START:  # a constant (no register or special name starts so)
        return None
    ref = parse_reg(core)
    low = core.lower()
    if ref is None:
        if low in _SRC_NAMES and sgpr:
            if _SRC_NAMES[low] == 254:
                reject_lds_direct(tok, loc)
            return _SRC_NAMES[low], low
        return None
    if ref.file in ("v", "a"):
        if (ref.file == "v" and not vgpr) or (ref.file == "a" and not agpr):
            allowed = ", ".join(x for x, ok in (("VGPR", vgpr), ("AGPR", agpr), ("SGPR", sgpr)) if ok)
            raise _err(f"{what} cannot be a{'n AGPR' if ref.file == 'a' else ' VGPR'} (expected {allowed})", tok, loc)
        check_vreg_tuple(ref, dwords, what, tok, loc)
        return VGPR_BASE + ref.index, ref.file
    if not sgpr:
        raise _err(f"{what} must be a vector register, got {ref}", tok, loc)
    return sreg_code(ref, dwords, tok, loc, what), "s"


def format_const(code: int, optype: str, dwords: int, literal: int | None) -> str | None:
    if 128 <= code <= 192:
        return str(code - 128)
    if 193 <= code <= 208:
        return str(192 - code)
    if code in INLINE_FLOATS:
        t = INLINE_FLOATS[code]
        if optype == "i16":
            return f"0x{t[2]:x}"  # 16-bit integer operands print the f16 pattern
        return t[4] if bits_of(optype, dwords) == 64 else t[0]
    if code == LITERAL:
        lit = literal or 0
        if forces_lit(lit, optype, dwords):
            return format_forced(lit)
        if optype == "f64" and f64_literal_text(lit) is not None:
            return f64_literal_text(lit)
        if bits_of(optype, dwords) == 16:
            lit &= 0xFFFF
        return f"0x{lit:x}"
    return None


def format_src(code: int, optype: str, dwords: int, literal: int | None, *, vfile: str = "v", neg: bool = False,
               absm: bool = False, sext: bool = False) -> str:
    """LLVM's text of a 9-bit source code with its modifiers."""
    c = format_const(code, optype, dwords, literal)
    if c is not None:
        if sext:
            c = f"sext({c})"
        if absm:
            c = f"|{c}|"
            return "-" + c if neg else c
        return f"neg({c})" if neg else c
    if code >= VGPR_BASE:
        t = format_reg(vfile, code - VGPR_BASE, dwords)
    elif code < NUM_SGPRS or TTMP_BASE <= code < TTMP_BASE + 16 or code <= 127:
        t = format_sreg(code, dwords)
    else:
        t = SRC_SPECIAL.get(code) or _EXTRA_SPECIAL.get(code, f"<invalid:{code}>")
    return with_mods(t, neg, absm, sext)


def with_mods(t: str, neg: bool, absm: bool, sext: bool) -> str:
    """An operand's text with its input modifiers, as LLVM prints them (``-|sext(v1)|``)."""
    if sext:
        t = f"sext({t})"
    if absm:
        t = f"|{t}|"
    if neg:
        t = "-" + t
    return t

"""Operand syntax of gfx942 assembly: the source-operand number space, registers, inline
constants and literals, parsed from and printed to LLVM's AMDGPU syntax.

Number space of 8/9-bit source fields (AMD Instinct MI300 ISA Reference Guide, 3.7
"Operand" tables / 12.x "SSRC0"; spellings as LLVM 22 prints them, checked live by
``tests/asm/test_operands.py``, which sweeps every code through ``llvm-mc --disassemble``):

    0-101 s0..s101          102/103 flat_scratch_lo/hi   104/105 xnack_mask_lo/hi
    106/107 vcc_lo/hi        108-123 ttmp0..ttmp15        124 m0   125 null
    126/127 exec_lo/hi       128-192 integers 0..64       193-208 integers -1..-16
    235-239 src_shared_base, src_shared_limit, src_private_base, src_private_limit,
            src_pops_exiting_wave_id
    240-248 0.5 -0.5 1.0 -1.0 2.0 -2.0 4.0 -4.0 1/(2*pi)
    251 src_vccz  252 src_execz  253 src_scc  254 src_lds_direct  255 literal dword
    256-511 v0..v255 (9-bit vector-ALU sources only)

Literal rules (LLVM 22, AMDGPUAsmParser/AMDGPUInstPrinter behaviour, probed): at most one
32-bit literal per instruction; an integer that equals an inline constant (including the
bit pattern of an inline float) is encoded inline unless written ``lit(expr)``; 32-bit
literals print as ``0x%x``, or ``lit(0x%x)`` when an inline constant could have held the
value (the rule is in ``gcnforge.asm.literal``);
for 64-bit integer operands the literal must fit in 32 bits (signed or unsigned) and is
printed as its 32-bit pattern; 64-bit float operands take the literal as the HIGH dword.
"""

from __future__ import annotations

import math
import re
import struct
from functools import lru_cache
from typing import NamedTuple

from gcnforge.asm.literal import forces_lit, format_forced, is_lit_form, split_lit, value_class
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa import inline
from gcnforge.isa.target import target as _target

# ---------------------------------------------------------------------------------------
# The number space
# ---------------------------------------------------------------------------------------
LITERAL = 255
VGPR_BASE = 256
NUM_SGPRS = _target().sgprs  # s0..s101: the SGPR codes of the source/destination fields
TTMP_BASE = 108
NULL = 125
M0 = 124

SPECIAL32: dict[int, str] = {
    102: "flat_scratch_lo", 103: "flat_scratch_hi", 104: "xnack_mask_lo", 105: "xnack_mask_hi",
    106: "vcc_lo", 107: "vcc_hi", 124: "m0", 125: "null", 126: "exec_lo", 127: "exec_hi",
}
SPECIAL64: dict[int, str] = {102: "flat_scratch", 104: "xnack_mask", 106: "vcc", 126: "exec", 125: "null"}
SRC_SPECIAL: dict[int, str] = {
    235: "src_shared_base", 236: "src_shared_limit", 237: "src_private_base", 238: "src_private_limit",
    239: "src_pops_exiting_wave_id", 251: "src_vccz", 252: "src_execz", 253: "src_scc",
    254: "src_lds_direct",
}
# Accepted aliases when parsing (LLVM accepts the names without ``src_``).
_SRC_ALIASES = {n[4:]: c for c, n in SRC_SPECIAL.items()}
_SRC_ALIASES.update({n: c for c, n in SRC_SPECIAL.items()})
_SRC_ALIASES["scc"] = 253
_SRC_ALIASES["src_flat_scratch_base_lo"] = 230
_SRC_ALIASES["src_flat_scratch_base_hi"] = 231

# code -> (text32, f32 bits, f16 bits, f64 bits, text64), from gcnforge.isa.inline
INLINE_FLOATS: dict[int, tuple[str, int, int, int, str]] = {
    c: (inline.INV_2PI_TEXT[32] if c == inline.INV_2PI_CODE else repr(v), inline.float_bits(c, 32),
        inline.float_bits(c, 16), inline.float_bits(c, 64),
        inline.INV_2PI_TEXT[64] if c == inline.INV_2PI_CODE else repr(v))
    for c, v in inline.FLOAT_CODES.items()}
_FLOAT_TEXT_TO_CODE = {v[0]: c for c, v in INLINE_FLOATS.items()}
# bit pattern -> code of the inline floats (an integer spelling of 1.0's bits is the inline 1.0);
# the first code wins where two share a pattern, as a scan in code order would
_F32_PATTERN_CODE: dict[int, int] = {}
_F64_PATTERN_CODE: dict[int, int] = {}
for _c, _t in INLINE_FLOATS.items():
    _F32_PATTERN_CODE.setdefault(_t[1], _c)
    _F64_PATTERN_CODE.setdefault(_t[3], _c)


def reject_lds_direct(tok: "Tok", base: SourceLoc) -> None:
    """Source code 254 (``lds_direct``) where the target has none (gfx942: see
    ``gcnforge.isa.target.Target.has_lds_direct``)."""
    from gcnforge.isa.target import TARGETS

    if not TARGETS["gfx942"].has_lds_direct:
        raise _err("lds_direct is not supported on this GPU", tok, base)


def is_special_src(text: str) -> bool:
    """``src_shared_base``, ``vccz``, ``scc``... (registers in LLVM's sense, not constants)."""
    return text.lower() in _SRC_ALIASES


inline_int_code = inline.int_code


def inline_value(code: int, optype: str = "", dwords: int = 1) -> int | None:
    """Bit pattern of inline constant ``code`` for an operand of ``optype``/``dwords``. The
    value type decides the width (v_pk_*_f32 read 64-bit registers but take 32-bit constants:
    llvm-mc encodes 0x3f800000 there as the inline 1.0); untyped 2-dword operands are 64-bit."""
    bits = 64 if optype.endswith("64") or (not optype and dwords == 2) else 32
    if 128 <= code <= 192:
        return code - 128
    if 193 <= code <= 208:
        return (192 - code) & ((1 << bits) - 1)
    if code in INLINE_FLOATS:
        t = INLINE_FLOATS[code]
        if bits == 64:
            return t[3]
        if optype in ("f16", "v2f16", "i16", "b16", "v2i16", "v2b16"):
            return t[2]
        return t[1]
    return None


# ---------------------------------------------------------------------------------------
# Operand tokens (what the lexer hands to a family's parser)
# ---------------------------------------------------------------------------------------
class Tok(NamedTuple):
    """One operand word and its 1-based column in the line (a NamedTuple: cheap to make)."""

    text: str
    col: int

    def loc(self, base: SourceLoc) -> SourceLoc:
        return SourceLoc(base.file, base.line, base.col + self.col - 1)


class RegRef(NamedTuple):
    """A register (range) named in text: file 's'/'v'/'a'/'ttmp' or a special name. (A
    NamedTuple: cheaper to make than a frozen dataclass, and this is made per register
    spelling.)"""

    file: str
    index: int  # first register (for specials: their source code)
    count: int = 1

    def __str__(self) -> str:
        return format_reg(self.file, self.index, self.count)


def format_reg(file: str, index: int, count: int) -> str:
    if file in ("s", "v", "a", "ttmp"):
        if count == 1:
            return f"{file}{index}"
        return f"{file}[{index}:{index + count - 1}]"
    return file


_SPECIAL_BY_NAME: dict[str, tuple[int, int]] = {}  # name -> (code, dwords)
for _c, _n in SPECIAL32.items():
    if _n != "null":  # LLVM decodes code 125 as null but rejects writing it on gfx942
        _SPECIAL_BY_NAME[_n] = (_c, 1)
for _c, _n in SPECIAL64.items():
    if _n != "null":
        _SPECIAL_BY_NAME[_n] = (_c, 2)


@lru_cache(maxsize=4096)
def parse_reg(text: str) -> RegRef | None:
    """``s5``, ``s[4:7]``, ``v[0:1]``, ``a3``, ``ttmp[4:7]``, ``vcc``, ``exec_lo``, ``m0``,
    register lists ``[s2,s3]``...; None if the text is not a register name (it may then be
    a constant or label). Register names are lower case, as in LLVM."""
    t = text
    if t.startswith("[") and t.endswith("]") and "," in t:
        regs = [parse_reg(x.strip()) for x in t[1:-1].split(",")]
        if any(r is None or r.count != 1 for r in regs):
            return None
        first = regs[0]
        if all(r.file == first.file and r.index == first.index + i for i, r in enumerate(regs)) \
                and first.file in ("s", "v", "a", "ttmp"):
            return RegRef(first.file, first.index, len(regs))
        return None
    sp = _SPECIAL_BY_NAME.get(t)
    if sp is not None:
        return RegRef(t, sp[0], sp[1])
    for file in ("ttmp", "s", "v", "a"):
        if t.startswith(file):
            rest = t[len(file):]
            if rest.isdigit():
                return RegRef(file, int(rest), 1)
            if rest.startswith("[") and rest.endswith("]"):
                inner = rest[1:-1].replace(" ", "")
                lo, sep, hi = inner.partition(":")
                if not sep:
                    hi = lo
                if lo.isdigit() and hi.isdigit() and int(hi) >= int(lo):
                    return RegRef(file, int(lo), int(hi) - int(lo) + 1)
                return None
            return None
    return None


_PLAIN_INT = re.compile(r"-?(?:[1-9][0-9]*|0|0[xX][0-9a-fA-F]+)")
_EXPR_CHARS = re.compile(r"[()*/%<>&|^~]")


@lru_cache(maxsize=4096)
def parse_int(text: str) -> int | None:
    """An integer literal as LLVM's MC lexer reads it (decimal, 0x hex, 0b binary, with an
    optional leading minus)."""
    t = text.strip()
    if t and t[0] not in "-+0123456789(~":
        return None
    if _PLAIN_INT.fullmatch(t):  # the common spellings: 12, -3, 0x1f (no expression to evaluate)
        return int(t, 16 if "x" in t or "X" in t else 10)
    if _EXPR_CHARS.search(t) or ("+" in t[1:] or "-" in t[1:]) and "e" not in t.lower():
        return _eval_int(t)
    neg = t.startswith("-")
    if neg or t.startswith("+"):
        t = t[1:].lstrip()
    if not t:
        return None
    try:
        if t[:2].lower() in ("0x", "0b", "0o"):
            v = int(t, 0)
        elif t.isdigit():
            v = int(t, 8) if len(t) > 1 and t[0] == "0" else int(t, 10)  # MC: leading 0 = octal
        elif t[-1] in "hH" and all(c in "0123456789abcdefABCDEF" for c in t[:-1]) and t[0].isdigit():
            v = int(t[:-1], 16)
        else:
            return None
    except ValueError:
        return None
    return -v if neg else v


_BINOPS = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mult": lambda a, b: a * b,
           "FloorDiv": lambda a, b: a // b, "Div": lambda a, b: a // b, "Mod": lambda a, b: a % b,
           "LShift": lambda a, b: a << b, "RShift": lambda a, b: a >> b, "BitAnd": lambda a, b: a & b,
           "BitOr": lambda a, b: a | b, "BitXor": lambda a, b: a ^ b}



def store_imm16(st, field: str, tok, range_error: str) -> bool:
    """A bare integer for a 16-bit field (SOPP/SOPK: -32768..65535, stored as its low 16 bits);
    False when the token is not an integer. ``range_error`` is the message, ``{}`` the text."""
    v = parse_int(tok.text)
    if v is None:
        return False
    if not -32768 <= v <= 65535:
        raise Diagnostic(range_error.format(tok.text), tok.loc(st.loc))
    st.fields[field] = v & 0xFFFF
    return True

def _eval_int(text: str) -> int | None:
    """A constant integer expression (``4+4``, ``-(1<<3)``, ``0x10*2``) as LLVM's MC accepts
    in immediates; only integer literals and arithmetic/bitwise operators."""
    import ast

    if len(text) > 200:
        return None
    try:
        tree = ast.parse(text.replace("/", "//") if "//" not in text else text, mode="eval")
    except SyntaxError:
        return None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.UnaryOp) and type(n.op).__name__ in ("USub", "UAdd", "Invert"):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else (~v if isinstance(n.op, ast.Invert) else v)
        if isinstance(n, ast.BinOp) and type(n.op).__name__ in _BINOPS:
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, (ast.LShift, ast.RShift)) and not 0 <= b <= 64:
                raise ValueError
            if isinstance(n.op, (ast.FloorDiv, ast.Div, ast.Mod)) and b == 0:
                raise ValueError
            return _BINOPS[type(n.op).__name__](a, b)
        raise ValueError

    try:
        v = ev(tree)
    except (ValueError, RecursionError):
        return None
    return v if -(1 << 64) < v < (1 << 64) else None


def parse_float(text: str) -> float | None:
    t = text.strip()
    if not any(c in t for c in ".eE") or t.lower().startswith(("0x", "-0x")):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _lossless(v: float, fmt: str, min_normal: float) -> int | None:
    """IEEE bits of ``v`` in a narrower float format, or None where LLVM's assembler rejects
    the literal: overflow, or underflow that loses precision (AMDGPUAsmParser's
    ``canLosslesslyConvertToFPType`` allows rounding, not overflow or inexact tininess:
    ``1.5e-50`` or ``1e-40`` for f32 are errors, the exact denormal ``2**-140`` is not)."""
    try:
        b = struct.pack("<" + fmt, v)
    except OverflowError:
        return None
    r = struct.unpack("<" + fmt, b)[0]
    if r != v and abs(v) < min_normal:
        return None
    return int.from_bytes(b, "little")


def f32_bits(v: float) -> int | None:
    """binary32 bits of ``v`` (None: not representable without overflow/underflow)."""
    return _lossless(v, "f", 2.0 ** -126)


def f16_bits(v: float) -> int | None:
    """binary16 bits of ``v`` (None: not representable without overflow/underflow)."""
    return _lossless(v, "e", 2.0 ** -14)


def f64_bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


# ---------------------------------------------------------------------------------------
# Scalar/vector source and destination operands
# ---------------------------------------------------------------------------------------
def _err(msg: str, tok: Tok, base: SourceLoc, notes: tuple[str, ...] = ()) -> Diagnostic:
    return Diagnostic(msg, tok.loc(base), notes)


def sreg_code(ref: RegRef, dwords: int, tok: Tok, base: SourceLoc, what: str) -> int:
    """Field value of a scalar register (range) in a 7/8-bit field, with width and
    alignment checks (SGPR pairs even, wider ranges 4-aligned: ISA guide 3.3.1)."""
    f = ref.file
    if f in ("s", "ttmp"):
        if ref.count != dwords:
            raise _err(f"{what} expects a {dwords}-dword scalar register, got {ref} ({ref.count} dword"
                       f"{'s' if ref.count > 1 else ''})", tok, base)
        limit = NUM_SGPRS if f == "s" else 16
        if ref.index + ref.count > limit:
            raise _err(f"register {ref} out of range ({f}0..{f}{limit - 1})", tok, base)
        align = 1 if dwords == 1 else (2 if dwords == 2 else 4)
        if ref.index % align:
            raise _err(f"misaligned register range {ref}: a {dwords}-dword scalar range must start at "
                       f"a multiple of {align}", tok, base)
        return ref.index + (TTMP_BASE if f == "ttmp" else 0)
    if f in ("v", "a"):
        raise _err(f"{what} expects a scalar register, got {'VGPR' if f == 'v' else 'AGPR'} {ref}", tok, base)
    if ref.count != dwords:
        pair = SPECIAL64.get(ref.index)
        if dwords == 2 and ref.index in SPECIAL64:
            pass
        raise _err(f"{what} expects a {dwords}-dword operand, got {ref}", tok, base)
    return ref.index


SRC_FLAT_SCRATCH_BASE = {230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi"}
_INVALID_SRC = frozenset(range(209, 230)) | {232, 233, 234, 249, 250}
_INVALID_SRC64 = _INVALID_SRC | {103, 105, 107, 124, 127, 231, 254}


def src_code_valid(code: int, dwords: int) -> bool:
    """Whether LLVM 22 decodes source code ``code`` for a ``dwords``-wide operand
    (reserved codes and odd halves of 64-bit specials are rejected)."""
    if code >= 256:
        return True
    return code not in (_INVALID_SRC64 if dwords >= 2 else _INVALID_SRC)


def sreg_valid(code: int, dwords: int) -> bool:
    """Whether a 7-bit scalar register field ``code`` names a ``dwords``-wide register
    LLVM 22 decodes: tuple indices are aligned down (pairs to 2, wider to 4) and must fit
    in LLVM's SGPR tuple space (up to s103) or ttmp0..15; odd 64-bit specials are rejected;
    ``null`` (125) is accepted at any width."""
    if dwords == 1 or code == NULL:
        return code < 128
    if code < NUM_SGPRS:
        return _align(code, dwords) + dwords <= 104
    if TTMP_BASE <= code < TTMP_BASE + 16:
        return _align(code - TTMP_BASE, dwords) + dwords <= 16
    return dwords == 2 and code in SPECIAL64 and code != NULL


def _align(code: int, dwords: int) -> int:
    # LLVM's decoder drops the low bits of a misaligned SGPR/TTMP tuple index
    return code & ~1 if dwords == 2 else (code & ~3 if dwords >= 4 else code)


def format_sreg(code: int, dwords: int) -> str:
    """Text of a scalar register at ``code`` spanning ``dwords`` (7/8-bit field value)."""
    if code < NUM_SGPRS:
        return format_reg("s", _align(code, dwords), dwords)
    if TTMP_BASE <= code < TTMP_BASE + 16:
        return format_reg("ttmp", _align(code - TTMP_BASE, dwords), dwords)
    if dwords == 1:
        return SPECIAL32.get(code, f"<invalid:{code}>")
    if dwords == 2 and code in SPECIAL64:
        return SPECIAL64[code]
    if code == NULL:
        return "null"
    return SPECIAL32.get(code, f"<invalid:{code}>")


def format_src(code: int, dwords: int = 1, optype: str = "", literal: int | None = None,
               vector: bool = True) -> str:
    """Text LLVM prints for an 8/9-bit source ``code`` (VGPRs at 256+)."""
    if code >= VGPR_BASE:
        return format_reg("v", code - VGPR_BASE, dwords)
    if code <= 127:
        return format_sreg(code, dwords)
    if 128 <= code <= 208:
        return str(code - 128 if code <= 192 else 192 - code)
    if code in INLINE_FLOATS:
        t = INLINE_FLOATS[code]
        return t[4] if (dwords == 2 or optype.endswith("64")) else t[0]
    if code in SRC_FLAT_SCRATCH_BASE:
        return SRC_FLAT_SCRATCH_BASE[code]
    if code == 254 and not vector:
        # what LLVM 22 prints for lds_direct in a scalar source
        return "src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/"
    if code in SRC_SPECIAL:
        return SRC_SPECIAL[code]
    if code == LITERAL:
        return format_literal(literal or 0, dwords, optype)
    return f"<invalid:{code}>"


def format_literal(lit: int, dwords: int = 1, optype: str = "") -> str:
    if forces_lit(lit, optype, dwords):
        return format_forced(lit)  # an inline-able value kept as a literal: lit(0x...)
    if (dwords == 2 or optype.endswith("64")) and optype.startswith("f"):
        return f"0x{(lit << 32) & 0xFFFFFFFFFFFFFFFF:x}"
    return f"0x{lit & 0xFFFFFFFF:x}"


_NUMBER_START = frozenset("0123456789-+.")  # no register name starts with these


class SrcResult:
    """A source operand's field value and its literal dword, if any."""

    __slots__ = ("code", "literal")

    def __init__(self, code: int, literal: int | None = None) -> None:
        self.code = code
        self.literal = literal

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SrcResult) and (self.code, self.literal) == (other.code, other.literal)

    def __repr__(self) -> str:
        return f"SrcResult(code={self.code}, literal={self.literal})"


def encode_src(tok: Tok, base: SourceLoc, *, dwords: int = 1, optype: str = "", vgpr: bool = False,
               literal_ok: bool = True, what: str = "operand") -> SrcResult:
    """Encode a scalar (8-bit) or, with ``vgpr``, vector-ALU (9-bit) source operand."""
    text = tok.text
    # (a number is no register name: skip the register cache, which distinct literals only churn)
    ref = parse_reg(text) if text[:1] not in _NUMBER_START else None
    if ref is not None:
        if ref.file in ("v", "a"):
            if not vgpr or ref.file == "a":
                raise _err(f"{what} cannot be a{'n AGPR' if ref.file == 'a' else ' VGPR'}: expected a scalar "
                           "register, inline constant" + (" or literal" if literal_ok else ""), tok, base)
            if ref.count != dwords:
                raise _err(f"{what} expects {dwords} dword{'s' if dwords > 1 else ''}, got {ref}", tok, base)
            if ref.index + ref.count > 256:
                raise _err(f"register {ref} out of range (v0..v255)", tok, base)
            return SrcResult(VGPR_BASE + ref.index)
        return SrcResult(sreg_code(ref, dwords, tok, base, what))
    if is_lit_form(text):
        return encode_forced_literal(tok, base, dwords=dwords, optype=optype, literal_ok=literal_ok, what=what)
    low = text.lower()
    if low == "null":
        raise _err("'null' operand is not supported on this GPU", tok, base)
    if low in _SRC_ALIASES:
        if _SRC_ALIASES[low] == 254 and not vgpr:
            raise _err(f"invalid operand for instruction: {what} cannot be lds_direct (vector ALU only)", tok, base)
        if _SRC_ALIASES[low] == 254:
            reject_lds_direct(tok, base)
        if _SRC_ALIASES[low] in SRC_FLAT_SCRATCH_BASE:  # printed by the disassembler, refused by LLVM 22's assembler
            raise _err(f"{SRC_FLAT_SCRATCH_BASE[_SRC_ALIASES[low]]} register not available on this GPU", tok, base)
        return SrcResult(_SRC_ALIASES[low])
    iv = parse_int(text)
    if iv is not None:
        wide0 = dwords == 2 or optype.endswith("64")
        if not wide0 and (1 << 31) <= iv < (1 << 32):
            iv -= 1 << 32  # a 32-bit operand sees 0xffffffff as -1 (an inline constant)
        code = inline_int_code(iv)
        if code is not None:
            return SrcResult(code)
        wide = wide0
        if wide:
            c = _F64_PATTERN_CODE.get(iv)
            if c is not None:
                return SrcResult(c)
        elif -(1 << 31) <= iv < (1 << 32):
            c = _F32_PATTERN_CODE.get(iv & 0xFFFFFFFF)
            if c is not None:
                return SrcResult(c)
        if not literal_ok:
            raise _err(f"literal {text} not allowed here: {what} accepts only registers and inline constants "
                       "(-16..64, +-0.5, +-1.0, +-2.0, +-4.0, 0.15915494)", tok, base)
        if not (-(1 << 31) <= iv < (1 << 32)):
            raise _err(f"immediate {text} out of range: a literal is 32 bits", tok, base)
        if wide and optype.startswith("f"):
            # fp64 literal: the 32 bits given are the high dword (LLVM requires low dword zero)
            if iv & 0xFFFFFFFF:
                if -(1 << 31) <= iv < (1 << 32):
                    return SrcResult(LITERAL, iv & 0xFFFFFFFF)
            return SrcResult(LITERAL, (iv >> 32) & 0xFFFFFFFF)
        return SrcResult(LITERAL, iv & 0xFFFFFFFF)
    fv = parse_float(text)
    if fv is not None:
        wide = dwords == 2 or optype.endswith("64")
        for c, t in INLINE_FLOATS.items():
            if c == 248:
                # 1/(2*pi) is inline only when the value rounds to the hardware pattern
                if (wide and f64_bits(fv) == t[3]) or (not wide and f32_bits(fv) == t[1]):
                    return SrcResult(c)
            elif fv == float(t[0]):
                return SrcResult(c)
        if not literal_ok:
            raise _err(f"literal {text} not allowed here: {what} accepts only inline constants", tok, base)
        if wide:
            if not optype.startswith("f"):
                raise _err(f"invalid operand {text}: a 64-bit integer operand takes no floating-point literal",
                           tok, base)
            b = f64_bits(fv)
            if b & 0xFFFFFFFF:
                raise _err(f"floating-point literal {text} is not representable in 32 high bits", tok, base)
            return SrcResult(LITERAL, b >> 32)
        b = f32_bits(fv)
        if b is None:
            raise _err(f"floating-point literal {text} out of range for f32", tok, base)
        if b <= 64:  # an exact denormal whose bits are an inline integer (LLVM 22)
            return SrcResult(inline_int_code(b))
        return SrcResult(LITERAL, b)
    raise _err(f"invalid {what} '{text}': expected a register, inline constant or literal", tok, base)


def encode_forced_literal(tok: Tok, base: SourceLoc, *, dwords: int = 1, optype: str = "",
                          literal_ok: bool = True, what: str = "operand") -> SrcResult:
    """``lit(expr)``: the value as a literal dword even when an inline constant could hold
    it (rules and LLVM 22's diagnostics in ``gcnforge.asm.literal``)."""
    text = tok.text.strip()
    inner = split_lit(text)
    if inner is None:
        raise _err(f"expected closing parentheses in '{text}'", tok, base)
    if not literal_ok:
        raise _err(f"literal operands are not supported: {what} accepts only registers and inline constants",
                   tok, base)
    cls = value_class(optype, dwords)
    iv = parse_int(inner)
    fv = parse_float(inner) if iv is None else None
    if iv is None and fv is None:
        if parse_reg(inner) is not None or inner.lower() in _SRC_ALIASES:
            raise _err(f"not a valid operand: lit() takes a constant, not the register '{inner}'", tok, base)
        raise _err(f"not a valid operand: lit() takes a constant integer or float expression, got '{inner}'"
                   + (" (symbols are not allowed)" if inner else ""), tok, base)
    bad = f"invalid operand for instruction: {text} does not fit the literal of {what}"
    raw = tok.text
    tok = Tok(raw, tok.col + raw.index("(") + 1 + len(raw[raw.index("(") + 1:]) - len(raw[raw.index("(") + 1:].lstrip()))
    # (LLVM 22 reports a value that does not fit at the value inside ``lit(``)
    if iv is not None:
        i16 = optype.lower() in ("i16", "u16", "b16")
        hi = 1 << (16 if cls == "f16" or i16 else 32)
        if not -(hi >> 1) <= iv < hi:
            raise _err(bad, tok, base)
        # a 16-bit integer operand keeps a negative value sign-extended to 32 bits (LLVM 22)
        return SrcResult(LITERAL, iv & (0xFFFFFFFF if i16 else hi - 1))
    if cls == "i64":
        raise _err(f"{bad} (a 64-bit integer operand takes no floating-point literal)", tok, base)
    if cls == "f64":
        # only the high dword is encoded; LLVM 22 warns and drops nonzero low bits
        return SrcResult(LITERAL, f64_bits(fv) >> 32)
    if cls in ("f16", "v2f16"):
        h = f16_bits(fv)
        if h is None:
            raise _err(f"{bad} (out of range for f16)", tok, base)
        return SrcResult(LITERAL, h)
    b = f32_bits(fv)
    if b is None:
        raise _err(f"{bad} (out of range for f32)", tok, base)
    return SrcResult(LITERAL, b)


def encode_vreg(tok: Tok, base: SourceLoc, *, dwords: int = 1, files: str = "v", what: str = "operand") -> tuple[str, int]:
    """A VGPR/AGPR (range) in an 8-bit field: returns (file, index). gfx90a+ requires
    multi-dword VGPR/AGPR tuples to be even-aligned (LLVM: "invalid register alignment")."""
    ref = parse_reg(tok.text)
    if ref is not None and ref.file in ("v", "a") and ref.file in files and ref.count == dwords and ref.index + ref.count <= 256 \
            and (dwords == 1 or not ref.index % 2):
        return ref.file, ref.index  # (the usual case; the checks below say what is wrong otherwise)
    want = " or ".join({"v": "VGPR", "a": "AGPR"}[f] for f in files)
    if ref is None or ref.file not in ("v", "a"):
        raise _err(f"invalid {what} '{tok.text}': expected a {dwords}-dword {want}", tok, base)
    if ref.file not in files:
        raise _err(f"{what} must be a {want}, got {ref}", tok, base)
    check_vreg_tuple(ref, dwords, what, tok, base)
    return ref.file, ref.index


def check_vreg_tuple(ref: RegRef, dwords: int, what: str, tok: Tok, base: SourceLoc) -> None:
    """A VGPR/AGPR tuple's size, range and alignment (gfx90a+: multi-dword tuples start at an
    even register; LLVM says "invalid register alignment")."""
    if ref.count != dwords:
        raise _err(f"{what} expects a {dwords}-dword register, got {ref} ({ref.count} dword"
                   f"{'s' if ref.count > 1 else ''})", tok, base)
    if ref.index + ref.count > 256:
        raise _err(f"register {ref} out of range ({ref.file}0..{ref.file}255)", tok, base)
    if dwords > 1 and ref.index % 2:
        raise _err(f"misaligned register range {ref}: gfx942 {ref.file.upper()}GPR tuples must start at an even "
                   "register (LLVM: invalid register alignment)", tok, base)


# ---------------------------------------------------------------------------------------
# Lexing an instruction line into operand segments
# ---------------------------------------------------------------------------------------
def split_mnemonic(text: str) -> tuple[str, int, str, int]:
    """(mnemonic, its column, rest, rest's column) of one instruction line."""
    if text[:1] not in " \t":  # the usual, already stripped text: the same answer, fewer steps
        parts = text.split(None, 1)
        if len(parts) == 2 and not parts[1][-1:].isspace():
            return parts[0], 1, parts[1], len(text) - len(parts[1]) + 1
    stripped = text.lstrip(" \t")
    i = len(text) - len(stripped)
    parts = stripped.split(None, 1)
    if not parts:
        return "", i + 1, "", i + 1
    mnem = parts[0]
    if len(parts) == 1:
        return mnem, i + 1, "", i + 1 + len(mnem)
    rest = parts[1].rstrip()
    k = len(text) - len(parts[1]) if text.endswith(parts[1]) else text.index(parts[1], i + len(mnem))
    return mnem, i + 1, rest, k + 1


_WORD = re.compile(r"((?:[^\s,(\[|]+|\([^)]*\)|\[[^\]]*\]|\|[^|]*\|)+)|(,)")


def _plain_brackets(rest: str) -> bool:
    """True when every [...] group is free of commas and spaces (v[0:1], s[4:7])."""
    i = rest.find("[")
    while i >= 0:
        j = rest.find("]", i)
        if j < 0:
            return False
        inner = rest[i + 1:j]
        if "," in inner or " " in inner or "\t" in inner or "[" in inner:
            return False
        i = rest.find("[", j)
    return True


def lex_operands(rest: str, col0: int) -> list[list[Tok]]:
    """Split the operand text into comma-separated segments of whitespace-separated words,
    keeping ``(...)``, ``[...]`` and ``|...|`` groups whole. Columns are 1-based in the line.
    ``lit (x)`` (LLVM allows blanks before the parenthesis) is one word ``lit(x)``."""
    segs = _lex_words(rest, col0)
    if "lit" in rest:
        for seg in segs:
            for i in range(len(seg) - 2, -1, -1):
                if seg[i].text == "lit" and seg[i + 1].text.startswith("("):
                    seg[i:i + 2] = [Tok("lit" + seg[i + 1].text, seg[i].col)]
    return segs


def _lex_words(rest: str, col0: int) -> list[list[Tok]]:
    if "(" not in rest and "|" not in rest and _plain_brackets(rest):
        # fast path: no group can hold a comma or a space, so plain splitting is exact
        segs = []
        pos = col0
        for part in rest.split(","):
            ws = part.split()
            if len(ws) == 1:  # the usual operand: one word
                segs.append([Tok(ws[0], pos + part.find(ws[0]))])
            else:
                words = []
                cur = 0
                for w in ws:
                    cur = part.find(w, cur)
                    words.append(Tok(w, pos + cur))
                    cur += len(w)
                segs.append(words)
            pos += len(part) + 1
        return segs
    if "((" not in rest and "[[" not in rest and rest.count("(") == rest.count(")") \
            and rest.count("[") == rest.count("]") and rest.count("|") % 2 == 0:
        segs: list[list[Tok]] = [[]]
        for m in _WORD.finditer(rest):
            w = m.group(1)
            if w is None:
                segs.append([])
            else:
                segs[-1].append(Tok(w, col0 + m.start()))
        return segs
    return _lex_slow(rest, col0)


def _lex_slow(rest: str, col0: int) -> list[list[Tok]]:
    segs: list[list[Tok]] = []
    cur: list[Tok] = []
    word_start = -1
    depth = 0
    bars = False
    i = 0
    n = len(rest)

    def flush(end: int) -> None:
        nonlocal word_start
        if word_start >= 0:
            cur.append(Tok(rest[word_start:end], col0 + word_start))
            word_start = -1

    while i < n:
        c = rest[i]
        if depth == 0 and not bars and c in " \t":
            # a word continues across spaces before ':' / '[' ... only inside groups
            flush(i)
        elif depth == 0 and not bars and c == ",":
            flush(i)
            segs.append(cur)
            cur = []
        else:
            if word_start < 0:
                word_start = i
            if c in "([":
                depth += 1
            elif c in ")]":
                depth = max(0, depth - 1)
            elif c == "|":
                bars = not bars
        i += 1
    flush(n)
    if cur or segs:
        segs.append(cur)
    return segs

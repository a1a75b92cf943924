"""The ``lit(...)`` literal modifier of LLVM's AMDGPU syntax: when the disassembler prints it,
and how the assembler reads it.

A source operand whose field says "literal dword follows" (code 255) may hold a value that
an inline constant could also have expressed. Re-assembling the plain number would then
choose the inline constant and lose the literal dword (a different, shorter encoding), so
LLVM 22 prints such a literal as ``lit(0x...)`` and its assembler accepts ``lit(expr)`` to
force the literal encoding.

The rule, probed against ``llvm-mc -mcpu=gfx942 --disassemble`` (LLVM 22; every 32-bit
literal L in -20..70, the f16/f32/f64 inline patterns and neighbours, for SOP1/SOP2/SOPC and
VOP1/VOP2/VOPC operands of every operand type) -- it depends only on the operand's value
type, never on SALU vs VALU:

* 32-bit operands (b32/i32/u32/f32, and i16/u16/b16/v2i16, which LLVM checks as 32-bit):
  ``lit`` iff L is a 32-bit inline constant: 0..64, 0xfffffff0..0xffffffff (-16..-1), or an
  f32 inline bit pattern (+-0.5, +-1.0, +-2.0, +-4.0, 1/(2*pi) = 0x3e22f983).
* f16 (and bf16) operands: ``lit`` iff the LOW 16 bits of L are an f16 inline constant
  (0..64, 0xfff0..0xffff, or an f16 pattern 0x3800 0xb800 0x3c00 0xbc00 0x4000 0xc000
  0x4400 0xc400 0x3118); the whole dword is printed inside ``lit()`` (``lit(0x13c00)``),
  while a plain f16 literal prints only its low 16 bits.
* packed v2f16/v2bf16 operands: ``lit`` iff L is a 32-bit inline integer or an f16 inline
  pattern zero-extended (0x3c00, ...), not f32 patterns.
* 64-bit integer operands (b64/i64/u64: the dword is zero-extended): ``lit`` iff L <= 64.
* f64 operands (the dword is the high half): never ``lit`` -- LLVM prints the value an
  inline-equivalent literal stands for as that constant (``1.0``), so it cannot round-trip.
* the K constant of v_fmamk/v_fmaak/v_madmk/v_madak and simm32 operands are always
  literals and never print ``lit``.

Assembler (same probe, ``llvm-mc -show-encoding``): ``lit(expr)`` takes a constant integer
expression or a float (no symbol, no register), lowercase ``lit`` only, optional blanks
before ``(``; the value is converted as for a plain operand of the operand's type (float ->
f32/f16 bits, or the f64 high dword) and always emitted as a literal dword. A value that
does not fit the operand's literal (more than 32 bits, a float for a 64-bit integer operand,
an integer of more than 16 bits for f16/i16 -- i16 keeps negatives sign-extended to 32 bits)
is "invalid operand for instruction"; an f64 float keeps its high dword (LLVM warns when the
low dword is not zero).
"""

from __future__ import annotations

import re

from gcnforge.isa import inline

# f32 and f16 bit patterns of the inline floats (gcnforge.isa.inline)
F32_INLINE_BITS = inline.F32_BITS
F16_INLINE_BITS = inline.F16_BITS

_LIT = re.compile(r"^lit\s*\((.*)\)$", re.S)


def value_class(optype: str, dwords: int) -> str:
    """'f64', 'i64', 'f16', 'v2f16' or '32' -- the operand classes the ``lit`` rule tells apart."""
    t = optype.lower()
    if t == "f64":
        return "f64"
    if t in ("b64", "i64", "u64") or (not t and dwords == 2):
        return "i64"
    if t in ("f16", "bf16"):
        return "f16"
    if t in ("v2f16", "v2bf16"):
        return "v2f16"
    return "32"


def _inline_int32(v: int) -> bool:
    return v <= 64 or v >= 0xFFFFFFF0


def forces_lit(lit: int, optype: str, dwords: int = 1) -> bool:
    """Whether LLVM 22 prints the literal dword ``lit`` of an operand of this type as
    ``lit(...)`` (the value could have been an inline constant). See the module docstring."""
    v = lit & 0xFFFFFFFF
    cls = value_class(optype, dwords)
    if cls == "f64":
        return False
    if cls == "i64":
        return v <= 64
    if cls == "f16":
        lo = v & 0xFFFF
        return lo <= 64 or lo >= 0xFFF0 or lo in F16_INLINE_BITS
    if cls == "v2f16":
        return _inline_int32(v) or v in F16_INLINE_BITS
    return _inline_int32(v) or v in F32_INLINE_BITS


def format_forced(lit: int) -> str:
    """The text of a forced literal: the whole dword in hex."""
    return f"lit(0x{lit & 0xFFFFFFFF:x})"


def split_lit(text: str) -> str | None:
    """The inner text of ``lit(...)`` (stripped), or None if ``text`` is not a ``lit`` form.
    An empty or unclosed ``lit(`` returns the (possibly empty) inner text / raises nothing:
    callers diagnose it."""
    m = _LIT.match(text.strip())
    if m is None:
        return None
    return m.group(1).strip()


_LIT_START = re.compile(r"lit\s*\(")


def is_lit_form(text: str) -> bool:
    """Whether ``text`` starts a ``lit(`` form (closed or not)."""
    return "lit" in text and _LIT_START.match(text.strip()) is not None


# f64 inline floats whose bit pattern has a zero low dword (so a 32-bit f64 literal can equal
# them): +-0.5, +-1.0, +-2.0, +-4.0 (1/(2*pi) has low bits set and never matches).
_F64_HIGH_INLINE = {0x3FE00000: "0.5", 0xBFE00000: "-0.5", 0x3FF00000: "1.0", 0xBFF00000: "-1.0",
                    0x40000000: "2.0", 0xC0000000: "-2.0", 0x40100000: "4.0", 0xC0100000: "-4.0"}


def f64_literal_text(lit: int) -> str | None:
    """What LLVM 22 prints for an f64 operand's literal dword (the high half) whose 64-bit
    value is an inline constant -- the constant itself (``0``, ``1.0``) instead of ``lit()``;
    None when it is an ordinary literal."""
    v = lit & 0xFFFFFFFF
    return "0" if v == 0 else _F64_HIGH_INLINE.get(v)

"""Inline constants of gfx942 source operands: the one table of their codes, values and bit patterns.

AMD Instinct MI300 (CDNA3) ISA Reference Guide, 3.7 "Operands" / the SSRC0/SRC0 tables:
codes 128..192 are the integers 0..64, 193..208 are -1..-16, 240..247 are the floats 0.5,
-0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0 and 248 is 1/(2*pi). A float constant takes the
operand's precision; 1/(2*pi) uses the hardware's own bit patterns (below): the f16 and f32
ones are the correctly rounded values, the f64 one (0x3fc45f306dc9c882) is one ulp below
(LLVM's AMDGPUBaseInfo isInlinableLiteral64 uses the same pattern). LLVM prints 1/(2*pi) as
``0.15915494`` (``0.15915494309189532`` for 64-bit operands).
"""

from __future__ import annotations

import struct

INT_MIN, INT_MAX = -16, 64
INV_2PI_CODE = 248
# 1/(2*pi) per width (ISA guide 3.7.1)
INV_2PI_BITS = {16: 0x3118, 32: 0x3E22F983, 64: 0x3FC45F306DC9C882}
INV_2PI = struct.unpack("<d", INV_2PI_BITS[64].to_bytes(8, "little"))[0]  # the f64 the hardware holds
INV_2PI_TEXT = {32: "0.15915494", 64: "0.15915494309189532"}  # as LLVM prints it

PLAIN_FLOATS = (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0)  # codes 240..247
FLOAT_CODES: dict[int, float] = {**dict(zip(range(240, 248), PLAIN_FLOATS)), INV_2PI_CODE: INV_2PI}


def float_bits(code: int, width: int) -> int:
    """Bit pattern of float inline constant ``code`` at ``width`` (16, 32 or 64) bits."""
    if code == INV_2PI_CODE:
        return INV_2PI_BITS[width]
    fmt = {16: ("<e", "<H"), 32: ("<f", "<I"), 64: ("<d", "<Q")}[width]
    return struct.unpack(fmt[1], struct.pack(fmt[0], FLOAT_CODES[code]))[0]


F16_BITS = frozenset(float_bits(c, 16) for c in FLOAT_CODES)
F32_BITS = frozenset(float_bits(c, 32) for c in FLOAT_CODES)
F64_BITS = frozenset(float_bits(c, 64) for c in FLOAT_CODES)


def int_code(v: int) -> int | None:
    """The source code of integer inline constant ``v``, or None."""
    if 0 <= v <= INT_MAX:
        return 128 + v
    if INT_MIN <= v <= -1:
        return 192 - v
    return None


def code_int(code: int) -> int | None:
    """The integer of inline-constant code ``code`` (128..208), or None."""
    if 128 <= code <= 192:
        return code - 128
    if 193 <= code <= 208:
        return 192 - code
    return None


def is_inline_float(v: float, width: int) -> bool:
    """Whether float ``v`` is an inline constant for a ``width``-bit operand (1/(2*pi) only
    when ``v`` rounds to the hardware pattern at that width)."""
    if v == 0.0 or v in PLAIN_FLOATS:
        return True
    if width == 64:  # the hardware pattern, or 1/(2*pi) correctly rounded (one ulp above it)
        return struct.unpack("<Q", struct.pack("<d", v))[0] - INV_2PI_BITS[64] in (0, 1)
    try:
        return struct.unpack("<I", struct.pack("<f", v))[0] == INV_2PI_BITS[32]
    except OverflowError:
        return False

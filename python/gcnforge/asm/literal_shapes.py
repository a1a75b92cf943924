"""Scalar-ALU lines that differ only in one integer literal (``s_add_u32 s4, s4, 0x1a2b``,
``s_add_u32 s4, s4, 0x1a2c``, ...: address and constant arithmetic in unrolled code) share
one full parse: the fields are the same, only the literal dword differs.

A line qualifies as a *shape* when its text has exactly one integer token, its only
candidate instruction is SOP1/SOP2/SOPC (parsed by the table-driven ``Codec.parse_with``
with the default source-operand handler), and the parse put exactly one source operand on
the literal (field value 255), which that token re-encodes to. Another line with the same
text around its integer token reuses the parse when ``encode_src`` gives that token a
literal for the same operand too; anything else (an inline constant, a value out of range,
a new shape) takes the full parse, so every diagnostic comes from there.
"""

from __future__ import annotations

import re

from gcnforge.asm.core import ParsedInst, _KIND_HANDLERS  # noqa: PLC2701  (the default handlers)
from gcnforge.asm.operands import LITERAL, Tok, encode_src
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa.schema import OperandKind

# an unsigned decimal or hex integer that is a whole operand (after a blank or comma, before
# a comma or the end): not part of a register (s[4:5]), a modifier (offset:16) or lit(5)
_INT_TOKEN = re.compile(r"(?<=[ \t,])(?:0[xX][0-9a-fA-F]+|[0-9]+)(?=[ \t]*(?:,|$))")
_SCALAR = frozenset(("SOP1", "SOP2", "SOPC"))
_MAX_SHAPES = 4096  # bounded: the input chooses the texts


class LiteralShapes:
    """The shapes seen so far in one assembly run (one target's table)."""

    __slots__ = ("_shapes",)

    def __init__(self) -> None:
        # (text before the integer, text after it) -> (parse, its literal operand, vgpr flag)
        self._shapes: dict[tuple[str, str], tuple] = {}

    def reuse(self, text: str, loc: SourceLoc) -> ParsedInst | None:
        """The parse of ``text`` from a remembered shape, or None (then parse it fully)."""
        if not self._shapes:
            return None
        m = _only_int(text)
        if m is None:
            return None
        hit = self._shapes.get((text[:m.start()], text[m.end():]))
        if hit is None:
            return None
        parsed, op, vgpr = hit
        literal = _literal(m.group(), m.start() + 1, loc, op, vgpr)
        if literal is None:
            return None
        return ParsedInst(parsed.inst, parsed.fields, literal, parsed.size, (), loc, parsed.codec, (), parsed.extra)

    def remember(self, text: str, parsed: ParsedInst) -> None:
        """Keep ``parsed`` (the full parse of ``text``) as a shape when it qualifies."""
        inst = parsed.inst
        if inst.encoding not in _SCALAR or parsed.fixups or parsed.literal is None or len(self._shapes) >= _MAX_SHAPES:
            return
        m = _only_int(text)
        if m is None:
            return
        lit_ops = [op for op in inst.operands if op.field and parsed.fields.get(op.field) == LITERAL]
        if len(lit_ops) != 1 or any(op.field == "literal" for op in inst.operands):
            return
        op = lit_ops[0]
        if op.kind is not OperandKind.SSRC or not op.literal:
            return
        handler = _KIND_HANDLERS.get(op.kind)
        if parsed.codec.handler(op.kind) is not handler or getattr(handler, "vgpr", None) is not False:
            return
        from gcnforge.asm import candidates

        if len(candidates(text.split(None, 1)[0])) != 1:  # another candidate might take another value
            return
        if _literal(m.group(), m.start() + 1, parsed.loc, op, False) != parsed.literal:
            return  # the integer token is not the literal operand's
        self._shapes[(text[:m.start()], text[m.end():])] = (parsed, op, False)


def _only_int(text: str):
    it = _INT_TOKEN.finditer(text)
    m = next(it, None)
    if m is None or next(it, None) is not None:
        return None
    return m


def _literal(token: str, col: int, loc: SourceLoc, op, vgpr: bool) -> int | None:
    """The literal dword ``token`` encodes to as operand ``op``, or None when it is not a
    literal there (an inline constant) or is refused (the full parse reports why)."""
    try:
        r = encode_src(Tok(token, col), loc, dwords=op.dwords, optype=op.optype, vgpr=vgpr, literal_ok=True,
                       what=op.name)
    except Diagnostic:
        return None
    return r.literal if r.code == LITERAL else None

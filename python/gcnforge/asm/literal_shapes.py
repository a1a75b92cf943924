"""Lines that differ only in one number share one full parse (unrolled code: address and
constant arithmetic ``s_add_u32 s4, s4, 0x1a2b`` / ``0x1a2c`` ..., memory accesses
``global_load_dword v6, v[0:1], off offset:16`` / ``offset:20`` ...).

A line's *shape* is its text with that number cut out (the text before it, the text after
it); the shape keeps the full parse and a *slot* that places a new number the way the full
parser does for that position, or declines (then the line is parsed fully, so every
diagnostic comes from the full parser). Two kinds of slot:

* an integer literal of a scalar-ALU line (below);
* the ``offset:N`` modifier of a DS or FLAT/GLOBAL/SCRATCH line: the codec's own ``offset``
  modifier parser (its range rules) writes the offset fields into a copy of the parse's
  fields; those codecs' other checks (``finish_parse``, the sc0 rule of returning atomics)
  do not read the offset, and remembering checks that re-placing the line's own value
  gives back exactly the parse's fields.

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

from gcnforge.asm.core import Codec, EncState, ParsedInst, _KIND_HANDLERS  # noqa: PLC2701  (the default handlers)
from gcnforge.asm.operands import LITERAL, Tok, encode_src
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import OperandKind

# an unsigned decimal or hex integer that is a whole operand (after a blank or comma, before
# a comma or the end): not part of a register (s[4:5]), a modifier (offset:16) or lit(5)
_INT_TOKEN = re.compile(r"(?<=[ \t,])(?:0[xX][0-9a-fA-F]+|[0-9]+)(?=[ \t]*(?:,|$))")
_SCALAR = frozenset(("SOP1", "SOP2", "SOPC"))
_MAX_SHAPES = 4096  # bounded: the input chooses the texts
# ``offset:N`` with a plain integer N as its own word (swizzle(...) and expressions: full parse)
_OFFSET_MOD = re.compile(r"(?<=[ \t])offset:(-?(?:0[xX][0-9a-fA-F]+|[0-9]+))(?=[ \t]|$)")


class LiteralShapes:
    """The shapes seen so far in one assembly run (one target's table)."""

    __slots__ = ("_shapes", "_offsets", "_mnemonics")

    def __init__(self) -> None:
        # (text before the integer, text after it) -> (parse, its literal operand, vgpr flag)
        self._shapes: dict[tuple[str, str], tuple] = {}
        # (text before the offset value, text after it) -> (parse, the codec's offset ModSpec)
        self._offsets: dict[tuple[str, str], tuple] = {}
        self._mnemonics: set[str] = set()  # of the remembered shapes: most lines skip the regexes

    def reuse(self, text: str, loc: SourceLoc) -> ParsedInst | None:
        """The parse of ``text`` from a remembered shape, or None (then parse it fully)."""
        if text.split(None, 1)[0] not in self._mnemonics:
            return None
        if "offset:" in text and self._offsets:
            return self._reuse_offset(text, loc)
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

    def _reuse_offset(self, text: str, loc: SourceLoc) -> ParsedInst | None:
        m = _only_offset(text)
        if m is None:
            return None
        hit = self._offsets.get((text[:m.start(1)], text[m.end(1):]))
        if hit is None:
            return None
        parsed, spec = hit
        fields = _place_offset(parsed, spec, m, loc)
        if fields is None:
            return None
        return ParsedInst(parsed.inst, fields, None, parsed.size, (), loc, parsed.codec, (), parsed.extra)

    def remember(self, text: str, parsed: ParsedInst) -> None:
        """Keep ``parsed`` (the full parse of ``text``) as a shape when it qualifies."""
        if len(self._shapes) + len(self._offsets) >= _MAX_SHAPES or parsed.fixups:
            return
        if "offset:" in text:
            self._remember_offset(text, parsed)
            return
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
        self._mnemonics.add(text.split(None, 1)[0])

    def _remember_offset(self, text: str, parsed: ParsedInst) -> None:
        from gcnforge.asm import candidates
        from gcnforge.asm.families.memory import DsCodec, FlatCodec

        # only the codecs whose other checks do not read the offset (see the module docstring)
        if parsed.literal is not None or type(parsed.codec).parse_with is not Codec.parse_with \
                or not isinstance(parsed.codec, (DsCodec, FlatCodec)):
            return
        m = _only_offset(text)
        if m is None or len(candidates(text.split(None, 1)[0])) != 1:
            return
        spec = parsed.codec.modifiers.get("offset")
        if spec is None or "offset" not in parsed.inst.modifiers:
            return
        if _place_offset(parsed, spec, m, parsed.loc) != parsed.fields:
            return  # the slot does not reproduce this very line: keep parsing such lines fully
        self._offsets[(text[:m.start(1)], text[m.end(1):])] = (parsed, spec)
        self._mnemonics.add(text.split(None, 1)[0])


def _only_offset(text: str):
    it = _OFFSET_MOD.finditer(text)
    m = next(it, None)
    if m is None or next(it, None) is not None:
        return None
    return m


def _place_offset(parsed: ParsedInst, spec, m, loc: SourceLoc) -> dict | None:
    """``parsed``'s fields with the offset of match ``m`` placed by the codec's modifier
    parser, or None when it refuses the value (the full parse reports why)."""
    fields = dict(parsed.fields)
    st = EncState(parsed.inst, ENCODINGS[parsed.inst.encoding], loc, fields)
    try:
        spec.parse(st, m.group(1), Tok(m.group(), m.start() + 1))
    except Diagnostic:
        return None
    if st.literal is not None or st.fixups or st.extra:
        return None
    return fields


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

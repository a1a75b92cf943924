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
  gives back exactly the parse's fields;
* any numbers in the operands of a VOP1/VOP2/VOPC (``_e32``) or VOP3 line (register numbers,
  literals, inline constants: ``v_fma_f32 v4, v20, v31, 0.5`` / ``v4, v27, v81, 0.5``): the
  shape is the line with every number cut out; each operand whose numbers changed is parsed
  again by the codec's own ``parse_operand`` (register files, ranges, alignment, literal
  rules) into a copy of the fields, then the codec's cross-operand checks (``finish``: the
  constant bus) run on the result. A VOP operand parse writes only its own fields (the
  source's field, its neg/abs bits, the literal), so the order does not matter; a number in
  a modifier (``mul:2``) is part of the shape, not a slot.

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
from gcnforge.asm.operands import LITERAL, Tok, encode_src, lex_operands, split_mnemonic
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import OperandKind

# an unsigned decimal or hex integer that is a whole operand (after a blank or comma, before
# a comma or the end): not part of a register (s[4:5]), a modifier (offset:16) or lit(5)
_INT_TOKEN = re.compile(r"(?<=[ \t,])(?:0[xX][0-9a-fA-F]+|[0-9]+)(?=[ \t]*(?:,|$))")
_SCALAR = frozenset(("SOP1", "SOP2", "SOPC"))
_MAX_SHAPES = 4096  # bounded: the input chooses the texts
# ``offset:N`` with a plain integer N as its own word (swizzle(...) and expressions: full parse)
_NUMS = re.compile(r"(0[xX][0-9a-fA-F]+|[0-9]+)")  # (captured: split gives text, number, text, ...)
_OFFSET_MOD = re.compile(r"(?<=[ \t])offset:(-?(?:0[xX][0-9a-fA-F]+|[0-9]+))(?=[ \t]|$)")


class LiteralShapes:
    """The shapes seen so far in one assembly run (one target's table)."""

    __slots__ = ("_shapes", "_offsets", "_mnemonics", "_vop", "_vop_mnemonics", "_vop_literals")

    def __init__(self) -> None:
        # (text before the integer, text after it) -> (parse, its literal operand, vgpr flag)
        self._shapes: dict[tuple[str, str], tuple] = {}
        # (text before the offset value, text after it) -> (parse, the codec's offset ModSpec)
        self._offsets: dict[tuple[str, str], tuple] = {}
        self._mnemonics: set[str] = set()  # of the remembered shapes: most lines skip the regexes
        # (text up to the operands, the operand text between its numbers) -> _VopShape
        self._vop: dict[tuple, _VopShape] = {}
        self._vop_mnemonics: set[str] = set()
        # (text before an e32 line's literal, text after it) -> (parse, literal operand, _VopShape)
        self._vop_literals: dict[tuple[str, str], tuple] = {}

    def reuse(self, text: str, loc: SourceLoc, head: str | None = None) -> ParsedInst | None:
        """The parse of ``text`` from a remembered shape, or None (then parse it fully).
        ``head``: the text's first word, when the caller has it already."""
        if head is None:
            head = text.split(None, 1)[0]
        if head not in self._mnemonics:
            return None
        if head in self._vop_mnemonics:
            if self._vop_literals:  # an e32 line whose only whole-number operand is its literal
                m = _only_int(text)
                hit = None if m is None else self._vop_literals.get((text[:m.start()], text[m.end():]))
                if hit is not None:
                    return _place_vop_literal(hit, m, loc)
            return self._reuse_vop(text, loc)
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
        if parsed.fixups or len(self._shapes) + len(self._offsets) + len(self._vop) + len(self._vop_literals) \
                >= _MAX_SHAPES:
            return
        from gcnforge.asm.vop_alu import E32Codec, Vop3Codec

        if type(parsed.codec) in (E32Codec, Vop3Codec):
            self._remember_vop(text, parsed)
            if type(parsed.codec) is E32Codec and text.split(None, 1)[0] in self._vop_mnemonics:
                self._remember_vop_literal(text, parsed)
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

    def _remember_vop_literal(self, text: str, parsed: ParsedInst) -> None:
        """An e32 line's literal as a shape of its own (``v_add_f32_e32 v3, 0x3f800003, v2``):
        cheaper to find than the operand-numbers shape (one number, no split)."""
        m = _only_int(text)
        shape = self._vop.get(_vop_key(text))
        if m is None or shape is None or len(shape.holders) != 1 or parsed.literal is None:
            return
        i = next(iter(shape.holders))
        _, _, rest, rcol = split_mnemonic(text)
        segs = lex_operands(rest, rcol)
        if len(segs) <= i or not segs[i] or segs[i][0] != (m.group(), m.start() + 1):
            return  # the number is not that operand's whole word
        op = parsed.inst.operands[i]
        hit = (parsed, op, shape)
        if _place_vop_literal(hit, m, parsed.loc) != parsed:
            return  # the number is not (only) the literal operand's word
        self._vop_literals[(text[:m.start()], text[m.end():])] = hit

    def _reuse_vop(self, text: str, loc: SourceLoc) -> ParsedInst | None:
        _, _, rest, rcol = split_mnemonic(text)
        parts = _NUMS.split(rest)
        shape = self._vop.get((text[:rcol - 1], tuple(parts[0::2])))
        if shape is None:
            return None
        return shape.place(parts, loc)

    def _remember_vop(self, text: str, parsed: ParsedInst) -> None:
        from gcnforge.asm import candidates

        inst = parsed.inst
        mnem, _, rest, rcol = split_mnemonic(text)
        ops = inst.operands
        if not ops or "v_bitop3_" in inst.base or "_swap_" in inst.base or len(candidates(mnem)) != 1 \
                or any(op.kind is OperandKind.IMM or op.field == "literal" for op in ops):
            return
        parts = _NUMS.split(rest)
        if len(parts) == 1:
            return  # no number: the same text is the same line (the caller's cache)
        segs = lex_operands(rest, rcol)
        if len(segs) != len(ops) or any(not seg or len(seg) > 1 for seg in segs[:-1]):
            return
        starts = _starts(parts)
        spans = []
        for seg in segs[:len(ops)]:
            tok = seg[0]
            a = tok.col - rcol
            b = a + len(tok.text)
            if rest[a:b] != tok.text:
                return  # a word the lexer rewrote (lit (x)): not a plain slice of the line
            spans.append((_at(starts, a), _at(starts, b)))
        owners = []
        for k in range(1, len(parts), 2):
            p = starts[k]
            owner = [i for i, (sa, sb) in enumerate(spans) if starts[sa[0]] + sa[1] <= p < starts[sb[0]] + sb[1]]
            owners.append(owner[0] if owner else None)
        shape = _VopShape(parsed, parts[1::2], tuple(owners), tuple(spans), rcol)
        if shape.place(parts, parsed.loc, every=True) != parsed:
            return  # parsing this very line's operands again does not give its parse back
        self._vop[(text[:rcol - 1], tuple(parts[0::2]))] = shape
        self._mnemonics.add(mnem)
        self._vop_mnemonics.add(mnem)


class _VopShape:
    """A VOP line's parse and where its numbers are: ``owners[k]`` is the operand index of
    number ``k`` (None: in a modifier), ``spans[i]`` operand ``i``'s word as (part, offset)
    at both ends (the ends of a word never fall inside a number)."""

    __slots__ = ("parsed", "values", "owners", "spans", "rcol", "holders", "enc")

    def __init__(self, parsed: ParsedInst, values: list[str], owners: tuple, spans: tuple, rcol: int) -> None:
        self.parsed = parsed
        self.values = values
        self.owners = owners
        self.spans = spans
        self.rcol = rcol
        ops = parsed.inst.operands
        # the operands that hold the parse's literal (a literal may be written twice)
        self.holders = frozenset(i for i, op in enumerate(ops) if op.kind is OperandKind.SRC and op.field
                                 and parsed.fields.get(op.field) == LITERAL)
        self.enc = ENCODINGS[parsed.inst.encoding]

    def place(self, parts: list[str], loc: SourceLoc, every: bool = False) -> ParsedInst | None:
        """The parse of the line whose operand text splits into ``parts`` (its numbers at the
        odd places), or None when an operand parse or a cross-operand check refuses it."""
        changed: list[int] = []  # operand indices, in order (numbers are in operand order)
        owners = self.owners
        k = 0
        for new, old in zip(parts[1::2], self.values):
            if new != old or every:
                o = owners[k]
                if o is None:
                    if not every:
                        return None  # a modifier's number: another shape
                elif not changed or changed[-1] != o:
                    changed.append(o)
            k += 1
        parsed = self.parsed
        inst = parsed.inst
        codec = parsed.codec
        ops = inst.operands
        fields = dict(parsed.fields)
        st = EncState(inst, self.enc, loc, fields, extra=dict(parsed.extra) if parsed.extra else None)
        if parsed.literal is not None and not self.holders.issubset(changed):
            st.literal = parsed.literal  # an operand not parsed again holds it
        toks = _Words(self, parts)
        try:
            for i in changed:
                op = ops[i]
                codec.parse_operand(st, op, toks[op.name])
            codec.finish(st, toks)
        except Diagnostic:
            return None
        size = self.enc.size + (4 if st.literal is not None or codec.has_literal(inst, fields) else 0)
        return ParsedInst(inst, fields, st.literal, size, (), loc, codec, (), st.extra)


class _Words(dict):
    """Operand name -> its word in the new line, made when asked (the cross-operand checks
    ask only to report an error)."""

    __slots__ = ("shape", "parts")

    def __init__(self, shape: _VopShape, parts: list[str]) -> None:
        super().__init__()
        self.shape = shape
        self.parts = parts

    def __missing__(self, name: str) -> Tok:
        shape = self.shape
        parts = self.parts
        for op, ((ja, oa), (jb, ob)) in zip(shape.parsed.inst.operands, shape.spans):
            if op.name == name:
                word = parts[ja][oa:ob] if ja == jb else parts[ja][oa:] + "".join(parts[ja + 1:jb]) + parts[jb][:ob]
                tok = self[name] = Tok(word, shape.rcol + len("".join(parts[:ja])) + oa)
                return tok
        raise KeyError(name)


def _vop_key(text: str) -> tuple:
    _, _, rest, rcol = split_mnemonic(text)
    return text[:rcol - 1], tuple(_NUMS.split(rest)[0::2])


def _place_vop_literal(hit: tuple, m, loc: SourceLoc) -> ParsedInst | None:
    """The parse of an e32 line whose literal operand's word is ``m``'s number: that operand
    parsed again by the codec, then its cross-operand checks, as in ``_VopShape.place``."""
    parsed, op, shape = hit
    codec = parsed.codec
    inst = parsed.inst
    fields = dict(parsed.fields)
    st = EncState(inst, shape.enc, loc, fields, extra=dict(parsed.extra) if parsed.extra else None)
    tok = Tok(m.group(), m.start() + 1)
    try:
        codec.parse_operand(st, op, tok)
        codec.finish(st, _OneWord(tok))
    except Diagnostic:
        return None
    size = shape.enc.size + (4 if st.literal is not None or codec.has_literal(inst, fields) else 0)
    return ParsedInst(inst, fields, st.literal, size, (), loc, codec, (), st.extra)


class _OneWord(dict):
    """Any operand name -> the literal's word: the cross-operand checks ask for a word only
    to report an error, and any error sends the line to the full parse."""

    __slots__ = ("tok",)

    def __init__(self, tok: Tok) -> None:
        super().__init__()
        self.tok = tok

    def __missing__(self, name: str) -> Tok:
        return self.tok


def _starts(parts: list[str]) -> list[int]:
    out = [0]
    n = 0
    for p in parts:
        n += len(p)
        out.append(n)
    return out


def _at(starts: list[int], pos: int) -> tuple[int, int]:
    """``pos`` as (text part, offset in it): the first text (even) part that holds it."""
    for j in range(0, len(starts) - 1, 2):
        if starts[j] <= pos <= starts[j + 1]:
            return j, pos - starts[j]
    raise AssertionError(pos)


def _only_offset(text: str):
    m = _offset_search(text)
    if m is None or _offset_search(text, m.end()) is not None:  # (a second one: no slot)
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
    m = _int_search(text)
    if m is None or _int_search(text, m.end()) is not None:  # (a second one: no slot)
        return None
    return m


_int_search = _INT_TOKEN.search  # (the look-behinds see the text before ``pos`` too)
_offset_search = _OFFSET_MOD.search


def _literal(token: str, col: int, loc: SourceLoc, op, vgpr: bool) -> int | None:
    """The literal dword ``token`` encodes to as operand ``op``, or None when it is not a
    literal there (an inline constant) or is refused (the full parse reports why)."""
    try:
        r = encode_src(Tok(token, col), loc, dwords=op.dwords, optype=op.optype, vgpr=vgpr, literal_ok=True,
                       what=op.name)
    except Diagnostic:
        return None
    return r.literal if r.code == LITERAL else None

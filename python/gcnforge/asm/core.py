"""The table-driven codec framework: parsed and decoded instruction objects, the
``Codec`` base class every encoding family specialises, operand-kind handlers and modifier
specs, and the family registry.  See the package docstring (``gcnforge.asm``) for the
extension contract."""

from __future__ import annotations

from collections.abc import Callable

from gcnforge.asm.operands import Tok
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.record import FrozenRecord, Record, set_fields
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Encoding, Instruction, Operand, OperandKind



# ---------------------------------------------------------------------------------------
# Values handed to users (emulator, passes). Records (gcnforge.record), not dataclasses:
# ``gcnforge as`` start-up time.
# ---------------------------------------------------------------------------------------
class OperandValue(FrozenRecord):
    """One decoded operand. A register: ``file`` in 's','v','a','ttmp' or a special name
    ('vcc', 'exec', 'm0', 'scc', 'flat_scratch', 'src_shared_base', ...), ``index`` (first
    register; for specials their source code) and ``dwords``.  A constant: ``file`` None and
    ``value`` the bit pattern (inline constants already converted for the operand type;
    ``literal`` True when it came from the literal dword).  Labels: ``value`` is the signed
    dword offset and ``target`` the byte address when known."""

    __slots__ = _fields = ("name", "file", "index", "dwords", "value", "literal", "target")
    name: str
    file: str | None
    index: int
    dwords: int
    value: int | None
    literal: bool
    target: int | None

    def __init__(self, name: str, file: str | None = None, index: int = 0, dwords: int = 1,
                 value: int | None = None, literal: bool = False, target: int | None = None) -> None:
        _set = object.__setattr__  # direct: one per decoded operand (set_fields loops)
        _set(self, "name", name)
        _set(self, "file", file)
        _set(self, "index", index)
        _set(self, "dwords", dwords)
        _set(self, "value", value)
        _set(self, "literal", literal)
        _set(self, "target", target)

    @property
    def is_reg(self) -> bool:
        return self.file is not None


class EncState:
    """Mutable state while parsing one instruction. (A plain class: one is made per parsed
    line, and every dataclass costs ``gcnforge as`` start-up time.)"""

    __slots__ = ("inst", "enc", "loc", "fields", "literal", "literal_tok", "fixups", "extra")

    def __init__(self, inst: Instruction, enc: Encoding, loc: SourceLoc, fields: dict[str, int],
                 literal: int | None = None, literal_tok: Tok | None = None,
                 fixups: list[tuple[str, str, Tok]] | None = None, extra: dict | None = None) -> None:
        self.inst = inst
        self.enc = enc
        self.loc = loc
        self.fields = fields
        self.literal = literal
        self.literal_tok = literal_tok
        self.fixups = [] if fixups is None else fixups  # (kind, label, tok)
        self.extra = {} if extra is None else extra  # family scratch space

    def set_literal(self, value: int, tok: Tok) -> None:
        if self.literal is not None and self.literal != value:
            raise Diagnostic(
                f"only one 32-bit literal per instruction: 0x{self.literal:x} already used", tok.loc(self.loc))
        self.literal = value
        self.literal_tok = tok


class ParsedInst(Record):
    """One assembled instruction before label resolution (see ``gcnforge.asm``)."""

    __slots__ = _fields = ("inst", "fields", "literal", "size", "label_refs", "loc", "codec", "fixups", "extra")
    inst: Instruction
    fields: dict[str, int]
    literal: int | None
    size: int
    label_refs: tuple[str, ...]
    loc: SourceLoc
    codec: "Codec"
    fixups: tuple[tuple[str, str, Tok], ...]
    extra: dict

    def __init__(self, inst: Instruction, fields: dict[str, int], literal: int | None, size: int,
                 label_refs: tuple[str, ...], loc: SourceLoc, codec: "Codec",
                 fixups: tuple[tuple[str, str, Tok], ...] = (), extra: dict | None = None) -> None:
        self.inst = inst
        self.fields = fields
        self.literal = literal
        self.size = size
        self.label_refs = label_refs
        self.loc = loc
        self.codec = codec
        self.fixups = fixups
        self.extra = {} if extra is None else extra

    def encode(self, pc: int = 0, resolve: Callable[[str], int] | None = None) -> bytes:
        return self.codec.encode(self, pc, resolve)


class DecodedInst(Record):
    """One decoded instruction; ``text()`` prints it exactly as LLVM 22 does."""

    __slots__ = _fields = ("inst", "size", "fields", "literal", "codec", "raw", "_operands", "_modifiers")
    inst: Instruction | None
    size: int
    fields: dict[str, int]
    literal: int | None
    codec: "Codec | None"
    raw: int  # the instruction's words as one little-endian integer (without literal)
    _operands: tuple[OperandValue, ...] | None
    _modifiers: dict[str, int] | None

    def __init__(self, inst: Instruction | None, size: int, fields: dict[str, int], literal: int | None,
                 codec: "Codec | None", raw: int = 0, _operands: tuple[OperandValue, ...] | None = None,
                 _modifiers: dict[str, int] | None = None) -> None:
        self.inst = inst
        self.size = size
        self.fields = fields
        self.literal = literal
        self.codec = codec
        self.raw = raw
        self._operands = _operands
        self._modifiers = _modifiers

    @property
    def operands(self) -> tuple[OperandValue, ...]:
        if self._operands is None:
            self._operands = () if self.codec is None else self.codec.operand_values(self)
        return self._operands

    @property
    def modifiers(self) -> dict[str, int]:
        if self._modifiers is None:
            self._modifiers = {} if self.codec is None else self.codec.modifier_values(self)
        return self._modifiers

    def text(self, pc: int = 0, symbolize: Callable[[int], str | None] | None = None) -> str:
        if self.codec is None or self.inst is None:
            return f".long 0x{self.raw & 0xFFFFFFFF:x}"
        return self.codec.text(self, pc, symbolize)

    def __str__(self) -> str:
        return self.text()


# ---------------------------------------------------------------------------------------
# Operand kinds
# ---------------------------------------------------------------------------------------
class KindHandler:
    """How one ``OperandKind`` is parsed, printed and valued. ``words``: how many
    whitespace-separated words of its comma segment the operand consumes (0 = all that
    are not modifiers, e.g. ``vmcnt(0) lgkmcnt(0)``)."""

    words = 1

    def parse(self, codec: "Codec", st: EncState, op: Operand, toks: list[Tok]) -> None:
        raise NotImplementedError

    def text(self, codec: "Codec", di: DecodedInst, op: Operand, pc: int,
             symbolize: Callable[[int], str | None] | None) -> str:
        raise NotImplementedError

    def value(self, codec: "Codec", di: DecodedInst, op: Operand) -> OperandValue:
        return OperandValue(op.name, value=di.fields.get(op.field or "", 0))


# ---------------------------------------------------------------------------------------
# Modifiers
# ---------------------------------------------------------------------------------------
class ModSpec(FrozenRecord):
    """A modifier (``glc``, ``offset:4``, ``offset0:8``, ``format:[...]``).

    ``parse(st, value_text_or_None, tok)`` writes fields; ``text(di) -> str | None`` is what
    LLVM prints (None = nothing); ``value(di) -> int`` for ``DecodedInst.modifiers``."""

    __slots__ = _fields = ("name", "parse", "text", "value", "flag_field")
    name: str
    parse: Callable[[EncState, str | None, Tok], None]
    text: Callable[[DecodedInst], str | None]
    value: Callable[[DecodedInst], int]
    flag_field: str | None  # set for single-bit flags: LLVM also accepts "no<name>" (clears it)

    def __init__(self, name: str, parse: Callable[[EncState, str | None, Tok], None],
                 text: Callable[[DecodedInst], str | None], value: Callable[[DecodedInst], int],
                 flag_field: str | None = None) -> None:
        set_fields(self, name, parse, text, value, flag_field)


def flag_mod(name: str, fld: str | None = None) -> ModSpec:
    fld = fld or name

    def parse(st: EncState, v: str | None, tok: Tok) -> None:
        if v is not None:
            raise Diagnostic(f"modifier '{name}' takes no value", tok.loc(st.loc))
        st.fields[fld] = 1

    return ModSpec(name, parse, lambda di: name if di.fields.get(fld) else None, lambda di: di.fields.get(fld, 0),
                   fld)


def int_mod(name: str, fld: str, bits: int, *, signed: bool = False, hexa: bool = False,
            lo: int | None = None, hi: int | None = None) -> ModSpec:
    """``name:N``; printed when nonzero (decimal, or 0x hex when ``hexa``)."""
    from gcnforge.asm.operands import parse_int

    mn = lo if lo is not None else (-(1 << (bits - 1)) if signed else 0)
    mx = hi if hi is not None else ((1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)

    def parse(st: EncState, v: str | None, tok: Tok) -> None:
        iv = parse_int(v) if v is not None else None
        if iv is None:
            raise Diagnostic(f"modifier '{name}' expects an integer value ({name}:N)", tok.loc(st.loc))
        if not mn <= iv <= mx:
            raise Diagnostic(f"{name} value {iv} out of range: expected {mn}..{mx}", tok.loc(st.loc))
        st.fields[fld] = iv & ((1 << bits) - 1)

    def val(di: DecodedInst) -> int:
        raw = di.fields.get(fld, 0)
        if signed and raw & (1 << (bits - 1)):
            raw -= 1 << bits
        return raw

    def text(di: DecodedInst) -> str | None:
        v = val(di)
        if not v:
            return None
        return f"{name}:{hex(v) if hexa else v}"

    return ModSpec(name, parse, text, val)


# ---------------------------------------------------------------------------------------
# The codec base class
# ---------------------------------------------------------------------------------------
_KIND_HANDLERS: dict[OperandKind, KindHandler] = {}


def register_kind(kind: OperandKind, handler: KindHandler) -> None:
    """Default handler for an operand kind (families may override per codec)."""
    _KIND_HANDLERS[kind] = handler


class Codec:
    """Encoder/decoder/printer for one or more encodings, driven by the table.

    Subclasses set ``encodings``, ``modifiers`` (name -> ModSpec) and optionally
    ``kinds`` (OperandKind -> KindHandler overrides), and may override the hooks
    ``defaults``, ``finish_parse``, ``decode_size``, ``operand_list``, ``extra_text``."""

    encodings: tuple[str, ...] = ()
    modifiers: dict[str, ModSpec] = {}
    kinds: dict[OperandKind, KindHandler] = {}

    def handler(self, kind: OperandKind) -> KindHandler:
        h = self.kinds.get(kind) or _KIND_HANDLERS.get(kind)
        if h is None:
            raise KeyError(f"no handler for operand kind {kind} in {type(self).__name__}")
        return h

    def _handlers(self, ops: tuple[Operand, ...]) -> list[KindHandler]:
        cache = self.__dict__.setdefault("_hcache", {})
        key = tuple([o.kind for o in ops])  # bounded: one entry per distinct kind sequence
        h = cache.get(key)
        if h is None:
            h = cache[key] = [self.handler(k) for k in key]
        return h

    def _plan(self, ops: tuple[Operand, ...]) -> tuple:
        """(op, handler, words) per operand of ``ops``, remembered for this very tuple (an
        identity check, so a family that builds operand tuples on the fly gets a fresh plan)."""
        plans = self.__dict__.setdefault("_plans", {})
        hit = plans.get(id(ops))
        if hit is not None and hit[0] is ops:
            return hit[1]
        plan = tuple(zip(ops, self._handlers(ops), [h.words for h in self._handlers(ops)]))
        if len(plans) < 4096:  # keeps ``ops`` alive, so its id is not reused while cached
            plans[id(ops)] = (ops, plan)
        return plan

    # -- hooks ------------------------------------------------------------------------
    def defaults(self, inst: Instruction) -> dict[str, int]:
        """Field values before any operand is parsed (besides ``op``)."""
        return {}

    def operand_list(self, inst: Instruction, fields: dict[str, int] | None) -> tuple[Operand, ...]:
        """The operands as printed/parsed (a family may drop or reshape some by fields)."""
        return inst.operands

    def finish_parse(self, st: EncState) -> None:
        """Cross-operand checks and derived fields after all operands and modifiers."""

    def has_literal(self, inst: Instruction, fields: dict[str, int]) -> bool:
        for op in inst.operands:
            if op.kind in (OperandKind.SSRC, OperandKind.SRC) and op.literal and op.field \
                    and fields.get(op.field) == 255:
                return True
        return False

    # -- parsing ----------------------------------------------------------------------
    def parse(self, inst: Instruction, segs: list[list[Tok]], loc: SourceLoc, mtok: Tok) -> ParsedInst:
        return self.parse_with(inst, self.operand_list(inst, None), segs, loc, mtok)

    def parse_with(self, inst: Instruction, ops: tuple[Operand, ...], segs: list[list[Tok]], loc: SourceLoc,
                   mtok: Tok) -> ParsedInst:
        """Parse ``segs`` as the operand list ``ops`` (a family may pick among shapes)."""
        enc = ENCODINGS[inst.encoding]
        fields = self.defaults(inst)
        fields["op"] = inst.opcode
        st = EncState(inst, enc, loc, fields)
        mods: list[Tok] = []
        if not ops:
            for seg in segs:
                mods.extend(seg)
            if len(segs) > 1:
                raise Diagnostic(f"'{inst.mnemonic}' takes no operands", segs[1][0].loc(loc) if segs[1] else
                                 mtok.loc(loc))
        else:
            if len(segs) < len(ops) and all(o.optional for o in ops[len(segs):]):
                ops = ops[:len(segs)]
                if not ops:
                    for seg in segs:
                        mods.extend(seg)
            if ops and (len(segs) != len(ops) or [] in segs):
                names = ", ".join(o.name for o in ops)
                where = mtok  # too few: LLVM points at the mnemonic; too many: at the first extra
                if len(segs) > len(ops) and segs[len(ops)]:
                    where = segs[len(ops)][0]
                raise Diagnostic(
                    f"wrong number of operands for '{inst.mnemonic}': expected {len(ops)} ({names}), "
                    f"got {sum(1 for s in segs if s)}", where.loc(loc))
            last = len(ops) - 1
            for i, (op, h, n) in enumerate(self._plan(ops) if ops else ()):
                seg = segs[i]
                if n == 0:
                    n = len(seg)
                    if i == last:
                        n = 0
                        while n < len(seg) and self._mod_name(seg[n]) not in self.modifiers:
                            n += 1
                        n = max(n, 1)
                if len(seg) > n:
                    if i < last:
                        raise Diagnostic(f"unexpected '{seg[n].text}' in operand {op.name} of '{inst.mnemonic}'",
                                         seg[n].loc(loc))
                    mods = seg[n:]
                    seg = seg[:n]
                h.parse(self, st, op, seg)
        seen: set[str] = set()
        for t in mods:  # (empty for most lines)
            name, _, val = t.text.partition(":")
            name = name.lower()
            spec = self.modifiers.get(name)
            if spec is None and name.startswith("no") and name[2:] in inst.modifiers and not _:
                neg = self.modifiers.get(name[2:])
                if neg is not None and neg.flag_field:
                    if name in seen or name[2:] in seen:
                        raise Diagnostic(f"duplicate modifier '{name[2:]}'", t.loc(loc))
                    seen.add(name)
                    st.fields[neg.flag_field] = 0
                    continue
            if spec is None or name not in inst.modifiers:
                allowed = ", ".join(inst.modifiers) or "none"
                raise Diagnostic(f"invalid modifier or extra operand '{t.text}' for '{inst.mnemonic}' "
                                 f"(accepted modifiers: {allowed})", t.loc(loc))
            if name in seen:
                raise Diagnostic(f"duplicate modifier '{name}'", t.loc(loc))
            seen.add(name)
            spec.parse(st, val if _ else None, t)
        self.finish_parse(st)
        size = enc.size + (4 if self.has_literal(inst, st.fields) else 0)
        if st.fixups:
            return ParsedInst(inst, st.fields, st.literal, size, tuple(f[1] for f in st.fixups), loc, self,
                              tuple(st.fixups), st.extra)
        return ParsedInst(inst, st.fields, st.literal, size, (), loc, self, (), st.extra)

    @staticmethod
    def _mod_name(t: Tok) -> str:
        return t.text.partition(":")[0].lower()

    # -- encoding ---------------------------------------------------------------------
    def resolve_fixups(self, pi: ParsedInst, pc: int,
                       resolve: Callable[[str], int] | None) -> tuple[dict[str, int], int | None]:
        """Resolve symbol references: branch labels (a 16-bit field holding
        ``(target - (pc + 4)) / 4``, ISA guide 4.5) and PC-relative literals
        ``sym@rel32@lo+A`` / ``sym@rel32@hi+A`` (value ``S + A - P``, P = address of the
        literal dword, as LLVM's R_AMDGPU_REL32_LO/HI). Returns (fields, literal)."""
        fields = dict(pi.fields)
        literal = pi.literal
        for fld, name, tok in pi.fixups:
            try:
                if resolve is None:
                    raise KeyError(name)
                target = resolve(name)
            except KeyError:
                raise Diagnostic(f"undefined label '{name}'" if not fld.startswith("@") else
                                 f"symbol '{name}' is not defined in this section (relocations against other "
                                 "sections are not supported)", tok.loc(pi.loc)) from None
            if fld.startswith("@rel32"):
                _, half, addend = fld.split(":")
                lit_addr = pc + ENCODINGS[pi.inst.encoding].size
                v = (target + int(addend) - lit_addr) & 0xFFFFFFFFFFFFFFFF
                literal = (v >> 32) & 0xFFFFFFFF if half == "hi" else v & 0xFFFFFFFF
                continue
            delta = target - (pc + 4)
            if delta % 4:
                raise Diagnostic(f"branch target '{name}' is not 4-byte aligned relative to the branch",
                                 tok.loc(pi.loc))
            off = delta // 4
            if not -32768 <= off <= 32767:
                raise Diagnostic(f"branch target '{name}' out of range: {off} dwords (a 16-bit signed offset "
                                 "reaches -32768..32767)", tok.loc(pi.loc))
            fields[fld] = off & 0xFFFF
        return fields, literal

    def encode(self, pi: ParsedInst, pc: int = 0, resolve: Callable[[str], int] | None = None) -> bytes:
        fields, literal = self.resolve_fixups(pi, pc, resolve) if pi.fixups else (pi.fields, pi.literal)
        plan = _ENCODE_PLANS.get(pi.inst.encoding)
        if plan is None:
            plan = _encode_plan(pi.inst.encoding)
        word, size, layout = plan
        for name, v in fields.items():
            if v:  # (most modifier fields are 0: nothing to place)
                f = layout.get(name)
                if f is not None:
                    word |= (v & f[1]) << f[0]
        if pi.size > size:  # the literal dword follows the instruction's words
            return (word | ((literal or 0) & 0xFFFFFFFF) << 8 * size).to_bytes(size + 4, "little")
        return word.to_bytes(size, "little")

    # -- decoding ---------------------------------------------------------------------
    def decode(self, inst: Instruction, enc: Encoding, raw: int, code: bytes, offset: int) -> DecodedInst:
        fields = {name: (raw >> lo) & mask for name, lo, mask in _field_plan(enc.name)}
        size = enc.size
        literal = None
        if self.has_literal(inst, fields):
            if offset + size + 4 > len(code):
                return DecodedInst(None, 4, {}, None, None, raw & 0xFFFFFFFF)
            literal = int.from_bytes(code[offset + size:offset + size + 4], "little")
            size += 4
        return DecodedInst(inst, size, fields, literal, self, raw)

    def valid(self, di: DecodedInst) -> bool:
        """False when LLVM would refuse to decode these bits (prints ``.long``): by default,
        when a field the table lists in ``zero_fields`` is non-zero."""
        f = di.fields
        for name in di.inst.zero_fields:
            if f.get(name):
                return False
        return True

    def operand_values(self, di: DecodedInst) -> tuple[OperandValue, ...]:
        assert di.inst is not None
        return tuple(self.handler(op.kind).value(self, di, op) for op in self.operand_list(di.inst, di.fields))

    def modifier_values(self, di: DecodedInst) -> dict[str, int]:
        assert di.inst is not None
        out = {}
        for m in di.inst.modifiers:
            spec = self.modifiers.get(m)
            if spec is not None:
                out[m] = spec.value(di)
        return out

    # -- printing ---------------------------------------------------------------------
    def text(self, di: DecodedInst, pc: int = 0, symbolize: Callable[[int], str | None] | None = None) -> str:
        inst = di.inst
        assert inst is not None
        parts = [self.handler(op.kind).text(self, di, op, pc, symbolize) for op in self.operand_list(inst, di.fields)
                 if not (op.optional and op.kind in (OperandKind.SIMM16, OperandKind.IMM)
                         and not di.fields.get(op.field or "", 0))]
        s = inst.mnemonic
        if parts:
            s += " " + ", ".join(parts)
        for m in inst.modifiers:
            spec = self.modifiers.get(m)
            if spec is not None:
                t = spec.text(di)
                if t:
                    s += " " + t
        return s


_FIELD_PLANS: dict[str, tuple[tuple[str, int, int], ...]] = {}
_FIELD_LAYOUTS: dict[str, dict[str, tuple[int, int]]] = {}


def _field_layout(enc_name: str) -> dict[str, tuple[int, int]]:
    """Field name -> (low bit, mask) of an encoding (for encoding a word)."""
    lay = _FIELD_LAYOUTS.get(enc_name)
    if lay is None:
        lay = _FIELD_LAYOUTS[enc_name] = {n: (f.lo, (1 << f.width) - 1) for n, f in ENCODINGS[enc_name].fields.items()}
    return lay


_ENCODE_PLANS: dict[str, tuple[int, int, dict[str, tuple[int, int]]]] = {}


def _encode_plan(enc_name: str) -> tuple[int, int, dict[str, tuple[int, int]]]:
    """(fixed bits, size in bytes, field layout) of an encoding: one look-up per encoded instruction."""
    enc = ENCODINGS[enc_name]
    plan = _ENCODE_PLANS[enc_name] = (enc.match_value, enc.size, _field_layout(enc_name))
    return plan


def _field_plan(enc_name: str) -> tuple[tuple[str, int, int], ...]:
    p = _FIELD_PLANS.get(enc_name)
    if p is None:
        p = _FIELD_PLANS[enc_name] = tuple((n, f.lo, (1 << f.width) - 1) for n, f in ENCODINGS[enc_name].fields.items())
    return p


# ---------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------
_CODECS: dict[str, Codec] = {}
_RESOLVERS: list[Callable[[str], list[Instruction] | None]] = []


def register_codec(codec: Codec) -> Codec:
    """Make ``codec`` responsible for each encoding name in ``codec.encodings``."""
    for e in codec.encodings:
        if e not in ENCODINGS:
            raise KeyError(f"unknown encoding {e}")
        _CODECS[e] = codec
    return codec


def register_resolver(fn: Callable[[str], list[Instruction] | None]) -> None:
    """Add a mnemonic resolver: given the mnemonic as written, return the candidate
    instructions to try in order (or None to defer). Used for ``v_add_f32`` -> e32/e64."""
    _RESOLVERS.append(fn)


def codec_for(encoding: str) -> Codec | None:
    return _CODECS.get(encoding)


def resolvers() -> list[Callable[[str], list[Instruction] | None]]:
    return _RESOLVERS

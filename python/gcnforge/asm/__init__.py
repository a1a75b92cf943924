"""gfx942 assembler and disassembler (LLVM 22 AMDGPU syntax, byte-exact with llvm-mc).

Public API (the contract in briefs/interfaces.md)::

    parse_instruction(text, loc) -> ParsedInst      # one line, no label/comment
    ParsedInst.inst / .size / .label_refs / .encode(pc, resolve) -> bytes
    decode(code, offset=0) -> DecodedInst           # never raises; bad bytes -> ".long 0x..."
    DecodedInst.inst / .size / .fields / .operands / .modifiers / .literal / .text(pc, symbolize)
    disassemble(code, base_pc=0) -> list[(pc, DecodedInst)]

EXTENSION CONTRACT (how an encoding family plugs in; helper B's VOP* families use it)
====================================================================================

1. Where: put a module in ``gcnforge/asm/families/`` (e.g. ``families/vop2.py``) or
   ``gcnforge/asm/vop*.py``.  This package imports all of them at first use; importing
   must register everything (no other file to edit).

2. Register a codec: subclass ``gcnforge.asm.core.Codec`` and call
   ``register_codec(MyCodec())``.  Set ``encodings = ("VOP2", ...)`` (names from
   ``gcnforge.isa.encodings.ENCODINGS``; decode dispatches by ``DECODE_ORDER`` then
   ``table.by_opcode(encoding, op)``), ``modifiers = {name: ModSpec}`` (``flag_mod``,
   ``int_mod`` or a custom ``ModSpec(name, parse, text, value)``) — a modifier is
   accepted only if its name is in ``Instruction.modifiers`` (print order = that tuple).

3. Everything else is table-driven: for each ``Operand`` of the ``Instruction`` (in
   LLVM's print order) the codec looks up a ``KindHandler`` for ``op.kind``:
   ``Codec.kinds`` (per-codec overrides) first, then the global defaults registered with
   ``register_kind`` in ``asm/kinds.py`` (SREG, SSRC, SRC, VGPR, AGPR, AV, IMM, SIMM16,
   LABEL, SPECIAL) and ``asm/families/scalar.py`` (WAITCNT, HWREG, SENDMSG, GPR_IDX).
   A handler implements ``parse(codec, st: EncState, op, toks)`` (write
   ``st.fields[op.field]``; literals via ``st.set_literal(v, tok)``, which enforces one
   literal), ``text(codec, di: DecodedInst, op, pc, symbolize) -> str`` and
   ``value(codec, di, op) -> OperandValue``; ``words`` = words of its comma segment it
   takes (1, or 0 = all up to the first modifier).  Field values are raw encoding bits
   (``Field.scale`` is applied by the handler: sbase/srsrc).

4. Hooks a codec may override: ``defaults(inst) -> fields`` (non-zero defaults, e.g. DPP
   row_mask 0xf); ``operand_list(inst, fields|None)`` (operands depend on fields, e.g.
   global vaddr width when saddr is not ``off``); ``parse`` choosing a shape and calling
   ``parse_with(inst, ops, segs, loc, mtok)``; ``finish_parse(st)`` (cross-operand checks;
   raise ``Diagnostic`` at ``tok.loc(st.loc)``); ``has_literal(inst, fields)``;
   ``valid(di)`` (False -> the bytes print as ``.long``, as LLVM refuses them; the base
   version rejects non-zero ``Instruction.zero_fields``, so call ``super().valid``);
   ``encode``/``decode``/``text`` for anything irregular.  Flag modifiers made with
   ``flag_mod`` also accept LLVM's ``no<flag>`` spelling.  Symbol references: a handler
   appends ``(field, name, tok)`` to ``st.fixups`` (16-bit branch fields) or
   ``("@rel32:lo|hi:addend", name, tok)`` (literals); ``resolve_fixups`` fills them in
   ``encode(pc, resolve)``.

5. Mnemonic resolution: ``table.by_mnemonic(m)`` exactly; otherwise every registered
   resolver (``register_resolver(fn)``, ``fn(mnemonic) -> list[Instruction] | None``) is
   asked; otherwise ``table.variants(m)``; otherwise, when ``m`` is an alias
   (``isa.aliases``: ``v_mfma_f32_32x32x8f16``, ``v_accvgpr_read``, ``s_nop_e32``), the
   candidates of its canonical mnemonics.  Candidates are tried in order; the first
   that parses wins; if all fail, the diagnostic that got furthest (largest column) is
   raised.  B registers a resolver for ``v_add_f32`` -> [e32, e64, sdwa, dpp] etc.

Operand syntax helpers (``gcnforge.asm.operands``): ``parse_reg`` (``s[4:7]``, ``v1``,
``a[0:15]``, ``ttmp[4:7]``, ``vcc``, ``exec_lo`` ...), ``encode_src`` (inline constants,
literal rules per operand type), ``encode_vreg`` (alignment: gfx90a+ tuples even),
``format_src`` / ``format_sreg`` / ``format_reg`` (LLVM's spelling), ``inline_value``.
Positions: every ``Tok`` carries its 1-based column; ``tok.loc(base_loc)`` is the
``SourceLoc`` for diagnostics.
"""

from __future__ import annotations

import importlib
import os
from functools import cache, lru_cache

from gcnforge.asm import kinds as _kinds  # noqa: F401  (registers default operand kinds)
from gcnforge.asm.core import (  # noqa: F401  (re-exported)
    Codec, DecodedInst, EncState, KindHandler, ModSpec, OperandValue, ParsedInst, codec_for, flag_mod, int_mod,
    register_codec, register_kind, register_resolver, resolvers,
)
from gcnforge.asm.operands import lex_operands, split_mnemonic, Tok
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa import table
from gcnforge.isa.encodings import DECODE_ORDER, ENCODINGS

__all__ = ["parse_instruction", "decode", "disassemble", "ParsedInst", "DecodedInst", "OperandValue"]


@cache
def _load_families() -> tuple:
    import gcnforge.asm as pkg
    import gcnforge.asm.families as fam

    mods = [importlib.import_module(f"gcnforge.asm.families.{name}") for name in _module_names(fam.__path__)]
    mods += [importlib.import_module(f"gcnforge.asm.{name}") for name in _module_names(pkg.__path__)
             if name.startswith("vop")]
    return tuple(mods)


def _module_names(path) -> list[str]:
    """The sorted ``.py`` module names in a package's directories (``pkgutil.iter_modules``
    would import ``inspect``, a few milliseconds of every ``gcnforge as``)."""
    return sorted({f[:-3] for d in path for f in os.listdir(d) if f.endswith(".py") and f[:-3].isidentifier()}
                  - {"__init__"})


_CANDIDATES: dict[tuple[object, str], tuple] = {}  # (table object, mnemonic) -> candidates


def candidates(mnemonic: str) -> list:
    """The instructions ``mnemonic`` may be, in the order to try them (remembered per table
    object and spelling: another target's table, or a reloaded one, has its own entries)."""
    key = (table._table(), mnemonic)  # noqa: SLF001  (the key holds the table by identity)
    hit = _CANDIDATES.get(key)
    if hit is not None:
        return list(hit)
    found = _candidates(mnemonic)
    if len(_CANDIDATES) < 65536:  # bounded: the input chooses the spellings
        _CANDIDATES[key] = tuple(found)
    return found


def _candidates(mnemonic: str) -> list:
    _load_families()
    m = mnemonic.lower()
    exact = table.by_mnemonic(m)
    if exact is not None:
        return [exact]
    for fn in resolvers():
        r = fn(m)
        if r:
            return list(r)
    found = list(table.variants(m))
    if not found:  # another spelling llvm-mc accepts (isa.aliases): its canonical instructions
        from gcnforge.isa.aliases import records

        found = list(records(m))
    return found


@cache
def _by_prefix(target: str) -> dict[str, tuple[str, ...]]:
    groups: dict[str, list[str]] = {}
    for m in table.mnemonics(target):
        groups.setdefault(m[:3], []).append(m)
        groups.setdefault(m[:6], []).append(m)
    return {k: tuple(v) for k, v in groups.items()}


@lru_cache(maxsize=1024)
def _suggest(m: str, target: str) -> tuple[str, ...]:
    """Close mnemonics for a typo: compared within the same 6- (else 3-) letter prefix
    (``v_cmpx``, ``s_a``) and similar length, which keeps the search cheap, else across all."""
    groups = _by_prefix(target)
    pool = [x for x in groups.get(m[:6]) or groups.get(m[:3], ()) if abs(len(x) - len(m)) <= 4]
    if not pool:
        pool = [x for x in table.mnemonics(target) if abs(len(x) - len(m)) <= 2]
    import difflib  # (only for a diagnostic)

    return tuple(difflib.get_close_matches(m, pool, n=3, cutoff=0.75))


def parse_instruction(text: str, loc: SourceLoc, target: str | None = None) -> ParsedInst:
    """Parse one instruction (no label, no comment) into a ``ParsedInst``, with ``target``'s
    instruction table (default: the active one, ``isa.table.use_target``)."""
    if target is not None:
        with table.use_target(target):
            return _parse_instruction(text, loc)
    return _parse_instruction(text, loc)


def _parse_instruction(text: str, loc: SourceLoc) -> ParsedInst:
    mnem, mcol, rest, rcol = split_mnemonic(text)
    mtok = Tok(mnem, mcol)
    if not mnem:
        raise Diagnostic("expected an instruction", loc)
    cands = candidates(mnem)
    if not cands:
        target = table.active_target()
        close = _suggest(mnem.lower(), target)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise Diagnostic(f"unknown instruction '{mnem}' for {target}{hint}", mtok.loc(loc))
    segs = lex_operands(rest, rcol) if rest else []
    best: Diagnostic | None = None
    best_col = -1
    for inst in cands:
        codec = codec_for(inst.encoding)
        if codec is None:
            err = Diagnostic(f"'{inst.mnemonic}' ({inst.encoding}) is in the table but its encoding family has no "
                             "codec yet", mtok.loc(loc))
        else:
            try:
                return codec.parse(inst, segs, loc, mtok)
            except Diagnostic as d:
                err = d
        col = getattr(err.loc, "col", 0) if isinstance(err.loc, SourceLoc) else 0
        if col > best_col:
            best, best_col = err, col
    assert best is not None
    raise best


# -- decoding -----------------------------------------------------------------------------
@cache
def _decode_plan() -> tuple:
    """Per top byte of the first dword, the encodings (in DECODE_ORDER) that can match."""
    _load_families()
    plan = []
    for name in DECODE_ORDER:
        codec = codec_for(name)
        if codec is None:
            continue
        e = ENCODINGS[name]
        f = e.opcode
        plan.append((e.match_mask, e.match_value, e.size, f.lo, (1 << f.width) - 1, name, e, codec))
    by_top = []
    for top in range(256):
        w = top << 24
        by_top.append(tuple(p for p in plan if (w & p[0] & 0xFF000000) == (p[1] & 0xFF000000)))
    return tuple(by_top)


def _long(code: bytes, offset: int) -> DecodedInst:
    word = int.from_bytes(code[offset:offset + 4].ljust(4, b"\0"), "little")
    return DecodedInst(None, 4, {}, None, None, word)


def decode(code: bytes, offset: int = 0, target: str | None = None) -> DecodedInst:
    """Decode one instruction at ``offset``; undecodable bytes give a 4-byte ``.long``.
    ``target``: whose instruction table (default: the active one)."""
    if target is not None:
        with table.use_target(target):
            return _decode(code, offset)
    return _decode(code, offset)


def _decode(code: bytes, offset: int) -> DecodedInst:
    n = len(code)
    if offset + 4 > n:
        return _long(code, offset)
    w0 = int.from_bytes(code[offset:offset + 4], "little")
    raw64 = None
    by_opcode = table.by_opcode
    for mask, value, size, oplo, opmask, name, enc, codec in _decode_plan()[w0 >> 24]:
        if w0 & mask != value:
            continue
        if size == 8:
            if raw64 is None:
                if offset + 8 > n:
                    return _long(code, offset)
                raw64 = int.from_bytes(code[offset:offset + 8], "little")
            raw = raw64
        else:
            raw = w0
        inst = by_opcode(name, (raw >> oplo) & opmask)
        if inst is None:
            continue
        di = codec.decode(inst, enc, raw, code, offset)
        if di.inst is None or not codec.valid(di):
            continue
        return di
    return _long(code, offset)


def disassemble(code: bytes, base_pc: int = 0, target: str | None = None) -> list[tuple[int, DecodedInst]]:
    with table.use_target(target):
        return _disassemble(code, base_pc)


def _disassemble(code: bytes, base_pc: int) -> list[tuple[int, DecodedInst]]:
    out = []
    off = 0
    n = len(code)
    while off < n:
        di = _decode(code, off)
        out.append((base_pc + off, di))
        off += di.size
    return out

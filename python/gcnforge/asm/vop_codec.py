"""The vector-ALU codec: parse, encode, decode and print every vector form (VOP1, VOP2,
VOPC, VOP3A, VOP3B, VOP3P, VOP3P-MAI, and DPP/SDWA of VOP1/VOP2/VOPC) from the table.

Operand order and kinds come from ``Instruction.operands``; which source/output modifiers
a form accepts from ``Instruction.modifiers`` (names documented in
``tools/isa_gen/vector.py``).  Encoding-specific syntax lives in the ``Family`` objects of
``vop_alu.py`` and ``vop_ext.py``; this module holds the shared machinery (operand walking, source
modifiers, literals).  Syntax and print order follow LLVM 22's AMDGPUAsmParser /
AMDGPUInstPrinter (checked by ``tests/asm/test_vop_corpus.py`` against llvm-mc)."""

from __future__ import annotations

from collections.abc import Callable

from gcnforge.asm.core import Codec, DecodedInst, EncState, OperandValue, ParsedInst
from gcnforge.asm.kinds import reg_value, src_value
from gcnforge.asm.operands import LITERAL, VGPR_BASE, Tok, f16_bits, f32_bits, format_reg, format_sreg, parse_float, \
    parse_int, \
    parse_reg, sreg_code, sreg_valid, src_code_valid
from gcnforge.asm.literal import split_lit
from gcnforge.asm.vop_src import encode_const, encode_reg9, format_src, split_mods, with_mods
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Instruction, Operand, OperandKind, Role


def src_index(op: Operand) -> int:
    """0, 1, 2 for src0/src1(vsrc1)/src2."""
    n = op.name
    return 1 if n == "vsrc1" else int(n[-1]) if n[-1].isdigit() else 0


_BUS: dict[int, tuple] = {}  # id(Instruction) -> (inst, (has an IMM operand, its SRC uses))


def _bus_operands(inst: Instruction) -> tuple[bool, tuple[Operand, ...]]:
    """Whether ``inst`` takes a K constant, and its source operands that may read the
    constant bus (remembered per instruction record, checked by identity)."""
    hit = _BUS.get(id(inst))
    if hit is not None and hit[0] is inst:
        return hit[1]
    r = (any(o.kind == OperandKind.IMM for o in inst.operands),
         tuple(o for o in inst.operands if o.kind == OperandKind.SRC and o.role == Role.USE))
    if len(_BUS) < 8192:  # keeps ``inst`` alive, so its id is not reused while cached
        _BUS[id(inst)] = (inst, r)
    return r


class VopCodec(Codec):
    """Shared machinery; subclasses (one per encoding group) implement the hooks
    ``src_mod_fields``, ``parse_modifier``, ``modifier_text``, ``finish`` and may
    override ``parse_special_sdst`` and the acc-file logic."""

    # -- per-family hooks ---------------------------------------------------------------
    def src_mod_fields(self, inst: Instruction, idx: int) -> tuple[str | None, int, str | None, int]:
        """(neg field, bit, abs field, bit) holding source ``idx``'s modifiers."""
        return None, 0, None, 0

    def defaults(self, inst: Instruction) -> dict[str, int]:
        return {}

    def parse_modifier(self, st: EncState, name: str, val: str | None, tok: Tok) -> bool:
        """Handle one trailing modifier word; False if unknown for this form."""
        return False

    def modifier_text(self, di: DecodedInst) -> list[str]:
        return []

    def finish(self, st: EncState, toks: dict[str, Tok]) -> None:
        """Cross-operand checks after parsing: the constant bus (gfx9: one distinct scalar
        value per VALU instruction -- SGPRs, special registers, the literal and an
        implicit VCC read all count; inline constants do not; AMD Instinct MI300 ISA
        Reference Guide 6.x "constant bus", and LLVM's "violates constant bus
        restrictions"), and scalar destinations v_readlane/v_readfirstlane may not use."""
        inst = st.inst
        seen: list[tuple[int, int]] = []
        if "vcc" in inst.implicit_uses:
            seen.append((106, 2))
        has_k, srcs = _bus_operands(inst)
        if has_k:
            seen.append((LITERAL, st.literal or 0))  # the K constant of v_fmamk/v_fmaak
        for op in srcs:
            code = self.src_code(st.fields, op)
            if code >= 256 or 128 <= code <= 208 or 240 <= code <= 248:
                continue
            if code == 124 and op.name == "src1" and inst.base in ("v_writelane_b32", "v_readlane_b32"):
                continue  # an m0 lane select does not use the constant bus (LLVM 22 accepts it)
            key = (code, op.dwords) if code != LITERAL else (LITERAL, st.literal or 0)
            if key not in seen:
                seen.append(key)
            if len(seen) > 1:
                raise Diagnostic(f"invalid operand {toks[op.name].text!r} for '{inst.mnemonic}': violates the "
                                 "constant bus restriction (one SGPR, special register or literal per instruction"
                                 + (", and VCC is read implicitly" if "vcc" in inst.implicit_uses else "") + ")",
                                 toks[op.name].loc(st.loc))
        if inst.base in ("v_readlane_b32", "v_readfirstlane_b32") and st.fields.get("vdst") == 124:
            raise Diagnostic(f"'{inst.mnemonic}' cannot write m0", toks["sdst"].loc(st.loc))

    def reg_file(self, di_fields: dict[str, int], op: Operand) -> str:
        """Register file of a vgpr/av/agpr operand in the decoded fields."""
        if op.kind == OperandKind.AGPR:
            return "a"
        return "v"

    def src_code(self, fields: dict[str, int], op: Operand) -> int:
        """9-bit source code of a SRC operand (SDWA overrides: 8-bit + s bit)."""
        return fields.get(op.field or "", 0)

    def put_src(self, st: EncState, op: Operand, code: int, tok: Tok) -> None:
        st.fields[op.field] = code

    # -- parsing ------------------------------------------------------------------------
    def parse(self, inst: Instruction, segs: list[list[Tok]], loc: SourceLoc, mtok: Tok) -> ParsedInst:
        enc = ENCODINGS[inst.encoding]
        fields = dict(self.defaults(inst))
        fields["op"] = inst.opcode
        st = EncState(inst, enc, loc, fields)
        ops = inst.operands
        mods: list[Tok] = []
        if not ops:
            for seg in segs:
                mods.extend(seg)
            if len(segs) > 1:
                raise Diagnostic(f"'{inst.mnemonic}' takes no operands", mtok.loc(loc))
        else:
            if len(segs) != len(ops) or [] in segs:
                names = ", ".join(o.name for o in ops)
                where = mtok
                if len(segs) > len(ops) and segs[len(ops)]:
                    where = segs[len(ops)][0]
                elif segs and segs[-1]:
                    where = segs[-1][-1]
                raise Diagnostic(f"wrong number of operands for '{inst.mnemonic}': expected {len(ops)} ({names}), "
                                 f"got {sum(1 for s in segs if s)}", where.loc(loc))
            for i, seg in enumerate(segs[:-1]):
                if len(seg) > 1:
                    raise Diagnostic(f"unexpected '{seg[1].text}' in operand {ops[i].name} of '{inst.mnemonic}'",
                                     seg[1].loc(loc))
            mods = segs[-1][1:]
        toks: dict[str, Tok] = {}
        for op, seg in zip(ops, segs):
            toks[op.name] = seg[0]
            self.parse_operand(st, op, seg[0])
        seen: set[str] = set()
        for t in mods:
            name, colon, val = t.text.partition(":")
            key = name.lower()
            if key in seen:
                raise Diagnostic(f"duplicate modifier '{key}'", t.loc(loc))
            seen.add(key)
            # errors in a modifier's value point at the value, as LLVM's do
            vt = Tok(val, t.col + len(name) + 1) if colon and val else t
            if not self.parse_modifier(st, key, val if colon else None, vt):
                raise Diagnostic(f"invalid modifier or extra operand '{t.text}' for '{inst.mnemonic}'"
                                 f"{self.accepted_hint(inst)}", t.loc(loc))
        self.finish(st, toks)
        size = enc.size + (4 if st.literal is not None or self.has_literal(inst, st.fields) else 0)
        return ParsedInst(inst, st.fields, st.literal, size, (), loc, self, (), st.extra)

    # SDWA: a source whose S bit is set holds any scalar source code, inline constants
    # included (gfx9 SDWA; llvm-mc 22 assembles ``v_add_f32_sdwa v1, v2, 26``)
    scalar_src_constants = False

    def accepted_hint(self, inst: Instruction) -> str:
        return ""

    def parse_operand(self, st: EncState, op: Operand, tok: Tok) -> None:
        loc = st.loc
        k = op.kind
        if k == OperandKind.SPECIAL:
            if tok.text.lower() != (op.text or "").lower():
                raise Diagnostic(f"invalid operand '{tok.text}' for {op.name} of '{st.inst.mnemonic}': expected "
                                 f"'{op.text}'", tok.loc(loc))
            return
        if k == OperandKind.SREG:
            self.parse_sdst(st, op, tok)
            return
        if k == OperandKind.IMM:
            self.parse_k(st, op, tok)
            return
        core, neg, absm, sext = split_mods(tok.text)
        idx = src_index(op) if op.role == Role.USE else -1
        if neg or absm or sext:
            if op.role != Role.USE:
                raise Diagnostic(f"{op.name} takes no input modifiers", tok.loc(loc))
            self.put_mods(st, op, idx, neg, absm, sext, tok)
        if k == OperandKind.SRC:
            r = encode_reg9(core, tok, loc, op.dwords, sgpr=True, vgpr="v" in (op.files or "sv"),
                            agpr="a" in op.files, what=op.name)
            if r is not None:
                code = r[0]
                if r[1] == "a":
                    self.note_acc(st, op, 1, tok)
            else:
                c = encode_const(core, tok, loc, op.optype, op.dwords, op.literal, op.name)
                if c is None:
                    raise Diagnostic(f"invalid operand '{tok.text}' for {op.name} of '{st.inst.mnemonic}': expected "
                                     "a register, inline constant" + (" or literal" if op.literal else ""),
                                     tok.loc(loc))
                code, lit = c
                if not op.inline_const and code != LITERAL and not self.scalar_src_constants:
                    raise Diagnostic(f"{op.name} of '{st.inst.mnemonic}' takes no constant", tok.loc(loc))
                if lit is not None:
                    st.set_literal(lit, tok)
            self.put_src(st, op, code, tok)
            return
        # VGPR / AGPR / AV in an 8- or 9-bit field
        files = op.files or {"vgpr": "v", "agpr": "a", "av": "va"}[str(k)]
        if k == OperandKind.AV and op.inline_const and op.role == Role.USE:
            c = encode_const(core, tok, loc, op.optype, op.dwords, False, op.name) if parse_reg(core) is None \
                else None
            if c is None and parse_reg(core) is None:
                # MFMA src2 (LLVM's AISrc/AVSrc with inline constants) also takes the source-only
                # registers src_shared_base..src_pops_exiting_wave_id, src_vccz/execz/scc (not
                # src_lds_direct: encode_reg9 rejects it); SGPRs stay invalid there
                r = encode_reg9(core, tok, loc, op.dwords, sgpr=True, vgpr=False, agpr=False, what=op.name)
                c = None if r is None else (r[0], None)
            if c is not None:
                self.put_src(st, op, c[0], tok)
                return
        ref = parse_reg(core)
        if ref is None or ref.file not in ("v", "a"):
            want = " or ".join({"v": "VGPR", "a": "AGPR"}[f] for f in files)
            raise Diagnostic(f"invalid operand '{tok.text}' for {op.name} of '{st.inst.mnemonic}': expected a "
                             f"{op.dwords}-dword {want}", tok.loc(loc))
        r = encode_reg9(core, tok, loc, op.dwords, sgpr=False, vgpr="v" in files, agpr="a" in files, what=op.name)
        assert r is not None
        code, file = r
        width = st.enc.fields[op.field].width
        st.fields[op.field] = code if width == 9 else code - VGPR_BASE
        if k == OperandKind.AV:
            self.note_acc(st, op, 1 if file == "a" else 0, tok)

    def note_acc(self, st: EncState, op: Operand, acc: int, tok: Tok) -> None:
        """Record that ``op`` names an AGPR (1) or VGPR (0); MAI codecs override."""
        if acc:
            raise Diagnostic(f"{op.name} of '{st.inst.mnemonic}' cannot be an AGPR", tok.loc(st.loc))

    def put_mods(self, st: EncState, op: Operand, idx: int, neg: bool, absm: bool, sext: bool, tok: Tok) -> None:
        mods = st.inst.modifiers
        for flag, name in ((neg, "neg"), (absm, "abs"), (sext, "sext")):
            if flag and f"{name}{idx}" not in mods:
                raise Diagnostic(f"'{st.inst.mnemonic}' does not accept the {name} modifier on {op.name}",
                                 tok.loc(st.loc))
        nf, nb, af, ab = self.src_mod_fields(st.inst, idx)
        if neg:
            st.fields[nf] = st.fields.get(nf, 0) | (1 << nb)
        if absm:
            st.fields[af] = st.fields.get(af, 0) | (1 << ab)
        if sext:
            self.put_sext(st, idx)

    def put_sext(self, st: EncState, idx: int) -> None:
        raise Diagnostic("sext() is only available in SDWA forms", st.loc)

    def parse_sdst(self, st: EncState, op: Operand, tok: Tok) -> None:
        ref = parse_reg(tok.text)
        if ref is None:
            raise Diagnostic(f"invalid operand '{tok.text}' for {op.name}: expected a {op.dwords}-dword scalar "
                             "register", tok.loc(st.loc))
        st.fields[op.field] = sreg_code(ref, op.dwords, tok, st.loc, op.name)

    def parse_k(self, st: EncState, op: Operand, tok: Tok) -> None:
        """The mandatory 32-bit constant of v_fmamk/v_fmaak/v_madmk/v_madak."""
        f16 = st.inst.base.endswith("_f16")
        inner = split_lit(tok.text)  # lit(K): K is always a literal; LLVM accepts the spelling
        if inner is not None:
            tok = Tok(inner, tok.col + tok.text.index("(") + 1)
        iv = parse_int(tok.text)
        if iv is not None:
            lim = 16 if f16 else 32
            if not -(1 << (lim - 1)) <= iv < (1 << lim):
                raise Diagnostic(f"immediate {tok.text} out of range: a {lim}-bit constant", tok.loc(st.loc))
            st.set_literal(iv & ((1 << lim) - 1), tok)
            return
        fv = parse_float(tok.text)
        if fv is None:
            raise Diagnostic(f"invalid constant '{tok.text}' for {op.name}: expected a number", tok.loc(st.loc))
        b = f16_bits(fv) if f16 else f32_bits(fv)
        if b is None:
            raise Diagnostic(f"invalid operand for instruction: {tok.text} is out of range for "
                             f"{'f16' if f16 else 'f32'}", tok.loc(st.loc))
        st.set_literal(b, tok)

    def has_literal(self, inst: Instruction, fields: dict[str, int]) -> bool:
        for op in inst.operands:
            if op.kind == OperandKind.IMM and op.field == "literal":
                return True
            if op.kind in (OperandKind.SRC, OperandKind.AV) and op.field and op.role == Role.USE and \
                    self.src_code(fields, op) == LITERAL:
                return True
        return False

    # -- decoding validity ----------------------------------------------------------------
    def valid(self, di: DecodedInst) -> bool:
        """False for bits LLVM 22 refuses to decode (they print as ``.long``): reserved
        source codes (A's ``src_code_valid``), non-register codes in register-only 9-bit
        fields, scalar destinations outside the register space."""
        inst = di.inst
        f = di.fields
        fields = ENCODINGS[inst.encoding].fields
        for op in inst.operands:
            if op.field is None or op.kind in (OperandKind.SPECIAL, OperandKind.IMM):
                continue
            if op.kind == OperandKind.SREG:
                if not self.sdst_valid(di, op):
                    return False
            elif op.kind == OperandKind.SRC:
                code = self.src_code(f, op)
                # VOP3/VOP3P take no literal on gfx9 (the 32-bit forms always decode one)
                if not src_code_valid(code, op.dwords) or (code == LITERAL and fields[op.field].lo >= 32):
                    return False
            elif fields[op.field].width == 9:
                code = f.get(op.field, 0)
                # MFMA A/B decode any source code (LLVM prints SGPRs/constants there too)
                if code < VGPR_BASE and not (op.kind == OperandKind.AV and src_code_valid(code, op.dwords)
                                             and code != LITERAL):
                    return False
        return True

    def sdst_valid(self, di: DecodedInst, op: Operand) -> bool:
        code = di.fields.get(op.field, 0)
        if code >= 128:
            return code != LITERAL and src_code_valid(code, op.dwords)
        return sreg_valid(code, op.dwords)

    # -- printing -----------------------------------------------------------------------
    def text(self, di: DecodedInst, pc: int = 0, symbolize: Callable[[int], str | None] | None = None) -> str:
        inst = di.inst
        assert inst is not None
        parts = [self.operand_text(di, op) for op in inst.operands]
        # LLVM 22 prints the VOP3 and the SDWA v_nop as plain v_nop
        s = "v_nop" if inst.mnemonic in ("v_nop_e64", "v_nop_sdwa") else inst.mnemonic
        if parts:
            s += " " + ", ".join(parts)
        for m in self.modifier_text(di):
            s += " " + m
        return s

    def src_mods(self, di: DecodedInst, idx: int) -> tuple[bool, bool]:
        nf, nb, af, ab = self.src_mod_fields(di.inst, idx)
        mods = di.inst.modifiers
        neg = bool(nf and f"neg{idx}" in mods and (di.fields.get(nf, 0) >> nb) & 1)
        absm = bool(af and f"abs{idx}" in mods and (di.fields.get(af, 0) >> ab) & 1)
        return neg, absm

    def sext_of(self, di: DecodedInst, idx: int) -> bool:
        return False  # SDWA overrides

    def operand_text(self, di: DecodedInst, op: Operand) -> str:
        k = op.kind
        f = di.fields
        if k == OperandKind.SPECIAL:
            return op.text or ""
        if k == OperandKind.SREG:
            return self.sdst_text(di, op)
        if k == OperandKind.IMM:
            return f"0x{(di.literal or 0):x}"  # LLVM prints the whole dword, even for the f16 forms
        idx = src_index(op) if op.role == Role.USE else -1
        neg, absm = self.src_mods(di, idx) if idx >= 0 else (False, False)
        sext = self.sext_of(di, idx) if idx >= 0 else False
        if k == OperandKind.SRC:
            code = self.src_code(f, op)
            return format_src(code, op.optype, op.dwords, di.literal, vfile=self.reg_file(f, op), neg=neg,
                              absm=absm, sext=sext)
        raw = f.get(op.field or "", 0)
        width = ENCODINGS[di.inst.encoding].fields[op.field].width
        if width == 9:
            if raw < VGPR_BASE:
                return format_src(raw, op.optype, op.dwords, di.literal, neg=neg, absm=absm)
            raw -= VGPR_BASE
        return with_mods(format_reg(self.reg_file(f, op), raw, op.dwords), neg, absm, sext)

    def sdst_text(self, di: DecodedInst, op: Operand) -> str:
        code = di.fields.get(op.field or "", 0)
        if code >= 128:  # an 8-bit vdst field holding a non-SGPR code: LLVM names it anyway
            return format_src(code, "", op.dwords, None)
        return format_sreg(code, op.dwords)

    # -- values for the emulator ----------------------------------------------------------
    def operand_values(self, di: DecodedInst) -> tuple[OperandValue, ...]:
        out = []
        f = di.fields
        for op in di.inst.operands:
            k = op.kind
            if k == OperandKind.SPECIAL:
                ref = parse_reg(op.text or "")
                out.append(OperandValue(op.name, ref.file if ref else op.text, ref.index if ref else 0,
                                        ref.count if ref else 1))
            elif k == OperandKind.SREG:
                out.append(reg_value(op.name, f.get(op.field, 0), op.dwords))
            elif k == OperandKind.IMM:
                out.append(OperandValue(op.name, value=di.literal, literal=True))
            elif k == OperandKind.SRC:
                code = self.src_code(f, op)
                v = src_value(op, code, di.literal)
                if v.file == "v" and self.reg_file(f, op) == "a":
                    v = OperandValue(op.name, "a", v.index, v.dwords)
                out.append(v)
            else:
                raw = f.get(op.field or "", 0)
                width = ENCODINGS[di.inst.encoding].fields[op.field].width
                if width == 9 and raw < VGPR_BASE:
                    out.append(src_value(op, raw, di.literal))
                    continue
                if width == 9:
                    raw -= VGPR_BASE
                out.append(OperandValue(op.name, self.reg_file(f, op), raw, op.dwords))
        return tuple(out)

"""Default handlers of the generic operand kinds (registers, sources, immediates, labels).
Families override per codec through ``Codec.kinds``; see ``gcnforge.asm`` for the contract."""

from __future__ import annotations

import re

from gcnforge.asm.literal import is_lit_form
from gcnforge.asm.core import Codec, DecodedInst, EncState, KindHandler, OperandValue, register_kind
from gcnforge.asm.operands import (
    LITERAL, NUM_SGPRS, TTMP_BASE, VGPR_BASE, SPECIAL32, SPECIAL64, SRC_SPECIAL, Tok, encode_src, encode_vreg,
    format_literal, format_reg, is_special_src, format_sreg, format_src, inline_value, parse_int, parse_reg, sreg_code,
    store_imm16,
)
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.schema import Operand, OperandKind


# a branch target's spelling (ASCII names; others take the general check below)
_LABEL_NAME = re.compile(r"[A-Za-z._$][A-Za-z0-9._$@]*")
_RELOC = re.compile(r"^([A-Za-z_.$][\w.$]*)@(rel32|abs32|gotpcrel32|rel64|abs64)@(lo|hi)([+-]\w+)?$")


def reg_value(name: str, code: int, dwords: int) -> OperandValue:
    """OperandValue of a scalar/vector register code in the 9-bit source space."""
    if code >= VGPR_BASE:
        return OperandValue(name, "v", code - VGPR_BASE, dwords)
    if code < NUM_SGPRS:
        return OperandValue(name, "s", code, dwords)
    if TTMP_BASE <= code < TTMP_BASE + 16:
        return OperandValue(name, "ttmp", code - TTMP_BASE, dwords)
    if dwords == 2 and code in SPECIAL64:
        return OperandValue(name, SPECIAL64[code], code, 2)
    if code in SPECIAL32:
        return OperandValue(name, SPECIAL32[code], code, dwords)
    if code in SRC_SPECIAL:
        return OperandValue(name, SRC_SPECIAL[code], code, dwords)
    return OperandValue(name, f"invalid{code}", code, dwords)


def src_value(op: Operand, code: int, literal: int | None, dwords: int | None = None) -> OperandValue:
    d = op.dwords if dwords is None else dwords
    if code == LITERAL:
        return OperandValue(op.name, value=literal, literal=True, dwords=d)
    v = inline_value(code, op.optype, d)
    if v is not None:
        return OperandValue(op.name, value=v, dwords=d)
    return reg_value(op.name, code, d)


def field_value(di: DecodedInst, op: Operand) -> int:
    return di.fields.get(op.field or "", 0)


class SRegHandler(KindHandler):
    """A scalar register (range) in a 7-bit field (sdst, sbase/srsrc scaled)."""

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        ref = parse_reg(tok.text)
        if ref is None:
            raise Diagnostic(f"invalid operand '{tok.text}' for {op.name}: expected a {op.dwords}-dword scalar "
                             "register", tok.loc(st.loc))
        code = sreg_code(ref, op.dwords, tok, st.loc, op.name)
        f = st.enc.fields[op.field]
        if code % f.scale:
            raise Diagnostic(f"misaligned register range {ref}: {op.name} must start at a multiple of {f.scale}",
                             tok.loc(st.loc))
        st.fields[op.field] = code // f.scale

    def _code(self, di, op):
        from gcnforge.isa.encodings import ENCODINGS

        return field_value(di, op) * ENCODINGS[di.inst.encoding].fields[op.field].scale

    def text(self, codec, di, op, pc, symbolize):
        return format_sreg(self._code(di, op), op.dwords)

    def value(self, codec, di, op):
        return reg_value(op.name, self._code(di, op), op.dwords)


class SrcHandler(KindHandler):
    """An 8-bit scalar source (SSRC) or 9-bit vector-ALU source (SRC) with inline constants
    and (when ``op.literal``) the instruction's one literal."""

    def __init__(self, vgpr: bool) -> None:
        self.vgpr = vgpr

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        if "@" in tok.text and op.literal and not is_lit_form(tok.text):
            m = _RELOC.match(tok.text.replace(" ", ""))
            if m is None or m.group(2) != "rel32":
                raise Diagnostic(f"unsupported symbol reference '{tok.text}': expected sym@rel32@lo[+N] or "
                                 "sym@rel32@hi[+N]", tok.loc(st.loc))
            addend = parse_int(m.group(4)) if m.group(4) else 0
            if addend is None:
                raise Diagnostic(f"invalid addend in '{tok.text}'", tok.loc(st.loc))
            st.set_literal(0, tok)
            st.fields[op.field] = LITERAL
            st.fixups.append((f"@rel32:{m.group(3)}:{addend}", m.group(1), tok))
            return
        if op.kind is OperandKind.SSRC and not op.inline_const and not op.literal:
            # an SReg_* operand: registers only (s_setpc_b64, s_movrels_*, ...)
            ref = parse_reg(tok.text)
            # (the 64-bit aperture registers src_shared/private_base/limit are not SReg_32)
            if ref is None and not (op.dwords == 1 and is_special_src(tok.text)
                                    and "shared" not in tok.text and "private" not in tok.text):
                raise Diagnostic(f"invalid operand for instruction: {op.name} of '{st.inst.mnemonic}' must be a "
                                 f"{op.dwords}-dword scalar register", tok.loc(st.loc))
        r = encode_src(tok, st.loc, dwords=op.dwords, optype=op.optype, vgpr=self.vgpr, literal_ok=op.literal,
                       what=op.name)
        if r.code == LITERAL:
            st.set_literal(r.literal, tok)
        st.fields[op.field] = r.code

    def text(self, codec, di, op, pc, symbolize):
        code = field_value(di, op)
        t = format_src(code, op.dwords, op.optype, di.literal, vector=self.vgpr)
        if op.kind is OperandKind.SSRC and not op.inline_const and not op.literal and 128 <= code <= 255 \
                and not (235 <= code <= 239 or 251 <= code <= 254 or code in (230, 231)):
            # what LLVM 22 prints for a constant in an SReg operand (constants in 32-bit spelling)
            t = format_src(code, 1, "", di.literal, vector=self.vgpr) + "/*Invalid immediate*/"
        return t

    def value(self, codec, di, op):
        return src_value(op, field_value(di, op), di.literal)


class VRegHandler(KindHandler):
    """A VGPR/AGPR (range) in an 8-bit field. AV operands choose the file by the ``acc``
    field (``Codec.acc_field``)."""

    def __init__(self, files: str) -> None:
        self.files = files

    def parse(self, codec, st, op, toks):
        files = op.files or self.files
        file, idx = encode_vreg(toks[0], st.loc, dwords=op.dwords, files=files, what=op.name)
        st.fields[op.field] = idx
        if "a" in files and "v" in files:
            acc = getattr(codec, "acc_field", "acc")
            want = 1 if file == "a" else 0
            prev = st.extra.get("acc")
            if prev is not None and prev != want:
                raise Diagnostic(f"{op.name} must be in the same register file as the other data operands "
                                 f"({'AGPR' if prev else 'VGPR'})", toks[0].loc(st.loc))
            st.extra["acc"] = want
            st.fields[acc] = want

    def _file(self, codec, di, op):
        files = op.files or self.files
        if "a" in files and "v" in files:
            return "a" if di.fields.get(getattr(codec, "acc_field", "acc")) else "v"
        return files[0]

    def text(self, codec, di, op, pc, symbolize):
        return format_reg(self._file(codec, di, op), field_value(di, op), op.dwords)

    def value(self, codec, di, op):
        return OperandValue(op.name, self._file(codec, di, op), field_value(di, op), op.dwords)


class ImmHandler(KindHandler):
    """An immediate field printed as a number. ``op.optype`` gives the print style:
    ``u<N>`` unsigned decimal, ``i<N>`` signed decimal, ``x<N>`` hex (``0x..``). A field
    named ``literal`` is the trailing 32-bit literal dword (s_setreg_imm32_b32)."""

    def _bits(self, st_or_di, op) -> int:
        if op.field == "literal":
            return 32
        from gcnforge.isa.encodings import ENCODINGS

        return ENCODINGS[st_or_di.inst.encoding].fields[op.field].width

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        v = parse_int(tok.text)
        if v is None:
            raise Diagnostic(f"invalid {op.name} '{tok.text}': expected an integer", tok.loc(st.loc))
        bits = self._bits(st, op)
        if not -(1 << (bits - 1)) <= v < (1 << bits):
            raise Diagnostic(f"immediate {tok.text} out of range for {op.name}: expected a {bits}-bit value "
                             f"({-(1 << (bits - 1))}..{(1 << bits) - 1})", tok.loc(st.loc))
        v &= (1 << bits) - 1
        if op.field == "literal":
            st.set_literal(v, tok)
        else:
            st.fields[op.field] = v

    def raw(self, di, op) -> int:
        return (di.literal or 0) if op.field == "literal" else field_value(di, op)

    def text(self, codec, di, op, pc, symbolize):
        v = self.raw(di, op)
        style = op.optype or "u"
        bits = self._bits(di, op)
        if op.field == "literal" or style == "u7" or (style.startswith("x") and di.inst.encoding == "SOPP"):
            # LLVM prints these immediates like inline integers: decimal in -16..64, else hex
            return str(v) if v <= 64 else hex(v)
        if style.startswith("x"):
            return hex(v)
        if style.startswith("i") and v & (1 << (bits - 1)):
            v -= 1 << bits
        return str(v)

    def value(self, codec, di, op):
        return OperandValue(op.name, value=self.raw(di, op), literal=op.field == "literal")


class LabelHandler(KindHandler):
    """A PC-relative branch target in a 16-bit field: ``target = pc + 4 + simm16 * 4``
    (ISA guide 4.5). Text may be an integer (the raw simm16) or a label name."""

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        if store_imm16(st, op.field, tok, "branch offset {} out of range (-32768..65535 dwords)"):
            return
        name = tok.text
        if not (_LABEL_NAME.fullmatch(name) if name.isascii() else
                (name[0].isalpha() or name[0] in "._$") and all(c.isalnum() or c in "._$@" for c in name)):
            raise Diagnostic(f"invalid branch target '{name}': expected a label or an integer", tok.loc(st.loc))
        st.fields[op.field] = 0
        st.fixups.append((op.field, name, tok))

    def text(self, codec, di, op, pc, symbolize):
        raw = field_value(di, op)
        v = raw - 0x10000 if raw & 0x8000 else raw
        if symbolize is not None:
            s = symbolize(pc + 4 + v * 4)
            if s is not None:
                return s
        # llvm-mc --disassemble / llvm-objdump print the raw field (unsigned for SOPP/SOPK)
        return str(raw if op.optype.startswith("u") else v)

    def value(self, codec, di, op):
        v = field_value(di, op)
        if v & 0x8000:
            v -= 0x10000
        return OperandValue(op.name, value=v)


class SpecialHandler(KindHandler):
    """Fixed text (``vcc`` of VOP2/VOPC e32): must be written as printed."""

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        if tok.text.lower() != (op.text or "").lower():
            raise Diagnostic(f"invalid operand '{tok.text}' for {op.name}: expected '{op.text}'", tok.loc(st.loc))

    def text(self, codec, di, op, pc, symbolize):
        return op.text or ""

    def value(self, codec, di, op):
        ref = parse_reg(op.text or "")
        if ref is not None:
            return OperandValue(op.name, ref.file, ref.index, ref.count)
        return OperandValue(op.name, op.text)


register_kind(OperandKind.SREG, SRegHandler())
register_kind(OperandKind.SSRC, SrcHandler(vgpr=False))
register_kind(OperandKind.SRC, SrcHandler(vgpr=True))
register_kind(OperandKind.VGPR, VRegHandler("v"))
register_kind(OperandKind.AGPR, VRegHandler("a"))
register_kind(OperandKind.AV, VRegHandler("va"))
register_kind(OperandKind.IMM, ImmHandler())
register_kind(OperandKind.SIMM16, ImmHandler())
register_kind(OperandKind.LABEL, LabelHandler())
register_kind(OperandKind.SPECIAL, SpecialHandler())

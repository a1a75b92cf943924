"""SMEM: scalar memory (AMD Instinct MI300 ISA Reference Guide 12.2; LLVM 22 forms).

Offset forms, chosen by the ``imm`` and ``soe`` bits:

    imm=1 soe=0   s_load_dword s0, s[0:1], 0x10           offset = signed 21-bit byte offset
    imm=0 soe=0   s_load_dword s0, s[0:1], s8             offset field holds the SGPR code
    imm=1 soe=1   s_load_dword s0, s[0:1], s8 offset:0x10  soffset field + immediate
    imm=0 soe=1   s_load_dword s0, s[0:1], s8             soffset field (decoded only; LLVM
                                                          assembles ``s8`` as imm=0 soe=0)
"""

from __future__ import annotations

from gcnforge.asm.core import Codec, KindHandler, ModSpec, OperandValue, flag_mod, register_codec
from gcnforge.asm.kinds import SRegHandler, reg_value
from gcnforge.asm.operands import format_sreg, parse_int, parse_reg, sreg_code, sreg_valid
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.schema import OperandKind

OFFSET_MIN, OFFSET_MAX = -(1 << 20), (1 << 20) - 1


def _hex_signed(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"


def _offset(fields: dict[str, int]) -> int:
    v = fields.get("offset", 0)
    return v - (1 << 21) if v & (1 << 20) else v


def _parse_offset_imm(text: str, tok, st) -> int:
    v = parse_int(text)
    if v is None:
        raise Diagnostic(f"invalid SMEM offset '{text}': expected an SGPR, m0 or an integer", tok.loc(st.loc))
    if "_buffer" in st.inst.base and not 0 <= v <= 0xFFFFF:
        raise Diagnostic(f"SMEM offset {text} out of range: s_buffer_* take a 20-bit unsigned byte offset "
                         "(0..0xfffff)", tok.loc(st.loc))
    if not OFFSET_MIN <= v <= OFFSET_MAX:
        raise Diagnostic(f"SMEM offset {text} out of range: expected a signed 21-bit byte offset "
                         f"({OFFSET_MIN}..{OFFSET_MAX})", tok.loc(st.loc))
    return v & ((1 << 21) - 1)


class SmemOffsetHandler(KindHandler):
    def parse(self, codec, st, op, toks):
        tok = toks[0]
        ref = parse_reg(tok.text)
        if ref is not None:
            code = sreg_code(ref, 1, tok, st.loc, "SMEM soffset")
            st.fields["imm"] = 0
            st.fields["soe"] = 0
            st.fields["offset"] = code
            st.extra["soffset_code"] = code
            return
        st.fields["imm"] = 1
        st.fields["offset"] = _parse_offset_imm(tok.text, tok, st)

    def text(self, codec, di, op, pc, symbolize):
        f = di.fields
        if f["soe"]:
            return format_sreg(f["soffset"], 1)
        if f["imm"]:
            return _hex_signed(_offset(f))
        return format_sreg(f["offset"] & 0x7F, 1)

    def value(self, codec, di, op):
        f = di.fields
        if f["soe"]:
            return reg_value(op.name, f["soffset"], 1)
        if f["imm"]:
            return OperandValue(op.name, value=_offset(f))
        return reg_value(op.name, f["offset"] & 0x7F, 1)


def _parse_offset_mod(st, v, tok):
    if v is None:
        raise Diagnostic("modifier 'offset' expects a value (offset:N)", tok.loc(st.loc))
    if "soffset_code" not in st.extra:
        raise Diagnostic("offset:N needs an SGPR soffset operand before it", tok.loc(st.loc))
    st.fields["soffset"] = st.extra["soffset_code"]
    st.fields["soe"] = 1
    st.fields["imm"] = 1
    st.fields["offset"] = _parse_offset_imm(v, tok, st)


OFFSET_MOD = ModSpec(
    "offset", _parse_offset_mod,
    lambda di: f"offset:{_hex_signed(_offset(di.fields))}" if di.fields["soe"] and di.fields["imm"] else None,
    lambda di: _offset(di.fields) if di.fields["imm"] else 0,
)


class SmemDataHandler(SRegHandler):
    """SMEM sdata: LLVM decodes m0/exec here but marks them (SReg_*_XM0_XEXEC classes)."""

    def text(self, codec, di, op, pc, symbolize):
        t = super().text(codec, di, op, pc, symbolize)
        code = di.fields[op.field]
        if op.dwords == 1 and code in (124, 126, 127):
            t += "/*Invalid register, operand has 'SReg_32_XM0_XEXEC' register class*/"
        elif op.dwords == 2 and code == 126:
            t += "/*Invalid register, operand has 'SReg_64_XEXEC' register class*/"
        return t


class SmemCodec(Codec):
    encodings = ("SMEM",)
    modifiers = {"offset": OFFSET_MOD, "glc": flag_mod("glc")}
    kinds = {OperandKind.SMEM_OFFSET: SmemOffsetHandler(), OperandKind.SREG: SmemDataHandler()}

    def finish_parse(self, st):
        # LLVM's SReg_*_XM0_XEXEC: a loaded/returned sdata cannot be m0 or exec
        for op in st.inst.operands:
            if op.name == "sdata" and op.kind is OperandKind.SREG:
                if st.fields.get("sdata") in (124, 126, 127):
                    raise Diagnostic(f"invalid operand for instruction: {st.inst.mnemonic} cannot use m0 or exec as sdata",
                                     st.loc)

    def valid(self, di):
        if not super().valid(di):
            return False
        from gcnforge.isa.encodings import ENCODINGS

        fields = ENCODINGS["SMEM"].fields
        for op in di.inst.operands:
            if op.kind is OperandKind.SREG and not sreg_valid(di.fields[op.field] * fields[op.field].scale, op.dwords):
                return False
        has_off = any(o.kind is OperandKind.SMEM_OFFSET for o in di.inst.operands)
        return has_off or not di.fields["imm"]


register_codec(SmemCodec())

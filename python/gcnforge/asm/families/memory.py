"""Vector memory families: DS, FLAT/GLOBAL/SCRATCH, MUBUF, MTBUF (AMD Instinct MI300 ISA
Reference Guide ch. 9-12; syntax and print order as LLVM 22 for gfx942).

Operand shapes that depend on other fields (LLVM prints them that way):
* GLOBAL: ``vaddr`` is a 64-bit address when ``saddr`` is ``off`` (0x7f), else a 32-bit offset.
* SCRATCH: ``vaddr`` is ``off`` unless bit 13 (SVE) is set; ``saddr`` ``off`` is 0x7f.
* FLAT/GLOBAL atomics with ``sc0`` return the pre-op value: an extra leading ``vdst``.
* MUBUF/MTBUF ``vaddr``: ``off`` (no offen/idxen), one VGPR (either), a pair (both);
  MUBUF ``lds`` loads have no ``vdata``.
"""

from __future__ import annotations

from gcnforge.asm.kinds import VRegHandler
from gcnforge.asm.core import Codec, KindHandler, ModSpec, OperandValue, flag_mod, int_mod, register_codec
from gcnforge.asm.families.swizzle import swizzle_parse, swizzle_text
from gcnforge.asm.operands import (encode_vreg, format_reg, format_sreg, parse_int, parse_reg, sreg_code, sreg_valid,
                                   src_code_valid)
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.schema import OperandKind

OFF_SADDR = 0x7F


def _vreg_ops(codec, di):
    for op in codec.operand_list(di.inst, di.fields):
        if op.kind in (OperandKind.VGPR, OperandKind.AV, OperandKind.AGPR) and op.field:
            n = op.dwords
            if op.name == "vaddr" and di.inst.encoding == "GLOBAL" and di.fields.get("saddr") != OFF_SADDR:
                n = 1
            yield op, di.fields.get(op.field, 0), n


def vregs_valid(codec, di, odd_ok: bool = False) -> bool:
    """LLVM 22 rejects VGPR/AGPR tuples running past register 255, and (in DS/buffer
    operands) odd-aligned multi-dword tuples (gfx90a+ requires even alignment)."""
    for op, v, n in _vreg_ops(codec, di):
        if v + n > 256 or (n > 1 and v % 2 and not (odd_ok and op.name != "vaddr")):
            return False
    return True


def _mark_odd_tuples(codec, di, text: str) -> str:
    """LLVM decodes odd-aligned FLAT data tuples but prints a note after each of them."""
    for op, v, n in _vreg_ops(codec, di):
        if n > 1 and v % 2 and op.name != "vaddr":
            f = "a" if (op.kind is OperandKind.AV and di.fields.get("acc")) else "v"
            reg = format_reg(f, v, n)
            cls = "AV" if op.kind is OperandKind.AV else "VReg"
            note = f"/*Invalid register, operand has '{cls}_{32 * n}_Align2' register class*/"
            text = text.replace(reg + ",", reg + note + ",", 1) if reg + "," in text else text.replace(
                reg, reg + note, 1)
    return text


class OffHandler(KindHandler):
    """A register or ``off``. Scalar (saddr): ``off`` = 0x7f. Vector (vaddr): ``off`` means
    'not used' (scratch: SVE bit clear; buffer: neither offen nor idxen)."""

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        if tok.text.lower() == "off":
            if op.files == "s":
                st.fields[op.field] = OFF_SADDR
            st.extra[f"off_{op.name}"] = True
            return
        st.extra[f"off_{op.name}"] = False
        if op.files == "s":
            ref = parse_reg(tok.text)
            if ref is None:
                raise Diagnostic(f"invalid {op.name} '{tok.text}': expected an SGPR{' pair' if op.dwords == 2 else ''} "
                                 "or 'off'", tok.loc(st.loc))
            code = sreg_code(ref, codec.saddr_dwords(st), tok, st.loc, op.name)
            if code in (124, 126, 127) and "_lds_" not in st.inst.base:  # LLVM: SReg_*_XEXEC
                # 32-bit (scratch) saddr: LLVM 22's class excludes only exec_hi (exec_lo and m0
                # assemble); 64-bit (global) saddr excludes exec (probed with llvm-mc)
                if codec.saddr_dwords(st) == 2 or code == 127:
                    raise Diagnostic(f"invalid operand for instruction: {op.name} cannot be {tok.text}",
                                     tok.loc(st.loc))
            st.fields[op.field] = code
        else:
            dw = codec.vaddr_dwords(st)
            _, idx = encode_vreg(tok, st.loc, dwords=dw, files="v", what=op.name)
            st.fields[op.field] = idx
            st.extra["vaddr_dwords_seen"] = dw

    def text(self, codec, di, op, pc, symbolize):
        if op.files == "s":
            v = di.fields[op.field]
            return "off" if v == OFF_SADDR else format_sreg(v, op.dwords if di.inst.encoding != "SCRATCH" else 1)
        n = codec.vaddr_used(di.fields)
        return "off" if not n else format_reg("v", di.fields[op.field], n)

    def value(self, codec, di, op):
        if op.files == "s":
            v = di.fields[op.field]
            if v == OFF_SADDR:
                return OperandValue(op.name, "off")
            return OperandValue(op.name, "s", v, op.dwords)
        n = codec.vaddr_used(di.fields)
        return OperandValue(op.name, "off") if not n else OperandValue(op.name, "v", di.fields[op.field], n)


_OFF = {OperandKind.OFF: OffHandler()}


# -- DS -----------------------------------------------------------------------------------
def _ds_offset_parse(st, v, tok):
    iv = parse_int(v) if v is not None else None
    if iv is None and v is not None and st.inst.mnemonic == "ds_swizzle_b32" and v.lower().startswith("swizzle("):
        iv = swizzle_parse(v)
        if iv is None:
            raise Diagnostic(f"invalid swizzle pattern '{v}': expected swizzle(QUAD_PERM,a,b,c,d), (SWAP,n), "
                             "(REVERSE,n), (BROADCAST,size,lane), (BITMASK_PERM,\"01pi.\"), (FFT,n) or "
                             "(ROTATE,dir,size)", tok.loc(st.loc))
    if iv is None or not 0 <= iv <= 0xFFFF:
        raise Diagnostic(f"DS offset '{v}' out of range: expected an unsigned 16-bit byte offset (0..65535)",
                         tok.loc(st.loc))
    st.fields["offset0"] = iv & 0xFF
    st.fields["offset1"] = iv >> 8


def _ds_off(di) -> int:
    return di.fields["offset0"] | di.fields["offset1"] << 8


def _ds_offset_text(di) -> str | None:
    v = _ds_off(di)
    if not v:
        return None
    if di.inst.mnemonic == "ds_swizzle_b32":
        return f"offset:{swizzle_text(v)}"
    return f"offset:{v}"


class DsCodec(Codec):
    def valid(self, di):
        return super().valid(di) and vregs_valid(self, di)

    encodings = ("DS",)
    modifiers = {
        "offset": ModSpec("offset", _ds_offset_parse, lambda di: _ds_offset_text(di), _ds_off),
        "offset0": int_mod("offset0", "offset0", 8),
        "offset1": int_mod("offset1", "offset1", 8),
        "gds": flag_mod("gds"),
    }


# -- FLAT / GLOBAL / SCRATCH ------------------------------------------------------------
class FlatCodec(Codec):
    def valid(self, di):
        # FLAT-segment offsets are 12-bit unsigned: bit 12 must be clear (LLVM rejects it)
        if di.inst.encoding == "FLAT" and di.fields["offset"] & 0x1000:
            return False
        ops = di.inst.operands
        if ops and ops[0].optional and ops[0].files == "v" and di.fields.get("sc0") and di.fields.get("acc"):
            return False  # returning form of an atomic that takes no AGPRs (LLVM rejects it)
        sa = di.fields["saddr"]
        if di.inst.encoding != "FLAT" and sa != OFF_SADDR and any(o.name == "saddr" for o in di.inst.operands):
            if not sreg_valid(sa, 2 if di.inst.encoding == "GLOBAL" else 1):
                return False
        return super().valid(di) and vregs_valid(self, di, odd_ok=True)

    def text(self, di, pc=0, symbolize=None):
        t = _mark_odd_tuples(self, di, super().text(di, pc, symbolize))
        if di.inst.encoding == "GLOBAL" and di.fields["saddr"] == 126 and ", exec" in t \
                and "_lds_" not in di.inst.mnemonic:
            # LLVM decodes saddr=exec but flags it (SReg_64_XEXEC_XNULL)
            t = t.replace(", exec", ", exec/*Invalid register, operand has 'SReg_64_XEXEC_XNULL' register class*/", 1)
        return t

    encodings = ("FLAT", "GLOBAL", "SCRATCH")
    kinds = _OFF
    modifiers = {
        "sc0": flag_mod("sc0"), "sc1": flag_mod("sc1"), "nt": flag_mod("nt"),
    }

    def __init__(self) -> None:
        self.modifiers = dict(self.modifiers)
        self._flat_off = int_mod("offset", "offset", 12)
        self._seg_off = int_mod("offset", "offset", 13, signed=True)
        outer = self

        def parse(st, v, tok):
            (outer._flat_off if st.inst.encoding == "FLAT" else outer._seg_off).parse(st, v, tok)

        def text(di):
            return (outer._flat_off if di.inst.encoding == "FLAT" else outer._seg_off).text(di)

        def value(di):
            return (outer._flat_off if di.inst.encoding == "FLAT" else outer._seg_off).value(di)

        self.modifiers["offset"] = ModSpec("offset", parse, text, value)

    def defaults(self, inst):
        return {"saddr": OFF_SADDR} if inst.encoding != "FLAT" else {}

    def _returns(self, inst, fields) -> bool:
        return bool(fields.get("sc0"))

    def operand_list(self, inst, fields):
        ops = inst.operands
        if ops and ops[0].optional and ops[0].name == "vdst":
            if fields is None or not self._returns(inst, fields):
                return ops[1:]
        return ops

    def saddr_dwords(self, st) -> int:
        return 2 if st.inst.encoding == "GLOBAL" else 1

    def vaddr_dwords(self, st) -> int:
        return 1

    def vaddr_used(self, fields) -> int:
        return 1 if fields.get("lds") else 0  # scratch SVE

    def parse(self, inst, segs, loc, mtok):
        ops = inst.operands
        if ops and ops[0].optional and ops[0].name == "vdst" and len(segs) == len(ops):
            # returning atomic: the written form has vdst; it requires sc0 (LLVM: "instruction must use sc0")
            pi = super().parse_with(inst, ops, segs, loc, mtok)
            if not pi.fields.get("sc0"):
                raise Diagnostic(f"returning atomic '{inst.mnemonic}' with a vdst must use sc0", mtok.loc(loc))
            if ops[0].files == "v" and pi.fields.get("acc"):
                raise Diagnostic(f"invalid operand for instruction: returning '{inst.mnemonic}' takes no AGPR data",
                                 segs[2][0].loc(loc) if len(segs) > 2 and segs[2] else mtok.loc(loc))
            return pi
        pi = super().parse_with(inst, self.operand_list(inst, {}), segs, loc, mtok)
        if pi.fields.get("sc0") and ops and ops[0].optional and ops[0].name == "vdst":
            raise Diagnostic(f"'{inst.mnemonic}' with sc0 returns a value: write the vdst operand first "
                             "(or drop sc0)", mtok.loc(loc))
        return pi

    def finish_parse(self, st):
        f = st.fields
        if st.inst.encoding == "SCRATCH":
            f["lds"] = 0 if st.extra.get("off_vaddr", False) else 1
            if not st.extra.get("off_vaddr", True) and not st.extra.get("off_saddr", True):
                pass
        elif st.inst.encoding == "GLOBAL":
            pass


class GlobalAddrHandler(VRegHandler):
    """GLOBAL vaddr: v[n:n+1] when saddr is off, else one VGPR (parsed after saddr is known).
    Other VGPR operands (a VGPR-only returned vdst) are plain VGPRs."""

    def __init__(self) -> None:
        super().__init__("v")

    def parse(self, codec, st, op, toks):
        if op.name != "vaddr":
            return super().parse(codec, st, op, toks)
        st.extra["vaddr_tok"] = toks[0]

    def text(self, codec, di, op, pc, symbolize):
        if op.name != "vaddr":
            return super().text(codec, di, op, pc, symbolize)
        n = 2 if di.fields["saddr"] == OFF_SADDR else 1
        return format_reg("v", di.fields[op.field], n)

    def value(self, codec, di, op):
        if op.name != "vaddr":
            return super().value(codec, di, op)
        n = 2 if di.fields["saddr"] == OFF_SADDR else 1
        return OperandValue(op.name, "v", di.fields[op.field], n)


class GlobalCodec(FlatCodec):
    encodings = ("GLOBAL",)
    kinds = {**_OFF, OperandKind.VGPR: GlobalAddrHandler()}

    def finish_parse(self, st):
        tok = st.extra.get("vaddr_tok")
        if tok is not None:
            n = 2 if st.fields.get("saddr", OFF_SADDR) == OFF_SADDR else 1
            _, idx = encode_vreg(tok, st.loc, dwords=n, files="v", what="vaddr")
            st.fields["addr"] = idx


# -- MUBUF / MTBUF -------------------------------------------------------------------
DFMT = ["BUF_DATA_FORMAT_INVALID", "BUF_DATA_FORMAT_8", "BUF_DATA_FORMAT_16", "BUF_DATA_FORMAT_8_8",
        "BUF_DATA_FORMAT_32", "BUF_DATA_FORMAT_16_16", "BUF_DATA_FORMAT_10_11_11", "BUF_DATA_FORMAT_11_11_10",
        "BUF_DATA_FORMAT_10_10_10_2", "BUF_DATA_FORMAT_2_10_10_10", "BUF_DATA_FORMAT_8_8_8_8",
        "BUF_DATA_FORMAT_32_32", "BUF_DATA_FORMAT_16_16_16_16", "BUF_DATA_FORMAT_32_32_32",
        "BUF_DATA_FORMAT_32_32_32_32", "BUF_DATA_FORMAT_RESERVED_15"]
NFMT = ["BUF_NUM_FORMAT_UNORM", "BUF_NUM_FORMAT_SNORM", "BUF_NUM_FORMAT_USCALED", "BUF_NUM_FORMAT_SSCALED",
        "BUF_NUM_FORMAT_UINT", "BUF_NUM_FORMAT_SINT", "BUF_NUM_FORMAT_RESERVED_6", "BUF_NUM_FORMAT_FLOAT"]
DFMT_DEFAULT, NFMT_DEFAULT = 1, 0  # LLVM's defaults: omitted when printing (AMDGPUAsmUtils)


def _format_text(di) -> str | None:
    d, n = di.fields["dfmt"], di.fields["nfmt"]
    if d == DFMT_DEFAULT and n == NFMT_DEFAULT:
        return None
    parts = []
    if d != DFMT_DEFAULT:
        parts.append(DFMT[d])
    if n != NFMT_DEFAULT:
        parts.append(NFMT[n])
    return "format:[" + ",".join(parts) + "]"


def _format_parse(st, v, tok):
    if v is None:
        raise Diagnostic("format expects a value: format:[BUF_DATA_FORMAT_x,BUF_NUM_FORMAT_y] or format:N",
                         tok.loc(st.loc))
    iv = parse_int(v)
    if iv is not None:
        if not 0 <= iv <= 127:
            raise Diagnostic(f"format {v} out of range: expected 0..127", tok.loc(st.loc))
        st.fields["dfmt"], st.fields["nfmt"] = iv & 15, iv >> 4
        return
    if not (v.startswith("[") and v.endswith("]")):
        raise Diagnostic(f"invalid format '{v}': expected [BUF_DATA_FORMAT_x,BUF_NUM_FORMAT_y]", tok.loc(st.loc))
    d, n = DFMT_DEFAULT, NFMT_DEFAULT
    for part in filter(None, (p.strip().upper() for p in v[1:-1].split(","))):
        if part in DFMT:
            d = DFMT.index(part)
        elif part in NFMT:
            n = NFMT.index(part)
        else:
            raise Diagnostic(f"unknown buffer format '{part}'", tok.loc(st.loc))
    st.fields["dfmt"], st.fields["nfmt"] = d, n


class BufCodec(Codec):
    def valid(self, di):
        f = di.fields
        for op in di.inst.operands:
            if op.kind is OperandKind.SSRC and (not src_code_valid(f[op.field], 1)
                                                or (f[op.field] == 255 and not op.literal)):
                return False
            if op.kind is OperandKind.SREG and not sreg_valid(f[op.field] * 4, 4):
                return False
        return super().valid(di) and vregs_valid(self, di)

    encodings = ("MUBUF", "MTBUF")
    kinds = _OFF
    modifiers = {
        "format": ModSpec("format", _format_parse, _format_text, lambda di: di.fields["dfmt"] | di.fields["nfmt"] << 4),
        "idxen": flag_mod("idxen"), "offen": flag_mod("offen"), "offset": int_mod("offset", "offset", 12),
        "sc0": flag_mod("sc0"), "sc1": flag_mod("sc1"), "nt": flag_mod("nt"), "lds": flag_mod("lds"),
    }

    def defaults(self, inst):
        return {"dfmt": DFMT_DEFAULT} if inst.encoding == "MTBUF" else {}

    def vaddr_used(self, fields) -> int:
        return (fields.get("offen", 0) + fields.get("idxen", 0))

    def vaddr_dwords(self, st) -> int:
        return 1

    def operand_list(self, inst, fields):
        if fields is not None and fields.get("lds") and inst.encoding == "MUBUF":
            return tuple(o for o in inst.operands if o.name != "vdata")
        return inst.operands

    def parse(self, inst, segs, loc, mtok):
        # "lds" loads are written without vdata: try the full form, then the lds form
        ops = inst.operands
        if "lds" in inst.modifiers and any(o.name == "vdata" for o in ops) and len(segs) == len(ops) - 1:
            return self.parse_with(inst, tuple(o for o in ops if o.name != "vdata"), segs, loc, mtok)
        return self.parse_with(inst, ops, segs, loc, mtok)

    def finish_parse(self, st):
        f = st.fields
        n = f.get("offen", 0) + f.get("idxen", 0)
        off = st.extra.get("off_vaddr")
        if off is None:
            return
        if off and n:
            raise Diagnostic(f"vaddr is 'off' but {'offen' if f.get('offen') else 'idxen'} needs a VGPR address",
                             st.loc)
        if not off and not n:
            raise Diagnostic("a VGPR vaddr needs offen and/or idxen (or write 'off')", st.loc)
        if not off and n == 2 and st.extra.get("vaddr_dwords_seen") != 2:
            raise Diagnostic("idxen offen take a 2-VGPR vaddr (index, offset)", st.loc)
        if st.inst.encoding == "MUBUF" and f.get("lds") and any(o.name == "vdata" for o in st.inst.operands) \
                and st.extra.get("lds_form") is False:
            pass


class BufVaddrHandler(OffHandler):
    """Buffer vaddr: its width (1 or 2) depends on offen/idxen, which follow it in the text,
    so the register is checked in ``finish_parse``."""

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        if tok.text.lower() == "off":
            st.extra["off_vaddr"] = True
            return
        ref = parse_reg(tok.text)
        if ref is None or ref.file != "v":
            raise Diagnostic(f"invalid vaddr '{tok.text}': expected a VGPR, a VGPR pair or 'off'", tok.loc(st.loc))
        _, idx = encode_vreg(tok, st.loc, dwords=ref.count if ref.count in (1, 2) else 1, files="v", what="vaddr")
        st.fields[op.field] = idx
        st.extra["off_vaddr"] = False
        st.extra["vaddr_dwords_seen"] = ref.count


BufCodec.kinds = {OperandKind.OFF: BufVaddrHandler()}

register_codec(DsCodec())
register_codec(FlatCodec())
register_codec(GlobalCodec())
register_codec(BufCodec())

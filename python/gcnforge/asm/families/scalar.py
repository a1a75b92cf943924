"""Scalar ALU families SOP1, SOP2, SOPK, SOPC, SOPP: waitcnt, hwreg, sendmsg and gpr_idx
operand syntax (LLVM 22 AMDGPUAsmParser/AMDGPUInstPrinter spellings; field layouts from
AMD Instinct MI300 ISA Reference Guide 4.4 (S_WAITCNT), 5.x (S_GETREG/S_SETREG hwreg
fields), 4.x (S_SENDMSG message table))."""

from __future__ import annotations

import re

from gcnforge.asm.core import Codec, KindHandler, register_codec, register_kind
from gcnforge.asm.operands import Tok, parse_int, src_code_valid, store_imm16
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import waitcnt
from gcnforge.isa.schema import OperandKind

_WAIT_RE = re.compile(r"\s*(vmcnt|expcnt|lgkmcnt)(_sat)?\s*\(\s*([^)]*?)\s*\)\s*[&,]?\s*", re.I)


class WaitcntHandler(KindHandler):
    words = 0  # takes every word of its segment that is not a modifier

    def parse(self, codec, st, op, toks):
        text = " ".join(t.text for t in toks)
        tok = toks[0]
        iv = parse_int(text)
        if iv is not None:
            if not -32768 <= iv <= 65535:
                raise Diagnostic(f"s_waitcnt immediate {text} out of range (16 bits)", tok.loc(st.loc))
            st.fields[op.field] = iv & 0xFFFF
            return
        vm, exp, lgkm = waitcnt.MAX["vmcnt"], waitcnt.MAX["expcnt"], waitcnt.MAX["lgkmcnt"]
        seen = set()
        for tok in toks:
            if tok.text == "&":
                continue
            pos = 0
            text = tok.text
            while pos < len(text):
                m = _WAIT_RE.match(text, pos)
                if not m:
                    raise Diagnostic(f"invalid s_waitcnt operand '{text[pos:]}': expected vmcnt(N), expcnt(N) or "
                                     "lgkmcnt(N)", Tok(text, tok.col + pos).loc(st.loc))
                name, sat, val = m.group(1).lower(), m.group(2), parse_int(m.group(3))
                mx = waitcnt.MAX[name]
                at = Tok(m.group(3), tok.col + m.start(3)).loc(st.loc)
                if val is None or val < 0 or (val > mx and not sat):
                    raise Diagnostic(f"{name} value '{m.group(3)}' out of range: expected 0..{mx}", at)
                if name in seen:
                    raise Diagnostic(f"duplicate {name} in s_waitcnt", at)
                pos = m.end()
                seen.add(name)
                val = min(val, mx)
                if name == "vmcnt":
                    vm = val
                elif name == "expcnt":
                    exp = val
                else:
                    lgkm = val
        st.fields[op.field] = waitcnt.pack(vm, exp, lgkm)

    def text(self, codec, di, op, pc, symbolize):
        return waitcnt.text(di.fields[op.field])


# -- hwreg(id, offset, size): simm16 = id[5:0] | offset[10:6] | (size-1)[15:11] ---------
HWREG_NAMES = {
    1: "HW_REG_MODE", 2: "HW_REG_STATUS", 3: "HW_REG_TRAPSTS", 4: "HW_REG_HW_ID", 5: "HW_REG_GPR_ALLOC",
    6: "HW_REG_LDS_ALLOC", 7: "HW_REG_IB_STS", 15: "HW_REG_SH_MEM_BASES", 16: "HW_REG_TBA_LO",
    17: "HW_REG_TBA_HI", 18: "HW_REG_TMA_LO", 19: "HW_REG_TMA_HI", 20: "HW_REG_XCC_ID",
    21: "HW_REG_SQ_PERF_SNAPSHOT_DATA", 22: "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
    23: "HW_REG_SQ_PERF_SNAPSHOT_PC_LO", 24: "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
}
_HWREG_BY_NAME = {v: k for k, v in HWREG_NAMES.items()}


def hwreg_text(v: int) -> str:
    rid, off, size = v & 0x3F, (v >> 6) & 0x1F, ((v >> 11) & 0x1F) + 1
    name = HWREG_NAMES.get(rid, str(rid))
    if off == 0 and size == 32:
        return f"hwreg({name})"
    return f"hwreg({name}, {off}, {size})"


def _func_args(text: str, fname: str) -> list[str] | None:
    t = text.strip()
    if not t.lower().startswith(fname + "(") or not t.endswith(")"):
        return None
    inner = t[len(fname) + 1:-1]
    return [a.strip() for a in inner.split(",")] if inner.strip() else []


class _Simm16Call(KindHandler):
    """A 16-bit SOPP/SOPK immediate written as an integer or as ``func(args)``: ``encode``
    turns the arguments into the field value, ``show`` the value back into LLVM's text."""

    func = ""
    usage = ""
    arities: tuple[int, ...] = ()

    def parse(self, codec, st, op, toks):
        tok = toks[0]
        if store_imm16(st, op.field, tok, f"{self.func} immediate {{}} out of range (16 bits)"):
            return
        args = _func_args(tok.text, self.func)
        if not args or len(args) not in self.arities:
            raise Diagnostic(f"invalid {self.func} operand '{tok.text}': expected {self.usage}", tok.loc(st.loc))
        st.fields[op.field] = self.encode(args, tok.loc(st.loc))

    def text(self, codec, di, op, pc, symbolize):
        return self.show(di.fields[op.field])


class HwregHandler(_Simm16Call):
    func, usage, arities = "hwreg", "hwreg(HW_REG_name[, offset, size])", (1, 3)
    show = staticmethod(hwreg_text)

    def encode(self, args, loc):
        rid = _HWREG_BY_NAME.get(args[0].upper())
        if rid is None:
            rid = parse_int(args[0])
            if rid is None or not 0 <= rid <= 63:
                raise Diagnostic(f"unknown hardware register '{args[0]}' (known: {', '.join(HWREG_NAMES.values())})",
                                 loc)
        off, size = 0, 32
        if len(args) == 3:
            off, size = parse_int(args[1]), parse_int(args[2])
            if off is None or not 0 <= off <= 31:
                raise Diagnostic(f"hwreg bit offset '{args[1]}' out of range: expected 0..31", loc)
            if size is None or not 1 <= size <= 32:
                raise Diagnostic(f"hwreg bitfield size '{args[2]}' out of range: expected 1..32", loc)
        return rid | off << 6 | (size - 1) << 11


# -- sendmsg(MSG, OP, STREAM): simm16 = msg[3:0] | op[6:4] | stream[9:8] (pre-gfx11) ----
MSG_NAMES = {1: "MSG_INTERRUPT", 2: "MSG_GS", 3: "MSG_GS_DONE", 4: "MSG_SAVEWAVE", 5: "MSG_STALL_WAVE_GEN",
             6: "MSG_HALT_WAVES", 7: "MSG_ORDERED_PS_DONE", 8: "MSG_EARLY_PRIM_DEALLOC", 9: "MSG_GS_ALLOC_REQ",
             10: "MSG_GET_DOORBELL", 15: "MSG_SYSMSG"}
GS_OPS = {0: "GS_OP_NOP", 1: "GS_OP_CUT", 2: "GS_OP_EMIT", 3: "GS_OP_EMIT_CUT"}
SYSMSG_OPS = {1: "SYSMSG_OP_ECC_ERR_INTERRUPT", 2: "SYSMSG_OP_REG_RD", 4: "SYSMSG_OP_TTRACE_PC"}
_MSG_BY_NAME = {v: k for k, v in MSG_NAMES.items()}
_OP_BY_NAME = {**{v: k for k, v in GS_OPS.items()}, **{v: k for k, v in SYSMSG_OPS.items()}}


def _msg_valid(msg: int, op: int, stream: int) -> bool:
    if msg not in MSG_NAMES:
        return False
    if msg in (2, 3):
        if op not in GS_OPS or (msg == 2 and op == 0):
            return False
        return op != 0 or stream == 0
    if msg == 15:
        return op in SYSMSG_OPS and stream == 0
    return op == 0 and stream == 0


def sendmsg_text(v: int) -> str:
    msg, op, stream = v & 0xF, (v >> 4) & 7, (v >> 8) & 3
    if _msg_valid(msg, op, stream):
        s = MSG_NAMES[msg]
        if msg in (2, 3, 15):
            s += ", " + (GS_OPS[op] if msg != 15 else SYSMSG_OPS[op])
            if msg in (2, 3) and op != 0:
                s += f", {stream}"
        return f"sendmsg({s})"
    if (msg | op << 4 | stream << 8) == v:
        return f"sendmsg({msg}, {op}, {stream})"
    return str(v)


class SendmsgHandler(_Simm16Call):
    func, usage, arities = "sendmsg", "sendmsg(MSG_name[, OP[, stream]])", (1, 2, 3)
    show = staticmethod(sendmsg_text)

    def encode(self, args, loc):
        msg = _MSG_BY_NAME.get(args[0].upper(), parse_int(args[0]))
        if msg is None or not 0 <= msg <= 15:
            raise Diagnostic(f"unknown message '{args[0]}' (known: {', '.join(MSG_NAMES.values())})", loc)
        op = 0
        stream = 0
        if len(args) >= 2:
            op = _OP_BY_NAME.get(args[1].upper(), parse_int(args[1]))
            if op is None or not 0 <= op <= 7:
                raise Diagnostic(f"invalid message operation '{args[1]}'", loc)
        if len(args) == 3:
            stream = parse_int(args[2])
            if stream is None or not 0 <= stream <= 3:
                raise Diagnostic(f"invalid message stream '{args[2]}': expected 0..3", loc)
        named = args[0].upper() in _MSG_BY_NAME
        if named and not _msg_valid(msg, op, stream):
            raise Diagnostic(f"invalid sendmsg({', '.join(args)}): operation/stream not valid for {args[0]}", loc)
        return msg | op << 4 | stream << 8


# -- gpr_idx(SRC0,SRC1,SRC2,DST): s_set_gpr_idx_on / _mode mask (ISA guide 4.6) ----------
GPR_IDX_BITS = ("SRC0", "SRC1", "SRC2", "DST")


class GprIdxHandler(KindHandler):
    def parse(self, codec, st, op, toks):
        tok = toks[0]
        iv = parse_int(tok.text)
        if iv is not None:
            if not 0 <= iv <= 15:
                raise Diagnostic(f"gpr_idx mode {tok.text} out of range: expected 0..15", tok.loc(st.loc))
            st.fields[op.field] = iv
            return
        args = _func_args(tok.text, "gpr_idx")
        if args is None:
            raise Diagnostic(f"invalid operand '{tok.text}': expected gpr_idx(SRC0,SRC1,SRC2,DST)", tok.loc(st.loc))
        v = 0
        for a in args:
            if a.upper() not in GPR_IDX_BITS:
                raise Diagnostic(f"invalid gpr_idx mode '{a}': expected SRC0, SRC1, SRC2 or DST", tok.loc(st.loc))
            bit = 1 << GPR_IDX_BITS.index(a.upper())
            if v & bit:
                raise Diagnostic(f"duplicate gpr_idx mode '{a}'", tok.loc(st.loc))
            v |= bit
        st.fields[op.field] = v

    def text(self, codec, di, op, pc, symbolize):
        v = di.fields[op.field]
        if v > 15:
            return hex(v)
        return "gpr_idx(" + ",".join(n for i, n in enumerate(GPR_IDX_BITS) if v >> i & 1) + ")"


register_kind(OperandKind.WAITCNT, WaitcntHandler())
register_kind(OperandKind.HWREG, HwregHandler())
register_kind(OperandKind.SENDMSG, SendmsgHandler())
register_kind(OperandKind.GPR_IDX, GprIdxHandler())


class ScalarCodec(Codec):
    """SOP1/SOP2/SOPK/SOPC/SOPP: operands straight from the table; a literal follows when
    an 8-bit source holds 255 or the instruction takes a 32-bit immediate
    (s_setreg_imm32_b32: operand field ``literal``)."""

    encodings = ("SOP1", "SOP2", "SOPK", "SOPC", "SOPP")
    modifiers = {}

    def parse(self, inst, segs, loc, mtok):
        if len(inst.operands) == 1 and inst.operands[0].kind is OperandKind.WAITCNT and len(segs) > 1:
            segs = [[t for seg in segs for t in seg]]  # "vmcnt(0), lgkmcnt(0)": commas separate counters
        return super().parse(inst, segs, loc, mtok)

    def valid(self, di):
        if not super().valid(di):
            return False
        for op in di.inst.operands:
            if op.kind is OperandKind.SSRC and not src_code_valid(di.fields[op.field], op.dwords):
                return False
            if op.kind is OperandKind.SREG and not src_code_valid(di.fields[op.field], op.dwords):
                return False
        return True

    def has_literal(self, inst, fields):
        for op in inst.operands:
            if op.field == "literal":
                return True
            if op.kind is OperandKind.SSRC and fields.get(op.field) == 255:
                return True
        return False


register_codec(ScalarCodec())

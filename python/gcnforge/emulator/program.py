"""Decoded instructions in the form the emulator executes.

Each instruction is decoded once by ``gcnforge.asm`` and turned into an ``XInst`` record:
the mnemonic, its operands in LLVM's print order (registers as file/index/width, constants
as bit patterns the decoder already converted for the operand's type, with widths and types
from the ISA table) and its modifiers as numbers. Nothing is read back from printed text;
the text is produced only when a message or a trace asks for it.

Scalar registers are numbered as the hardware's scalar operand field numbers them
(ISA guide "Scalar ALU operands"): s0-s101, flat_scratch 102-103, xnack_mask 104-105,
vcc 106-107, ttmp0-15 108-123, m0 124, null 125, exec 126-127.
"""

from __future__ import annotations

from gcnforge.asm.operands import SPECIAL32, SPECIAL64
from gcnforge.isa import dpp, waitcnt
from gcnforge.emulator.memory import PRIVATE_BASE, SHARED_BASE

# name -> (field number, dwords), from the assembler's one table of special scalar operands
# (asm.operands: SPECIAL32 one dword, SPECIAL64 the pairs; null is one dword), plus the trap
# handler's base addresses, which the assembler does not spell
SPECIAL_SREG = {n: (c, 1) for c, n in SPECIAL32.items()}
SPECIAL_SREG.update({n: (c, 2) for c, n in SPECIAL64.items() if n != "null"})
SPECIAL_SREG.update({"tba": (108, 2), "tma": (110, 2)})
SGPR_FILE = 128
VCC, M0, NULL, EXEC = 106, 124, 125, 126
TTMP0 = 108

# 64-bit apertures and other read-only sources become constants.
SPECIAL_CONST = {"src_shared_base": SHARED_BASE, "src_private_base": PRIVATE_BASE,
                 "src_shared_limit": SHARED_BASE | 0xFFFFFFFF, "src_private_limit": PRIVATE_BASE | 0xFFFFFFFF,
                 "src_pops_exiting_wave_id": 0}
_COND = {"scc": "scc", "src_scc": "scc", "execz": "execz", "src_execz": "execz", "vccz": "vccz",
         "src_vccz": "vccz", "off": "off", "lds_direct": "lds_direct", "src_lds_direct": "lds_direct"}


class XOp:
    """One operand. ``kind``: 'v' VGPR, 'a' AGPR, 's' scalar (index as above), 'imm'
    (``value`` holds the bit pattern, 64-bit for 64-bit operands), 'scc'/'execz'/'vccz'
    (the condition bits as sources), 'off', 'lds_direct'."""

    __slots__ = ("kind", "index", "dwords", "value", "neg", "abs", "sext")

    def __init__(self, kind: str, index: int = 0, dwords: int = 1, value: int = 0, neg: bool = False,
                 abs: bool = False, sext: bool = False):
        self.kind, self.index, self.dwords, self.value = kind, index, dwords, value
        self.neg, self.abs, self.sext = neg, abs, sext

    def replace(self, **kw) -> "XOp":
        d = {k: getattr(self, k) for k in self.__slots__}
        d.update(kw)
        return XOp(**d)

    def __eq__(self, other) -> bool:
        return isinstance(other, XOp) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, k) for k in self.__slots__))

    @property
    def is_reg(self) -> bool:
        return self.kind in ("v", "a", "s")

    def __repr__(self) -> str:
        return f"XOp({self})"

    def __str__(self) -> str:
        if self.kind in ("v", "a", "s"):
            p = self.kind
            return f"{p}{self.index}" if self.dwords == 1 else f"{p}[{self.index}:{self.index + self.dwords - 1}]"
        return self.kind if self.kind != "imm" else hex(self.value)


class XInst:
    """One decoded instruction: ``base`` is the mnemonic without _e32/_e64/_dpp/_sdwa, ``enc``
    that suffix ('' for encodings printed without one); ``mods`` the modifiers the handlers
    read (flags present only when set)."""

    __slots__ = ("pc", "size", "mnemonic", "base", "enc", "ops", "mods", "sem", "target", "handler", "cycles",
                 "reads", "writes", "_text", "_di")

    def __init__(self, pc, size, mnemonic, base, enc, ops, mods=None, sem="", text=None, di=None):
        self.pc, self.size, self.mnemonic, self.base, self.enc = pc, size, mnemonic, base, enc
        self.ops, self.mods, self.sem = tuple(ops), mods if mods is not None else {}, sem
        self.target = None  # branch target pc
        self.handler = None  # bound by decode.bind
        self.cycles = 4
        self.reads = self.writes = ()  # sanitizer bookkeeping
        self._text, self._di = text, di

    @property
    def text(self) -> str:
        """LLVM's text of the instruction (printed on demand, for messages and traces)."""
        if self._text is None:
            self._text = " ".join(self._di.text(self.pc).split()) if self._di is not None else self.mnemonic
        return self._text

    def with_ops(self, ops) -> "XInst":
        """A copy with other operands (same pc, modifiers and handler)."""
        c = XInst(self.pc, self.size, self.mnemonic, self.base, self.enc, ops, self.mods, self.sem, self._text, self._di)
        c.target, c.handler, c.cycles = self.target, self.handler, self.cycles
        return c

    def __str__(self) -> str:
        return self.text


# ---- operands --------------------------------------------------------------------------------
def _operand(v, dwords: int, optype: str = "") -> XOp:
    """The XOp of one decoded operand value ``v`` (an ``asm.OperandValue``); ``dwords`` and
    ``optype`` are the ISA table's width and value type of its slot."""
    f = v.file
    if f is None:
        x = v.value or 0
        if v.literal and optype == "f64":
            x <<= 32  # a literal of an f64 operand is its high dword (ISA guide "Literal constants")
        dwords = min(dwords, 2)  # a constant for a wider operand (MFMA C) is one 32/64-bit pattern
        return XOp("imm", value=x & ((1 << (32 * dwords)) - 1), dwords=dwords)
    if f in ("v", "a", "s"):
        return XOp(f, v.index, v.dwords)
    if f == "ttmp":
        return XOp("s", TTMP0 + v.index, v.dwords)
    if f in SPECIAL_SREG:
        i, n = SPECIAL_SREG[f]
        return XOp("s", i, n)
    if f in SPECIAL_CONST:
        return XOp("imm", value=SPECIAL_CONST[f], dwords=2)
    if f in _COND:
        return XOp(_COND[f])
    raise ValueError(f"operand {v.name} names register file '{f}'")


_SEL = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
_UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")
_FLAGS = ("glc", "slc", "sc0", "sc1", "nt", "offen", "idxen", "lds", "gds", "clamp", "tfe", "bound_ctrl")
_OMOD = {1: ("mul", 2), 2: ("mul", 4), 3: ("div", 2)}  # VOP3 OMOD field (ISA guide "VOP3A")


def _dpp_ctrl(c: int) -> tuple:
    """DPP_CTRL as (control, argument) (``isa.dpp``: LLVM's names, which ``lanes.dpp_lanes``
    reads); ValueError for a value no control uses."""
    got = dpp.decode(c)
    if got is None:
        raise ValueError(f"DPP control 0x{c:x} is not a control the target defines")
    return got


def _bits(v: int, n: int) -> list[int]:
    return [(v >> i) & 1 for i in range(n)]


_SRC_NUMBER = {"src0": 0, "src1": 1, "src2": 2, "vsrc1": 1}
_NUMBERS = frozenset(("offset", "offset0", "offset1", "format"))  # format: MTBUF dfmt | nfmt << 4
_MAI = frozenset(("cbsz", "abid", "blgp"))
_SELS = {"dst_sel": _SEL, "dst_unused": _UNUSED, "src0_sel": _SEL, "src1_sel": _SEL}
_SRC_MOD = {f"src{i}_{m}": (i, m) for i in range(3) for m in ("neg", "abs", "sext")}
_KEEP_ZERO = frozenset(("op_sel_hi", "dpp_ctrl", *_SELS))  # fields whose 0 means something


def _modifiers(di, ops: list[XOp], names: list[str]) -> dict:
    """The handler-facing modifiers of ``di``: numbers from the decoder's fields (flags only
    when set), source modifiers (neg/abs/sext) put on the operands they apply to."""
    inst = di.inst
    dm = di.modifiers
    mods: dict = {}
    srcmods = []  # (source number, 'neg'|'abs'|'sext')
    vop3p = "op_sel_hi" in dm
    for k, v in dm.items():
        if not v and k not in _KEEP_ZERO:
            continue
        if k in _FLAGS:
            mods[k] = 1
        elif k in _NUMBERS:
            mods[k] = v
        elif k in _MAI:  # MFMA (for f64 MFMA these fields are the neg bits the handler reads)
            if k in inst.modifiers or inst.base.startswith("v_mfma"):
                mods[k] = v
        elif k == "omod":
            om = _OMOD.get(v)
            if om:
                mods[om[0]] = om[1]
        elif k in ("neg", "abs"):
            if not vop3p:  # VOP3: one bit per source (VOP3P's neg is neg_lo, below)
                srcmods += [(i, k) for i in range(3) if v >> i & 1]
        elif k in _SRC_MOD:
            srcmods.append(_SRC_MOD[k])
        elif k in _SELS:
            if k in inst.modifiers and v < len(_SELS[k]):
                mods[k] = _SELS[k][v]
        elif k == "dpp_ctrl":
            mods["dpp"] = _dpp_ctrl(v)
            mods["row_mask"], mods["bank_mask"] = dm.get("row_mask", 0xF), dm.get("bank_mask", 0xF)
    if srcmods:
        at = {_SRC_NUMBER[n]: j for j, n in enumerate(names) if n in _SRC_NUMBER}
        for i, m in srcmods:
            if i in at:
                ops[at[i]] = ops[at[i]].replace(**{m: True})
    if vop3p or dm.get("op_sel"):
        nsrc = sum(1 for n in names if n in _SRC_NUMBER)
        if inst.base.startswith("v_cvt_sr_"):
            nsrc = 3  # its op_sel has a bit for the unused src2 position, as LLVM prints it
        full = (1 << nsrc) - 1
        if vop3p:  # one bit per source; defaults (op_sel_hi all set, others 0) left out
            hi = dm["op_sel_hi"] | (dm.get("op_sel_hi2", 0) & 1) << 2
            for k, v in (("op_sel", dm.get("op_sel", 0)), ("neg_lo", dm.get("neg", 0)), ("neg_hi", dm.get("neg_hi", 0))):
                if v & full:
                    mods[k] = _bits(v, nsrc)
            if hi & full != full:
                mods["op_sel_hi"] = _bits(hi, nsrc)
        else:  # VOP3: one bit per source, then the destination's (bit 3)
            v = dm["op_sel"]
            mods["op_sel"] = _bits(v, nsrc) + [(v >> 3) & 1]
    return mods


_SMEM = ("s_load", "s_buffer_load", "s_store", "s_buffer_store", "s_atomic", "s_buffer_atomic", "s_scratch",
         "s_dcache_discard", "s_atc_probe")
_SLOTS: dict[int, tuple] = {}  # id(Instruction) -> (instruction, {operand name: (kind, dwords, optype, optional)}, smem)


def _slots(inst) -> tuple:
    got = _SLOTS.get(id(inst))
    if got is None or got[0] is not inst:
        got = _SLOTS[id(inst)] = (inst, {o.name: (o.kind.value, o.dwords, o.optype, o.optional) for o in inst.operands},
                                  inst.base.startswith(_SMEM))
    return got


def record(di, pc: int) -> XInst:
    """The ``XInst`` of one decoded instruction (``di.inst`` is not None)."""
    inst = di.inst
    mnem, base = inst.mnemonic, inst.base
    enc = mnem[len(base) + 1:] if mnem != base else ""
    _, slots, smem = _slots(inst)
    ops: list[XOp] = []
    names: list[str] = []
    mods: dict = {}
    for v in di.operands:
        kind, dwords, optype, optional = slots.get(v.name) or ("", v.dwords, "", False)
        if kind == "waitcnt":
            # a counter at its maximum does not wait (LLVM leaves it out of the text too)
            mods.update(waitcnt.waits(v.value or 0) or waitcnt.unpack(v.value or 0))
            continue
        if kind == "hwreg":  # simm16 = id[5:0] | offset[10:6] | (size-1)[15:11] (ISA guide S_GETREG_B32)
            x = v.value or 0
            mods["hwreg"] = (x & 0x3F, (x >> 6) & 0x1F, ((x >> 11) & 0x1F) + 1)
            continue
        if kind == "sendmsg":
            mods["sendmsg"] = v.value or 0
            continue
        if v.file is None:
            if optional and not v.value:
                continue  # omitted when zero (s_endpgm)
            if kind in ("simm16", "label"):
                ops.append(XOp("imm", value=(v.value or 0) & 0xFFFF))
            else:
                ops.append(_operand(v, dwords, optype))
        else:
            ops.append(_operand(v, v.dwords))
        names.append(v.name)
    mods.update(_modifiers(di, ops, names))
    if smem and "offset" in names:
        # SMEM: the offset operand is the immediate unless an SGPR (soffset) stands there;
        # then the immediate is a separate modifier (ISA guide "SMEM": IMM, SOE)
        if ops[names.index("offset")].kind == "imm" or not mods.get("offset"):
            mods.pop("offset", None)
    return XInst(pc, di.size, mnem, base, enc, ops, mods, inst.sem or "", di=di)

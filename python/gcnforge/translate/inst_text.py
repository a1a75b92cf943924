"""One allocated instruction op -> its line of LLVM AMDGPU assembly.

Operands in the ISA table's order (``isa_info.slots``), fixed-text operands (``vcc`` of a
VOPC ``_e32``) included; registers as LLVM spells them (``v5``, ``s[2:3]``, ``a[0:15]``);
immediates by kind (``s_waitcnt`` counters symbolic, SMEM offsets in hex); modifiers after
the operands as LLVM prints them (``offset:16``, ``sc0``, ``cbsz:1``, ``op_sel:[0,1]``); VOP3
``neg``/``abs`` as operand decorations (``-v1``, ``|v2|``).

Pre: every register operand has an allocated type. Raises ``Diagnostic`` otherwise.
"""

from __future__ import annotations

import struct
from functools import cache

from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect import isa_info
from gcnforge.dialect.inst_ops import InstOp, constant_of
from gcnforge.dialect.types import RegisterType, SpecialRegType
from gcnforge.isa import dpp, inline, table, waitcnt

def _const_text(v: SSAValue, optype: str, hexa: bool = False) -> str:
    c = constant_of(v)
    t = v.type
    if c is None:
        raise Diagnostic("constant operand without a value (an unlowered amdgcn.lds_alloc?)", _where(v))
    if isinstance(c, float) or isinstance(t, AnyFloat):
        c = float(c)
        width = 64 if optype.endswith("64") else 32
        cls = isa_info.classify_float(c, width)
        if cls == "inline":
            if c != 0.0 and c not in inline.PLAIN_FLOATS:  # 1/(2*pi), however it was written
                return inline.INV_2PI_TEXT[width]
            return repr(c)
        if optype.endswith("16"):
            return hex(struct.unpack("<H", struct.pack("<e", c))[0])
        if optype.endswith("64"):
            return hex(struct.unpack("<Q", struct.pack("<d", c))[0] >> 32)
        return hex(struct.unpack("<I", struct.pack("<f", c))[0])
    assert isinstance(t, IntegerType)
    if hexa:
        return hex(c & 0xFFFF_FFFF)
    return str(c)


def _where(v: SSAValue) -> str:
    return f"'{v.owner.name}'" if hasattr(v.owner, "name") else "<value>"


def reg_text(v: SSAValue) -> str:
    t = v.type
    if isinstance(t, RegisterType):
        if not t.is_allocated:
            raise Diagnostic(f"register operand {t} is not allocated (run amdgcn-regalloc first)", _where(v))
        return t.asm()
    if isinstance(t, SpecialRegType):
        return t.asm()
    raise Diagnostic(f"not a register: {t}", _where(v))


# VOP3 output modifier (omod field: 1 = *2, 2 = *4, 3 = /2), LLVM spelling.
_OMOD = {1: "mul:2", 2: "mul:4", 3: "div:2"}


def dpp_ctrl_text(v: int) -> str:
    """LLVM's spelling of a DPP_CTRL value (``isa.dpp``)."""
    t = dpp.text(v)
    if t is None:
        raise Diagnostic(f"dpp_ctrl {v:#x} is not a DPP control gfx942 defines")
    return t


def _mod_text(k: str, v: object) -> str:
    if k == "dpp_ctrl" and isinstance(v, int):
        return dpp_ctrl_text(v)
    if k in ("row_mask", "bank_mask") and isinstance(v, int):
        return f"{k}:{v:#x}"
    if k == "bound_ctrl" and v is True:
        return "bound_ctrl:1"
    if k == "omod" and isinstance(v, int):
        return _OMOD.get(v, "")
    if v is True:
        return k
    if isinstance(v, list):
        return f"{k}:[{','.join(str(int(x)) for x in v)}]"
    return f"{k}:{v}"


def _plan(mnemonic: str):
    """(operand, slot) pairs of an instruction, derived once per mnemonic and target."""
    return _plan_for(mnemonic, table.active_target())


@cache
def _plan_for(mnemonic: str, target: str):
    inf = isa_info.info(mnemonic, target)
    # the same slot derivation the op verifier uses
    return tuple((o, None if o.kind == "special" else isa_info._slot(o)) for o in inf.inst.operands)  # noqa: SLF001


# (inst, off, imms, mods, operand types) -> text, for ops whose operands are all registers:
# their text is a function of those attributes alone, and unrolled kernels repeat them.
_TEXT: dict[tuple, str] = {}
_TEXT_MAX = 1 << 16


def inst_text(op: InstOp, label_of=None) -> str:
    attrs = op.attributes
    types = tuple([v.type for v in op.operands])
    key = None
    for t in types:
        if not isinstance(t, RegisterType | SpecialRegType):
            break
    else:
        key = (attrs.get("inst"), attrs.get("off"), attrs.get("imms"), attrs.get("mods"), types)
        text = _TEXT.get(key)
        if text is not None:
            return text
    text = _inst_text(op, label_of)
    if key is not None and not _has_label(op.mnemonic):
        if len(_TEXT) >= _TEXT_MAX:
            _TEXT.clear()
        _TEXT[key] = text
    return text


@cache
def _has_label(mnemonic: str) -> bool:
    return any(o.kind == "label" for o, _ in _plan(mnemonic))


def _inst_text(op: InstOp, label_of=None) -> str:
    inf = op.info
    if inf is None:
        raise Diagnostic(f"unknown instruction '{op.mnemonic}'", f"'{op.name}'")
    mods = dict(op.modifiers)
    decor_neg = {i for i in range(3) if mods.pop(f"neg{i}", False)}
    decor_abs = {i for i in range(3) if mods.pop(f"abs{i}", False)}
    offs = set(op.off_slots)
    args = list(op.args)
    imms = list(op.imm_values)
    items: list[str] = []
    ai = ii = si = 0
    for o, s in _plan(inf.inst.mnemonic):
        if o.kind == "special":
            items.append(o.text or o.name)
            continue
        if o.kind == "label":
            items.append(label_of(op) if label_of else "0")
            continue
        if not s.ssa:
            v = imms[ii] if ii < len(imms) else 0
            ii += 1
            items.append(waitcnt.text(v) if o.kind == "waitcnt" else (hex(v) if o.kind == "imm" else str(v)))
            continue
        if si in offs:
            # an absent destination (a non-returning atomic's vdst, an LDS DMA's vdata) has no
            # text in LLVM's syntax; other 'off' operands (saddr) print as 'off'
            if not s.is_def:
                items.append("off")
            si += 1
            continue
        si += 1
        v = args[ai]
        ai += 1
        if isinstance(v.type, RegisterType | SpecialRegType):
            text = reg_text(v)
        else:
            text = _const_text(v, o.optype, hexa=o.kind == "smem_offset")
        idx = {"src0": 0, "src1": 1, "src2": 2}.get(o.name)
        if idx is not None and idx in decor_abs:
            text = f"|{text}|"
        if idx is not None and idx in decor_neg:
            text = f"-{text}"
        items.append(text)
    head = inf.inst.mnemonic
    line = head + (" " + ", ".join(items) if items else "")
    if inf.inst.encoding == "SOPP" and not items and inf.inst.operands:
        line = head
    for k, v in mods.items():
        if v is False or v is None:
            continue
        try:
            t = _mod_text(k, v)
        except Diagnostic as d:  # a modifier value with no spelling (e.g. a dpp_ctrl gfx942 lacks): at the op
            raise Diagnostic(d.message, op if d.loc is None else d.loc) from None
        if t:
            line += " " + t
    return line

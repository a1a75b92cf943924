"""What the dialect needs to know about an instruction, read from the ISA table only.

For each ``gcnforge.isa.schema.Instruction`` this module derives (once, cached):

* the op family that carries it (``vop2``, ``smem``, ``global``, ...), from its encoding;
* its *slots*: the table's operands in LLVM print order, minus fixed-text ``SPECIAL``
  operands, each either an SSA slot (a register, special register, or constant value)
  or an immediate slot (an integer kept in the op's ``imms`` attribute), and for SSA
  slots the register files / specials / constants it accepts;
* which slots are definitions (one op result each, destination-passing style) and whether
  the op yields a memory token (read or write).

Inline constants follow the ISA guide 3.7 table (integers -16..64; 0.5, 1.0, 2.0, 4.0 and
their negations; 1/(2*pi)); anything else is a 32-bit literal, allowed only where the table
says ``literal`` and at most once per instruction (ISA guide 12.x "Literal constant").
"""

from __future__ import annotations

import struct
from functools import cache

from gcnforge.isa import inline, scaled_mfma, table
from gcnforge.isa.schema import Instruction, Operand, OperandKind, Role
from gcnforge.record import FrozenRecord, set_fields

# Encoding -> op family. DPP/SDWA forms belong to their base family (they are modifiers).
ENCODING_FAMILY = {
    "SOP1": "sop1", "SOP2": "sop2", "SOPK": "sopk", "SOPC": "sopc", "SOPP": "sopp",
    "SMEM": "smem",
    "VOP1": "vop1", "VOP1_DPP": "vop1", "VOP1_SDWA": "vop1",
    "VOP2": "vop2", "VOP2_DPP": "vop2", "VOP2_SDWA": "vop2",
    "VOPC": "vopc", "VOPC_DPP": "vopc", "VOPC_SDWA": "vopc",
    "VOP3A": "vop3", "VOP3B": "vop3", "VOP3": "vop3",
    "VOP3P": "vop3p", "VOP3P_MAI": "mfma",
    "DS": "ds", "FLAT": "flat", "GLOBAL": "global", "SCRATCH": "scratch",
    "MUBUF": "mubuf", "MTBUF": "mtbuf",
}
MEMORY_FAMILIES = frozenset({"smem", "ds", "flat", "global", "scratch", "mubuf", "mtbuf"})

IMM_KINDS = frozenset({
    OperandKind.SIMM16, OperandKind.WAITCNT, OperandKind.HWREG, OperandKind.SENDMSG,
    OperandKind.IMM, OperandKind.LABEL, OperandKind.GPR_IDX, OperandKind.DS_OFFSET,
})

SCALAR_SPECIALS = frozenset({"vcc", "vcc_lo", "vcc_hi", "exec", "exec_lo", "exec_hi", "m0", "scc"})


def family_of(inst: Instruction) -> str:
    fam = ENCODING_FAMILY.get(inst.encoding, inst.encoding.lower())
    if fam == "mfma" and not (inst.sem == "mfma" or inst.base.startswith(("v_mfma", "v_smfmac"))):
        fam = "vop3p"  # v_accvgpr_read/write/mov share the MAI encoding but are plain VALU
    if fam == "sopp" and is_branch(inst):
        fam = "branch"
    return fam


def is_branch(inst: Instruction) -> bool:
    return any(o.kind == OperandKind.LABEL for o in inst.operands)


class Slot(FrozenRecord):
    """One operand slot of an instruction as the dialect sees it (a frozen record: no
    ``@dataclass`` code generation at import, issue 15)."""

    __slots__ = _fields = ("operand", "ssa", "files", "specials", "const", "any_int", "may_be_off", "is_def")
    operand: Operand
    ssa: bool  # an SSA operand of the op (else an immediate in ``imms``)
    files: str  # register files accepted: subset of "vsa"
    specials: bool  # accepts vcc/exec/m0/scc (widths checked)
    const: bool  # accepts a constant value (inline constant or literal per flags)
    any_int: bool  # accepts any integer constant (SMEM offset), no literal accounting
    may_be_off: bool
    is_def: bool

    def __init__(self, operand: Operand, ssa: bool, files: str, specials: bool, const: bool, any_int: bool,
                 may_be_off: bool, is_def: bool) -> None:
        set_fields(self, operand, ssa, files, specials, const, any_int, may_be_off, is_def)

    @property
    def name(self) -> str:
        return self.operand.name


def _slot(o: Operand, lds_dma: bool = False) -> Slot:
    """``lds_dma``: ``o`` is the vdata of a MUBUF load that has an ``lds`` form, where the data
    goes to LDS (at M0) and the operand is absent (LLVM: ``buffer_load_dword v1, s[4:7], 0 offen
    lds``): the slot may be 'off' then, and only then (``lds_dma_vdata``)."""
    k = o.kind
    is_def = o.role in (Role.DEF, Role.DEFUSE)
    if k in IMM_KINDS:
        return Slot(o, False, "", False, False, False, False, False)
    files = o.files
    specials = const = any_int = off = False
    if k == OperandKind.VGPR:
        files = files or "v"
    elif k == OperandKind.AGPR:
        files = files or "a"
    elif k == OperandKind.AV:
        files = files or "va"
    elif k == OperandKind.SREG:
        files, specials = files or "s", True
    elif k == OperandKind.SSRC:
        files, specials, const = files or "s", True, True
    elif k == OperandKind.SRC:
        files, specials, const = files or "vs", True, True
    elif k == OperandKind.OFF:
        files, specials, off = files or "s", "s" in (files or "s"), True
    elif k == OperandKind.SMEM_OFFSET:
        files, specials, any_int = files or "s", True, True
    else:
        files = files or "vs"
    const = (const or o.inline_const or o.literal) and (o.inline_const or o.literal)
    # GLOBAL/FLAT atomics: the table marks vdst optional; it is written only with sc0 (gfx940's
    # glc: "return the pre-op value", MI300 ISA guide 10.x). The non-returning form is the op
    # with vdst listed as 'off' (no operand; see ``returns_value``).
    off = off or (o.optional and is_def) or lds_dma
    return Slot(o, True, files, specials, const, any_int, off, is_def)


def optional_dst(inf: "InstInfo") -> int | None:
    """Index (in ``ssa_slots``) of an atomic's optional vdst, else None."""
    for i, s in enumerate(inf.ssa_slots):
        if s.is_def and s.operand.optional:
            return i
    return None


class InstInfo(FrozenRecord):
    __slots__ = _fields = ("inst", "family", "slots", "ssa_slots", "imm_slots", "def_slots", "token")
    inst: Instruction
    family: str
    slots: tuple[Slot, ...]
    ssa_slots: tuple[Slot, ...]
    imm_slots: tuple[Slot, ...]
    def_slots: tuple[int, ...]  # indexes into ssa_slots that yield results
    token: str | None  # "read" / "write" / None

    def __init__(self, inst: Instruction, family: str, slots: tuple[Slot, ...], ssa_slots: tuple[Slot, ...],
                 imm_slots: tuple[Slot, ...], def_slots: tuple[int, ...], token: str | None) -> None:
        set_fields(self, inst, family, slots, ssa_slots, imm_slots, def_slots, token)

    @property
    def mnemonic(self) -> str:
        return self.inst.mnemonic


_INFO: dict[tuple[str, str], InstInfo | None] = {}  # (mnemonic, target) -> info; bounded by the tables
_active = table._ACTIVE.get  # noqa: SLF001  (the passes ask for every op, many times: no extra call)


def info(mnemonic: str, target: str | None = None) -> InstInfo | None:
    """The record of ``mnemonic`` in ``target``'s table (default: the active target,
    ``isa.table.use_target``; an ``amdgcn.module`` makes its ``#amdgcn.target`` active while
    it is parsed, verified or transformed)."""
    key = (mnemonic, target or _active())
    try:
        return _INFO[key]
    except KeyError:
        pass
    inst = table.by_mnemonic(mnemonic, key[1]) or scaled_mfma.record(mnemonic, key[1])
    r = None if inst is None else _info(inst)
    if inst is not None or len(_INFO) < 1 << 16:  # unknown names (user input) only up to a bound
        _INFO[key] = r
    return r


def targets_with(mnemonic: str) -> tuple[str, ...]:
    """The targets whose table has ``mnemonic`` (for a diagnostic naming where it exists)."""
    return tuple(t for t in table.known_targets()
                 if table.by_mnemonic(mnemonic, t) is not None or table.variants(mnemonic, t)
                 or scaled_mfma.record(mnemonic, t) is not None)


def unknown_message(mnemonic: str, target: str | None = None) -> str:
    """Why ``mnemonic`` has no record in the active target's table: unknown everywhere, or
    an instruction of another target (a gfx950-only MFMA in a gfx942 module)."""
    t = target or table.active_target()
    where = targets_with(mnemonic)
    if where:
        return (f"'{mnemonic}' is not a {t} instruction (the {', '.join(where)} table has it; "
                f"the module's target is #amdgcn.target<{t}>)")
    return f"unknown instruction '{mnemonic}' (not in the {t} ISA table)"


def lds_dma_vdata(inf: "InstInfo") -> int | None:
    """Index (in ``ssa_slots``) of a MUBUF load's vdata that its LDS DMA form (modifier ``lds``)
    leaves out, else None."""
    if inf.inst.encoding != "MUBUF" or "lds" not in inf.inst.modifiers:
        return None
    for i, s in enumerate(inf.ssa_slots):
        if s.is_def and s.name == "vdata":
            return i
    return None


def _info(inst: Instruction) -> InstInfo:
    lds = inst.encoding == "MUBUF" and "lds" in inst.modifiers
    slots = tuple(_slot(o, lds and o.name == "vdata" and o.role == Role.DEF) for o in inst.operands
                  if o.kind != OperandKind.SPECIAL)
    ssa = tuple(s for s in slots if s.ssa)
    imm = tuple(s for s in slots if not s.ssa and s.operand.kind != OperandKind.LABEL)
    defs = tuple(i for i, s in enumerate(ssa) if s.is_def)
    fam = family_of(inst)
    token = None
    if fam in MEMORY_FAMILIES:
        token = "read" if defs else "write"
    return InstInfo(inst, fam, slots, ssa, imm, defs, token)


def family_mnemonics(target: str | None = None) -> dict[str, tuple[str, ...]]:
    return _family_mnemonics(target or table.active_target())


@cache
def _family_mnemonics(target: str) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for inst in table.instructions(target):
        out.setdefault(family_of(inst), []).append(inst.mnemonic)
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def slot_dwords(inf: InstInfo, slot: Slot, saddr_on: bool) -> int:
    """Register width of ``slot``. The table gives GLOBAL/SCRATCH ``vaddr`` for
    ``saddr = off`` (a 64-bit address); with an SGPR ``saddr`` it is a 32-bit offset
    (ISA guide 10.x "Global / Scratch addressing": ADDR = SADDR + VADDR[31:0] + OFFSET)."""
    if saddr_on and slot.name == "vaddr" and inf.family in ("global", "scratch"):
        return 1
    return slot.operand.dwords


# -- constants ---------------------------------------------------------------------------
# (codes, values and bit patterns: gcnforge.isa.inline)


def classify_int(v: int) -> str:
    """'inline', 'literal' or 'bad' for an integer operand value."""
    if inline.int_code(v) is not None or v in inline.F32_BITS:
        return "inline"
    if -(1 << 31) <= v < (1 << 32):
        return "literal"
    return "bad"


def classify_float(v: float, width: int) -> str:
    if inline.is_inline_float(v, width):
        return "inline"
    if width == 64:
        # a 64-bit float literal is the high dword; the low dword must be zero
        bits = struct.unpack("<Q", struct.pack("<d", v))[0]
        return "literal" if bits & 0xFFFF_FFFF == 0 else "bad"
    return "literal"

"""Instruction ops: one op per instruction family, the instruction as an attribute.

Every op here carries ``inst = #amdgcn.inst<mnemonic>`` (an ISA-table record), its
register/constant operands in LLVM's print order (``args``), its immediates (``imms``),
the slots written as ``off`` (``off``) and its modifiers (``mods``). Destination-passing
style: destination registers are operands *and* each yields a result of the same type,
so before allocation every definition is a fresh SSA value and after allocation the op
is an in-place write. Memory families also yield a ``!amdgcn.read_token`` (loads, atomics
with return) or ``!amdgcn.write_token``.

Custom syntax reads like the ISA, operands in the table's order, immediates inline,
modifiers as ``name`` or ``name = value`` (the ``=`` keeps them apart from the type list)::

    %d = amdgcn.vop2 v_add_f32_e32 %dst, %a, %b : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    %v, %t = amdgcn.global global_load_dword %dst, %off, %ptr offset = 16 sc0
        : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 2]>
    amdgcn.sopp s_nop 3
    amdgcn.sopp s_waitcnt vmcnt(0) lgkmcnt(0)

Result types are not printed: they are the destination operands' types (plus the token).
The verifier checks the op against the ISA table (``isa_info``): the instruction exists
and belongs to this family, operand count, each operand's register file and width,
inline-constant / literal rules, immediates, and that modifiers are ones the encoding has.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from gcnforge.dialect import isa_info
from gcnforge.dialect.attrs import InstAttr
from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.inst_format import mod_value, mods_attr, parse_inst, print_inst
from gcnforge.dialect.types import ReadTokenType, RegisterType, SpecialRegType, WriteTokenType
from gcnforge.dialect.value_ops import module_target
from gcnforge.isa import scaled_mfma, table

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import Parser
    from xdsl.printer import Printer


def constant_of(v: SSAValue) -> int | float | None:
    """The value of an ``arith.constant`` operand, else None."""
    op = v.owner
    if isinstance(op, ConstantOp):
        val = op.value
        if isinstance(val, IntegerAttr):
            return val.value.data
        if isinstance(val, FloatAttr):
            return val.value.data
    return None


def is_constant_type(t: Attribute) -> bool:
    return isinstance(t, IntegerType) or isinstance(t, AnyFloat)


# Immediate fields: [lo, hi) and width. 16-bit fields take signed or unsigned values (LLVM
# accepts both spellings); DS offsets and packed fields are unsigned; IMM is a 32-bit literal.
_IMM_RANGE = {
    "simm16": (-(1 << 15), 1 << 16, 16),
    "waitcnt": (0, 1 << 16, 16),
    "hwreg": (0, 1 << 16, 16),
    "sendmsg": (0, 1 << 16, 16),
    "gpr_idx": (0, 1 << 16, 16),
    "ds_offset": (0, 1 << 16, 16),
}


class InstOp(IRDLOperation):
    """Base of all instruction-family ops (not registered itself)."""

    FAMILY: ClassVar[str] = ""

    args = var_operand_def()
    outs = var_result_def()
    inst = attr_def(InstAttr)
    imms = opt_attr_def(DenseArrayBase)
    off = opt_attr_def(DenseArrayBase)
    mods = opt_attr_def(DictionaryAttr)

    def __init__(
        self,
        mnemonic: str,
        args: Sequence[SSAValue],
        imms: Sequence[int] = (),
        off: Sequence[int] = (),
        mods: dict[str, object] | DictionaryAttr | None = None,
        result_types: Sequence[Attribute] | None = None,
    ):
        if result_types is None:
            result_types = self.derive_result_types(mnemonic, [a.type for a in args], off)
        attrs: dict[str, Attribute] = {"inst": InstAttr.get(mnemonic)}
        if imms:
            attrs["imms"] = DenseArrayBase.from_list(i64, list(imms))
        if off:
            attrs["off"] = DenseArrayBase.from_list(i64, list(off))
        inf = isa_info.info(mnemonic)
        m = mods if isinstance(mods, DictionaryAttr) else mods_attr(mods or {}, inf.inst.modifiers if inf else ())
        if m is not None:
            attrs["mods"] = m
        # One variadic operand and one variadic result group, so no segment sizes: xDSL's
        # generic IRDL builder (several times slower) would produce exactly this operation.
        Operation.__init__(self, operands=list(args), result_types=list(result_types), attributes=attrs)

    # -- accessors ----------------------------------------------------------------------
    # These read ``self.attributes`` directly: the passes ask for them for every op, many
    # times, and xDSL's generic IRDL field accessors cost several times more.
    @property
    def mnemonic(self) -> str:
        return self.attributes["inst"].mnemonic.data  # type: ignore[attr-defined]

    @property
    def info(self) -> isa_info.InstInfo | None:
        return isa_info.info(self.attributes["inst"].mnemonic.data)  # type: ignore[attr-defined]

    @property
    def imm_values(self) -> tuple[int, ...]:
        a = self.attributes.get("imms")
        return tuple(a.get_values()) if a is not None else ()  # type: ignore[attr-defined]

    @property
    def off_slots(self) -> tuple[int, ...]:
        a = self.attributes.get("off")
        return tuple(a.get_values()) if a is not None else ()  # type: ignore[attr-defined]

    @property
    def modifiers(self) -> dict[str, object]:
        a = self.attributes.get("mods")
        return {k: mod_value(v) for k, v in a.data.items()} if a is not None else {}  # type: ignore[attr-defined]

    @property
    def token(self) -> SSAValue | None:
        outs = self.results  # the one variadic result group (same as ``outs``, cheaper)
        if outs and isinstance(outs[-1].type, ReadTokenType | WriteTokenType):
            return outs[-1]
        return None

    def operand_for(self, slot_name: str) -> SSAValue | None:
        """The SSA operand bound to the table operand ``slot_name`` (``src0``, ``vdst``)."""
        inf = self.info
        if inf is None:
            return None
        offs = set(self.off_slots)
        j = 0
        for i, s in enumerate(inf.ssa_slots):
            if i in offs:
                continue
            if s.name == slot_name:
                args = self.operands
                return args[j] if j < len(args) else None
            j += 1
        return None

    @classmethod
    def derive_result_types(
        cls, mnemonic: str, arg_types: Sequence[Attribute], off: Sequence[int] = ()
    ) -> list[Attribute]:
        inf = isa_info.info(mnemonic)
        if inf is None:
            return []
        offs = set(off)
        out: list[Attribute] = []
        j = 0
        for i, s in enumerate(inf.ssa_slots):
            if i in offs:
                continue
            if s.is_def and j < len(arg_types):
                out.append(arg_types[j])
            j += 1
        if inf.token == "read" and not (inf.def_slots and all(d in offs for d in inf.def_slots)):
            out.append(ReadTokenType())
        elif inf.token == "read":  # an atomic without return (vdst 'off') only writes memory
            out.append(WriteTokenType())
        elif inf.token == "write":
            out.append(WriteTokenType())
        return out

    # -- verification ---------------------------------------------------------------------
    def verify_(self) -> None:
        # checked against the table of the module's #amdgcn.target (whatever is active)
        t = module_target(self)
        if t != table.active_target() and t in table.known_targets():
            with table.use_target(t):
                return self._verify_inst()
        return self._verify_inst()

    def _verify_inst(self) -> None:
        m = self.mnemonic
        inf = self.info
        if inf is None:
            raise VerifyException(isa_info.unknown_message(m))
        if inf.family != self.FAMILY:
            raise VerifyException(
                f"'{m}' is a {inf.family} instruction; use amdgcn.{inf.family}, not {self.name}"
            )
        # operands/results: the one variadic group each (xDSL's IRDL accessors ``args``/``outs``
        # give the same sequences, more slowly); modifiers and immediates read once
        args = self.operands
        imm_values = self.imm_values
        modifiers = self.modifiers
        offs = self.off_slots
        for i in offs:
            if not 0 <= i < len(inf.ssa_slots) or not inf.ssa_slots[i].may_be_off:
                raise VerifyException(f"{m}: operand #{i} cannot be 'off'")
        if (od := isa_info.optional_dst(inf)) is not None and (od in offs) == bool(modifiers.get("sc0")):
            raise VerifyException(
                f"{m}: with sc0 the atomic returns the pre-op value and needs a vdst" if od in offs else
                f"{m}: an atomic with a vdst returns the pre-op value and must use sc0 "
                "(or write vdst as 'off' for the non-returning form)")
        if (lv := isa_info.lds_dma_vdata(inf)) is not None and (lv in offs) != bool(modifiers.get("lds")):
            raise VerifyException(
                f"{m}: with lds the data goes to LDS at M0 and vdata must be 'off'" if lv not in offs else
                f"{m}: vdata 'off' is the LDS DMA form: it needs the lds modifier")
        present, widths = _present(inf, offs)
        if m.endswith("f8f6f4"):
            widths = _f8f6f4_widths(m, present, widths, modifiers)
            if m in scaled_mfma.SCALED:
                for k in scaled_mfma.SELECTORS:
                    if k in modifiers and (err := scaled_mfma.selector_error(k, modifiers[k])):
                        raise VerifyException(f"{m}: {err}")
        if len(args) != len(present):
            names = ", ".join(s.name for s in present) or "none"
            raise VerifyException(
                f"{m} expects {len(present)} register/constant operand(s) ({names}), got {len(args)}"
            )
        if len(imm_values) != len(inf.imm_slots):
            names = ", ".join(s.name for s in inf.imm_slots) or "none"
            raise VerifyException(
                f"{m} expects {len(inf.imm_slots)} immediate(s) ({names}), got {len(imm_values)}"
            )
        literals: set[int | float] = set()
        for slot, val, dwords in zip(present, args, widths, strict=True):
            self._check_operand(m, slot, val, literals, dwords)
        if len(literals) > 1:
            raise VerifyException(f"{m}: at most one 32-bit literal per instruction, got {len(literals)}")
        if inf.family in _VALU_FAMILIES:
            _check_constant_bus(m, inf, present, args, literals, imm_values)
        for slot, v in zip(inf.imm_slots, imm_values, strict=True):
            lo, hi, bits = _IMM_RANGE.get(slot.operand.kind, (-(1 << 31), 1 << 32, 32))
            if not lo <= v < hi:
                raise VerifyException(f"{m}: {slot.name} = {v} does not fit in {bits} bits")
        allowed = set(inf.inst.modifiers)
        for k in modifiers:
            if k not in allowed:
                raise VerifyException(
                    f"{m}: modifier '{k}' is not accepted by {inf.inst.encoding} "
                    f"(allowed: {', '.join(inf.inst.modifiers) or 'none'})"
                )
        expected = self.derive_result_types(m, [a.type for a in args], offs)
        got = [r.type for r in self.results]
        if got != expected:
            raise VerifyException(
                f"{m}: results must be the destination operands' types plus the memory token: "
                f"expected ({', '.join(map(str, expected))}), got ({', '.join(map(str, got))})"
            )

    @staticmethod
    def _check_operand(m: str, slot: isa_info.Slot, val: SSAValue, literals: set, dwords: int) -> None:
        t = val.type
        o = slot.operand
        what = f"{m}: operand {o.name}"
        if isinstance(t, RegisterType):
            if t.FILE not in slot.files:
                raise VerifyException(f"{what} must be {_files_text(slot)}, got {t}")
            if t.width != dwords:
                raise VerifyException(f"{what} must be {dwords} dword(s) wide, got {t.width} ({t})")
            return
        if isinstance(t, SpecialRegType):
            if not slot.specials:
                raise VerifyException(f"{what} must be {_files_text(slot)}, got {t}")
            if t.width != dwords:
                raise VerifyException(f"{what} must be {dwords} dword(s) wide, got {t.reg.data}")
            return
        if is_constant_type(t):
            if slot.is_def:
                raise VerifyException(f"{what} is a destination; a constant cannot be written")
            if slot.any_int and isinstance(t, IntegerType):
                return
            if not slot.const:
                raise VerifyException(f"{what} must be {_files_text(slot)}, not a constant")
            c = constant_of(val)
            if c is None:
                # a value only known later (LDS offset, symbol): it will be a literal
                kind = "literal"
            elif isinstance(c, float):
                kind = isa_info.classify_float(c, getattr(t, "bitwidth", 32))
            else:
                kind = isa_info.classify_int(c)
            if kind == "bad":
                raise VerifyException(f"{what}: constant {c} is neither an inline constant nor a 32-bit literal")
            if kind == "inline" and not o.inline_const:
                if not o.literal:
                    raise VerifyException(f"{what} does not accept a constant")
                kind = "literal"
            if kind == "literal":
                if not o.literal:
                    raise VerifyException(
                        f"{what}: {c if c is not None else 'a non-constant value'} is not an inline "
                        f"constant and this operand takes no literal"
                    )
                literals.add(c if c is not None else id(val))
            return
        raise VerifyException(f"{what} must be {_files_text(slot)}, got {t}")


# VALU encodings whose scalar operands share the one constant bus (gfx9: CDNA3 ISA guide,
# "VALU instruction operands": at most one SGPR, special register or literal per instruction).
_VALU_FAMILIES = frozenset({"vop1", "vop2", "vopc", "vop3", "vop3p", "mfma"})
# Implicit scalar reads that go through the bus (LLVM 22 AMDGPUAsmParser counts VCC, M0 and
# FLAT_SCR among an instruction's implicit uses; EXEC is read by every VALU op and does not).
_BUS_IMPLICIT = ("vcc", "m0", "flat_scratch")


def _check_constant_bus(m: str, inf: isa_info.InstInfo, present, args, literals: set, imms) -> None:
    """At most one scalar value read: SGPRs and special registers (the same register or SSA
    value read twice counts once), 32-bit literals (one per distinct value, including a
    v_fmamk/v_fmaak K), and implicit VCC/M0 reads (v_cndmask_b32_e32, v_addc_co_u32_e32...).
    Verified against llvm-mc in tests/dialect/test_constant_bus.py."""
    reads: list = []  # what each read is, made text only for the error (printing a type is costly)
    seen: set = set()
    for slot, val in zip(present, args, strict=True):
        if slot.is_def and slot.operand.role != "defuse":
            continue
        t = val.type
        if m == "v_writelane_b32" and slot.name == "src1" and isinstance(t, SpecialRegType) and t.reg.data == "m0":
            continue  # M0 as the lane select is exempt (LLVM 22 llvm-mc: "v_writelane_b32 v0, s1, m0" is valid)
        if isinstance(t, RegisterType) and t.FILE == "s":
            key = ("s", t.begin.data, t.width) if t.is_allocated else val
        elif isinstance(t, SpecialRegType):
            key = ("special", t.reg.data)
        else:
            continue
        if key not in seen:
            seen.add(key)
            reads.append((slot.name, t))
    lits = set(literals)
    for slot, v in zip(inf.imm_slots, imms, strict=True):
        if slot.operand.kind == "imm":
            lits.add(v)
    reads += [f"literal {c}" if isinstance(c, int | float) else "a literal" for c in lits]
    for r in inf.inst.implicit_uses:
        if r in _BUS_IMPLICIT and ("special", r) not in seen:
            reads.append(f"implicit {r}")
    if len(reads) > 1:
        said = [r if isinstance(r, str) else f"{r[0]} ({r[1]})" for r in reads]
        raise VerifyException(
            f"{m}: violates the constant bus limit: a VALU instruction reads at most one scalar "
            f"value (SGPR, special register or literal), this one reads {len(reads)}: {', '.join(said)}"
        )


_PRESENT: dict[tuple[str, tuple[int, ...]], tuple[tuple, tuple[int, ...]]] = {}


def _present(inf: isa_info.InstInfo, offs: tuple[int, ...]) -> tuple[tuple, tuple[int, ...]]:
    """The SSA slots an op with these 'off' slots has operands for, and their widths in
    dwords; per (mnemonic, offs), so bounded by the table."""
    key = (inf.inst.mnemonic, offs)
    r = _PRESENT.get(key)
    if r is None:
        off_set = set(offs)
        present = tuple(s for i, s in enumerate(inf.ssa_slots) if i not in off_set)
        saddr_on = any(s.name == "saddr" for s in present)
        r = _PRESENT[key] = (present, tuple(isa_info.slot_dwords(inf, s, saddr_on) for s in present))
    return r


def _f8f6f4_widths(m: str, present, widths: tuple[int, ...], modifiers: dict) -> tuple[int, ...]:
    """A gfx950 ``*_f8f6f4`` MFMA's A and B are as wide as their formats (cbsz for src0, blgp
    for src1: ``gcnforge.isa.mfma.F8F6F4_DWORDS``); the table lists the FP8 width."""
    from gcnforge.isa.mfma import F8F6F4_DWORDS

    out = list(widths)
    for i, s in enumerate(present):
        mod = {"src0": "cbsz", "src1": "blgp"}.get(s.name)
        if mod is None:
            continue
        fmt = modifiers.get(mod, 0)
        if fmt not in F8F6F4_DWORDS:
            raise VerifyException(f"{m}: {mod} = {fmt} is not an f8f6f4 format (0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4)")
        out[i] = F8F6F4_DWORDS[fmt]
    return tuple(out)


def _files_text(slot: isa_info.Slot) -> str:
    names = {"v": "a VGPR", "s": "an SGPR", "a": "an AGPR"}
    parts = [names[f] for f in slot.files if f in names]
    if slot.specials:
        parts.append("a special register")
    if slot.const:
        parts.append("a constant")
    w = slot.operand.dwords
    text = " or ".join(parts) if parts else "nothing"
    return f"{text} ({w} dword{'s' if w > 1 else ''})"


def _family_op(name: str, family: str, doc: str) -> type[InstOp]:
    def parse(cls, parser: Parser):
        return parse_inst(cls, parser)

    def print_(self, printer: Printer) -> None:
        print_inst(self, printer)

    cls = type(
        f"{family.capitalize()}Op",
        (InstOp,),
        {
            "__doc__": doc,
            "name": name,
            "FAMILY": family,
            "__annotations__": {"FAMILY": ClassVar[str]},
            "parse": classmethod(parse),
            "print": print_,
            "__module__": __name__,
        },
    )
    cls = irdl_op_definition(cls)
    # ``args``/``outs`` are each the op's only variadic group, i.e. all operands / results.
    # xDSL's IRDL accessors re-slice them on every access (the passes read them for every op,
    # several times); these return the same tuples directly. Read-only, as the accessors are.
    cls.args = property(_all_operands, doc="All operands (the one variadic operand group).")  # type: ignore[assignment]
    cls.outs = property(_all_results, doc="All results (the one variadic result group).")  # type: ignore[assignment]
    return cls


def _all_operands(op: Operation):
    return op._operands  # noqa: SLF001  (xDSL 0.74: the SSAValues tuple ``operands`` views)


def _all_results(op: Operation):
    return op.results


_FAMILY_DOCS = {
    "vop1": "VOP1 (and its DPP/SDWA forms): one source, one VGPR destination.",
    "vop2": "VOP2 (and DPP/SDWA): src0 any source, vsrc1 a VGPR.",
    "vop3": "VOP3A/VOP3B: three-operand VALU, promoted VOP1/VOP2/VOPC (_e64), abs/neg/clamp/omod.",
    "vop3p": "VOP3P: packed math with op_sel/op_sel_hi/neg_lo/neg_hi; also v_accvgpr_*.",
    "vopc": "VOPC: vector compares writing vcc (e32) (and DPP/SDWA forms).",
    "mfma": "MFMA (VOP3P-MAI): matrix fused multiply-add with cbsz/abid/blgp.",
    "sop1": "SOP1: scalar one-source ops.",
    "sop2": "SOP2: scalar two-source ops.",
    "sopk": "SOPK: scalar ops with a 16-bit immediate.",
    "sopc": "SOPC: scalar compares writing scc.",
    "sopp": "SOPP: scalar program-control ops without a branch target (s_nop, s_waitcnt, ...).",
    "smem": "SMEM: scalar memory loads/stores; yields a memory token.",
    "ds": "DS: LDS/GDS operations; yields a memory token.",
    "flat": "FLAT: flat-address memory; yields a memory token.",
    "global": "GLOBAL: global-segment memory (saddr or off); yields a memory token.",
    "scratch": "SCRATCH: private-segment memory; yields a memory token.",
    "mubuf": "MUBUF: buffer memory through a resource descriptor; yields a memory token.",
    "mtbuf": "MTBUF: typed buffer memory; yields a memory token.",
}

FAMILY_OPS: dict[str, type[InstOp]] = {
    fam: _family_op(f"amdgcn.{fam}", fam, doc) for fam, doc in _FAMILY_DOCS.items()
}
globals().update({cls.__name__: cls for cls in FAMILY_OPS.values()})

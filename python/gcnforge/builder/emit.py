"""Instruction methods of the builders: ``k.<mnemonic>(...)`` from the ISA table.

``InstructionEmitter`` resolves a name to table records (an exact mnemonic, or every
encoding of a base name, compact encodings first; DPP/SDWA only when their modifiers are
given), binds Python operands to the instruction's slots (destination-passing or fresh
destinations, constants, ``off``), verifies the op, and on failure tries the next encoding;
what is reported is located at the author's Python line (``user_location``).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, i32, i64
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from gcnforge.builder import modifiers, where
from gcnforge.builder.values import unwrap
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.dialect import isa_info
from gcnforge.dialect.inst_ops import FAMILY_OPS, InstOp
from gcnforge.dialect.structure_ops import AllocaOp
from gcnforge.dialect.types import REGISTER_TYPES
from gcnforge.isa import scaled_mfma, table

# gfx940+ renamed the cache-policy bits (ISA guide 9.1.10): glc -> sc0, slc -> sc1.
_MOD_ALIASES = {"glc": "sc0", "slc": "sc1"}
_DPP_MODS = frozenset({"dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl"})
_SDWA_MODS = frozenset({"dst_sel", "dst_unused", "src0_sel", "src1_sel", "sext0", "sext1"})
# Preference among encodings of one base name (compact first).
_ENC_RANK = {"VOP1": 0, "VOP2": 0, "VOPC": 0, "VOP3A": 1, "VOP3B": 1, "VOP3P": 1, "VOP3P_MAI": 1}
_FLOAT_TYPES = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "f64": Float64Type()}


def user_location() -> SourceLoc:
    """The innermost stack frame outside gcnforge and the standard library: the author's
    ``file:line:col`` (``gcnforge.builder.where``)."""
    return where.user_location(3)


_LOCS: dict[tuple[str, int, int], object] = {}  # (file, line, col) -> its FileLineColLoc (an immutable attribute)


def stamp(op):
    """Give ``op`` the author's Python line as its location (``Operation.location``, as
    parsed ops get their text's), so pass diagnostics point at the kernel's source."""
    from xdsl.dialects.builtin import FileLineColLoc

    from gcnforge.dialect.source import make_loc

    if not isinstance(op.location, FileLineColLoc):
        f = where.user_frame(2)
        key = ("<unknown>", 0, 1) if f is None else where.frame_place(f)
        loc = _LOCS.get(key)
        if loc is None:
            if len(_LOCS) >= 1 << 16:
                _LOCS.clear()
            loc = _LOCS[key] = make_loc(*key)
        op.location = loc
    return op


def _is_result(v: SSAValue) -> bool:
    """A register value some instruction defined (its SSA result), as opposed to storage
    (``amdgcn.alloca``) or an argument: writing it as a destination would be a second
    definition, which the allocator does not see (the instruction would write one register
    and its result be placed in another)."""
    from xdsl.ir import OpResult

    from gcnforge.dialect.types import RegisterType

    return (isinstance(v, OpResult) and isinstance(v.type, RegisterType) and v.type.is_value
            and not isinstance(v.op, AllocaOp))


def _fail(msg: str) -> Diagnostic:
    return Diagnostic(msg, user_location())


def _const_name(v: int | float) -> str:
    if isinstance(v, float):
        return "cf" + (f"{v:g}".replace("-", "m").replace(".", "_").replace("+", ""))
    return f"c{v}" if v >= 0 else f"cm{-v}"


def _unknown(name: str, target: str) -> str:
    if isa_info.targets_with(name):  # another target's instruction
        return isa_info.unknown_message(name, target)
    return f"'{name}' is not an instruction of the {target} ISA table"


class _Mismatch(Exception):
    """Operands do not fit one encoding (try the next, else report)."""


class InstructionEmitter:
    """Mixin of ``Builder``: every ISA-table instruction as a method."""

    # -- instructions -----------------------------------------------------------------------
    target: str = table.TARGET  # the instruction table the builder reads (its module's target)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        t = self.target
        if table.by_mnemonic(name, t) is None and not table.variants(name, t) and scaled_mfma.record(name, t) is None:
            raise AttributeError(_unknown(name, t))

        def emit(*operands, **mods):
            return self.inst(name, *operands, **mods)

        emit.__name__ = name
        return emit

    def inst(self, name: str, *operands, **mods):
        """Build instruction ``name`` (exact mnemonic or base name); see the module doc."""
        t = self.target
        if t == table._ACTIVE.get():  # noqa: SLF001  (once per instruction built)
            return self._inst(name, operands, mods)
        with table.use_target(t):  # the module's table, for the op's construction and checks
            return self._inst(name, operands, mods)

    def _inst(self, name: str, operands: tuple, mods: dict):
        exact = table.by_mnemonic(name) or scaled_mfma.record(name)
        candidates = [exact] if exact is not None else sorted(
            table.variants(name), key=lambda i: _ENC_RANK.get(i.encoding, 2)
        )
        if not candidates:
            raise _fail(_unknown(name, table.active_target()))
        mods = {_MOD_ALIASES.get(k, k) if k not in self._all_mods(candidates) else k: v for k, v in mods.items()}
        try:
            if (ctrl := modifiers.dpp_ctrl(mods)) is not None:
                mods["dpp_ctrl"] = ctrl
                mods.setdefault("row_mask", 0xF)
                mods.setdefault("bank_mask", 0xF)
            if name == "s_waitcnt" and mods.keys() & modifiers.WAITCNT_MAX.keys():
                operands = (*operands, modifiers.waitcnt(**{k: mods.pop(k) for k in list(mods) if k in modifiers.WAITCNT_MAX}))
        except Diagnostic as d:
            raise _fail(f"{name}: {d.message}") from None
        errors = []
        for inst in candidates:
            if exact is None:
                enc = inst.encoding
                if enc.endswith("_DPP") != bool(_DPP_MODS & mods.keys()):
                    continue
                if enc.endswith("_SDWA") != bool(_SDWA_MODS & mods.keys() - {"src0_sel", "src1_sel"} or
                                                 {"src0_sel", "src1_sel"} & mods.keys()):
                    continue
            try:
                return self._emit(inst.mnemonic, operands, dict(mods))
            except _Mismatch as e:
                errors.append(f"{inst.mnemonic}: {e}")
        if len(errors) == 1:
            raise _fail(errors[0])
        raise _fail(f"no encoding of '{name}' accepts these operands:\n  " + "\n  ".join(errors or ["(none tried)"]))

    @staticmethod
    def _all_mods(cands) -> set[str]:
        return {m for i in cands for m in i.modifiers}

    def _operand_value(self, v, slot: isa_info.Slot | None) -> SSAValue:
        v = unwrap(v)
        if isinstance(v, SSAValue):
            return v
        if isinstance(v, bool):
            raise _Mismatch(f"operand {slot.name if slot else ''}: a bool is not an operand")
        if isinstance(v, int | float):
            optype = slot.operand.optype if slot is not None else ""
            if slot is not None and not (slot.const or slot.any_int):
                raise _Mismatch(f"operand {slot.name} takes a register, not the constant {v}")
            if isinstance(v, float):
                t = _FLOAT_TYPES.get(optype[-3:] if optype[-3:] in _FLOAT_TYPES else "f32", Float32Type())
                if optype in ("f16", "v2f16"):
                    t = _FLOAT_TYPES["f16"]
                elif optype == "f64":
                    t = _FLOAT_TYPES["f64"]
                return self.constant(v, t)
            t = i64 if optype in ("i64", "b64", "u64") and not -(1 << 31) <= v < (1 << 32) else i32
            try:
                return self.constant(v, t)
            except Diagnostic as d:
                raise _Mismatch(d.message) from None
        raise _Mismatch(f"cannot use {v!r} as an operand")

    def _emit(self, mnemonic: str, operands: Sequence, mods: dict):
        inf = isa_info.info(mnemonic)
        assert inf is not None
        if inf.family == "branch":
            raise _Mismatch("branches are built with k.branch(mnemonic, target[, fallthrough])")
        imm_names = {s.name for s in inf.imm_slots}
        imm_kw = {k: mods.pop(k) for k in list(mods) if k in imm_names and k not in inf.inst.modifiers}
        unknown = [k for k in mods if k not in inf.inst.modifiers]
        if unknown:
            raise _Mismatch(
                f"unknown modifier(s) {', '.join(unknown)} (accepted: {', '.join(inf.inst.modifiers) or 'none'})"
            )
        ssa = inf.ssa_slots
        uses_ix = [i for i, s in enumerate(ssa) if not s.is_def or s.operand.role == "defuse"]
        uses = [ssa[i] for i in uses_ix]
        pos_imms = [s for s in inf.imm_slots if s.name not in imm_kw]
        n = len(operands)
        if n in (len(ssa) + len(pos_imms), len(ssa)) and (len(ssa) != len(uses) or n == len(ssa) + len(pos_imms)):
            given_ix, fresh = range(len(ssa)), False
        elif n in (len(uses) + len(pos_imms), len(uses)):
            given_ix, fresh = uses_ix, True
        else:
            want = f"{len(uses)} source(s) ({', '.join(s.name for s in uses) or 'none'})"
            if len(ssa) != len(uses):
                want += f" or {len(ssa)} with destinations ({', '.join(s.name for s in ssa)})"
            if pos_imms:
                want += f", then immediate(s) {', '.join(s.name for s in pos_imms)}"
            raise _Mismatch(f"expects {want}; got {n} operand(s)")
        reg_ops, imm_ops = operands[: len(given_ix)], operands[len(given_ix):]
        bound: dict[int, object] = dict(zip(given_ix, reg_ops, strict=True))  # slot position -> operand
        args: list[SSAValue] = []
        offs: list[int] = []
        for i, s in enumerate(ssa):
            if i in bound:
                v = bound[i]
                if v is None or (isinstance(v, str) and v == "off"):
                    if not s.may_be_off:
                        raise _Mismatch(f"operand {s.name} cannot be off")
                    offs.append(i)
                    continue
                val = self._operand_value(v, s)
                # a buffer atomic's vdata is written back only in its returning form (sc0, GLC
                # on gfx942); without it the value is only the atomic's data, a plain source
                returns = not (mnemonic.startswith("buffer_atomic") and s.operand.role == "defuse"
                               and not mods.get("sc0"))
                if s.is_def and returns and _is_result(val):
                    raise _Mismatch(
                        f"destination {s.name} is a value an instruction produced, not storage: an SSA value cannot "
                        "be written again (" + ("it accumulates into its destination: hold the accumulator in "
                                                "storage from k.vgpr(), or use the three-source form"
                                                if s.operand.role == "defuse" else
                                                "give only the sources for a fresh result, or storage from "
                                                "k.vgpr()/k.sgpr() to choose the register") + ")")
                args.append(val)
            elif s.operand.optional and not mods.get("sc0"):
                offs.append(i)  # an atomic without sc0 returns nothing: no vdst (write token only)
            else:  # fresh destination
                args.append(self._fresh(s))
        imms: list[int] = []
        it = iter(imm_ops)
        for s in inf.imm_slots:
            if s.name in imm_kw:
                v = imm_kw[s.name]
            else:
                v = next(it, 0)
            if isinstance(v, float):
                v = struct.unpack("<I", struct.pack("<f", v))[0]
            if not isinstance(v, int) or isinstance(v, bool):
                raise _Mismatch(f"immediate {s.name} must be an integer, got {v!r}")
            imms.append(v)
        cls = FAMILY_OPS[inf.family]
        op = cls(mnemonic, args, imms=imms, off=offs, mods=mods)
        self.block.add_op(stamp(op))
        try:
            # the instruction rules only: the op was built by InstOp.__init__, so xDSL's generic
            # IRDL checks (operand/attribute shapes) hold by construction (Module.verify runs both)
            # (the builder's table is active here: ``inst`` made the module's target active,
            # so the op's own walk up to its module for the target is not needed)
            InstOp._verify_inst(op)
        except VerifyException as e:
            op.detach()
            raise _Mismatch(str(e).removeprefix(f"{mnemonic}: ")) from None
        return self._results(op)

    def _fresh(self, s: isa_info.Slot) -> SSAValue:
        """Destination operand for a fresh definition: a value-typed placeholder
        ``amdgcn.alloca : !amdgcn.vgpr`` (one per register file and width, at the top of
        the entry block). A value-typed destination names no storage, so sharing it is
        sound: each instruction's result is a new SSA value; the allocator places it."""
        t = REGISTER_TYPES[s.files[0] if s.files else "v"].value(s.operand.dwords)
        key = ("dst", t)
        if (v := self._consts.get(key)) is None:
            op = AllocaOp(t)
            op.result.name_hint = f"dst_{t.FILE}" + (str(t.width) if t.width > 1 else "")
            self._insert_at_top(op)
            v = self._consts[key] = op.result
        return v

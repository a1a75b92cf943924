"""The authoring API: build ``amdgcn`` IR from Python.

::

    from gcnforge.builder import Module, Arg

    m = Module("demo")
    with m.kernel("scale", args=[Arg.ptr("x")], workgroup_size=(64, 1, 1)) as k:
        x = k.arg(0)                           # SGPR pair holding the pointer
        off = k.v_lshlrev_b32(2, k.thread_id())  # fresh VGPR = tid << 2
        v, t = k.global_load_dword(off, x)       # value + read token
        k.wait(t)
        k.global_store_dword(off, k.v_add_f32(1.0, v), x)
        k.s_endpgm()
    print(m)

Every instruction of the ISA table is a method, resolved by name when called (never listed
here): an exact LLVM mnemonic (``v_add_f32_e64``) or a base name (``v_add_f32``), for
which the first encoding that accepts the operands and modifiers is chosen (VOP1/VOP2/VOPC
``_e32`` before ``_e64``; DPP / SDWA only when their modifiers are given). Operands:

* positional, in the ISA's order: either *all* register operands including destinations
  (destination-passing: ``k.v_add_f32(dst, a, b)``) or only the sources, in which case
  fresh destination values are made (``k.v_add_f32(a, b)``); immediates (``simm16``,
  ``imm``...) follow, or are given by keyword with the table's operand name;
* Python ``int`` / ``float`` become ``arith.constant`` values (inline constants or
  literals, checked); ``None`` / ``"off"`` is an ``off`` operand (``saddr`` of global ops);
* keywords are modifiers: ``clamp=True``, ``offset=16``, ``sc0=True`` (``glc=True`` and
  ``slc=True`` are accepted as gfx942's ``sc0`` / ``sc1``), ``cbsz=1``, DPP as
  ``dpp_ctrl=...`` or LLVM's spellings ``row_shr=1``, ``quad_perm=[1, 0, 3, 2]``, ...
  (``row_mask`` / ``bank_mask`` default to 0xf), ``s_waitcnt(vmcnt=0, lgkmcnt=0)``
  (see ``gcnforge.builder.modifiers``).

Results: one value per destination, then the memory token for memory instructions; a single
result is returned bare, several as a tuple. Each op is verified as it is built; a problem
raises ``gcnforge.diagnostics.Diagnostic`` located at the user's Python line.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerType,
    i32,
    i64,
)
from xdsl.dialects.builtin import ModuleOp as BuiltinModule
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.dialect import isa_info
from gcnforge.dialect.attrs import FloatModeAttr
from gcnforge.dialect.inst_ops import FAMILY_OPS, InstOp
from gcnforge.dialect.structure_ops import (
    AllocaOp,
    BlockIdOp,
    BranchOp,
    CallOp,
    EndOp,
    FuncOp,
    KernelOp,
    LdsAllocOp,
    LoadArgOp,
    MakeRangeOp,
    ModuleOp,
    ReturnOp,
    SplitRangeOp,
    ThreadIdOp,
    WaitOp,
)
from gcnforge.dialect.types import (
    REGISTER_TYPES,
    UNALLOCATED,
    VALUE,
    ReadTokenType,
    RegisterType,
    SGPRType,
    SpecialRegType,
    WriteTokenType,
)
from gcnforge.isa import table
from gcnforge.builder import modifiers
from gcnforge.builder.values import Arg, Reg, Token, Value, unwrap

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# gfx940+ renamed the cache-policy bits (ISA guide 9.1.10): glc -> sc0, slc -> sc1.
_MOD_ALIASES = {"glc": "sc0", "slc": "sc1"}
_DPP_MODS = frozenset({"dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl"})
_SDWA_MODS = frozenset({"dst_sel", "dst_unused", "src0_sel", "src1_sel", "sext0", "sext1"})
# Preference among encodings of one base name (compact first).
_ENC_RANK = {"VOP1": 0, "VOP2": 0, "VOPC": 0, "VOP3A": 1, "VOP3B": 1, "VOP3P": 1, "VOP3P_MAI": 1}
_FLOAT_TYPES = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "f64": Float64Type()}


def user_location() -> SourceLoc:
    """The innermost stack frame outside the gcnforge package: the author's line."""
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PKG_DIR):
        f = f.f_back  # type: ignore[assignment]
    if f is None:
        return SourceLoc("<unknown>", 0)
    return SourceLoc(f.f_code.co_filename, f.f_lineno)


def _fail(msg: str) -> Diagnostic:
    return Diagnostic(msg, user_location())


class Builder:
    """Inserts ops at the end of a current block; shared by kernels and functions."""

    def __init__(self, module: Module, region_op: Operation):
        self.module = module
        self.op = region_op
        self.block: Block = region_op.regions[0].blocks[0]
        self.entry: Block = self.block
        self._consts: dict[tuple, SSAValue] = {}
        self._const_anchor: Operation | None = None

    # -- plumbing -----------------------------------------------------------------------
    def insert(self, op: Operation) -> Operation:
        self.block.add_op(op)
        try:
            op.verify_()  # the op's own rules; block structure is checked by Module.verify
        except VerifyException as e:
            op.detach()
            raise _fail(str(e)) from None
        return op

    def constant(self, value: int | float, type: Attribute | None = None) -> SSAValue:
        """An ``arith.constant`` in the entry block (shared per value and type)."""
        if type is None:
            type = Float32Type() if isinstance(value, float) else i32
        key = (value, type, isinstance(value, float))
        if key in self._consts:
            return self._consts[key]
        if isinstance(type, IntegerType):
            if not isinstance(value, int):
                raise _fail(f"constant {value!r} is not an integer for type {type}")
            bits = type.width.data
            if not -(1 << (bits - 1)) <= value < (1 << bits):
                raise _fail(f"constant {value} does not fit in {type}")
            op = arith.ConstantOp.from_int_and_width(value, type)
        else:
            op = arith.ConstantOp(FloatAttr(float(value), type))  # type: ignore[arg-type]
        op.result.name_hint = _const_name(value)
        self._insert_at_top(op)
        self._consts[key] = op.result
        return op.result

    def _insert_at_top(self, op: Operation) -> None:
        """Constants and destination placeholders go first in the entry block, in
        creation order, so they dominate every use."""
        if self._const_anchor is None or self._const_anchor.parent is not self.entry:
            first = self.entry.first_op
            if first is None:
                self.entry.add_op(op)
            else:
                self.entry.insert_op_before(op, first)
        else:
            self.entry.insert_op_after(op, self._const_anchor)
        self._const_anchor = op

    def _wrap(self, v: SSAValue) -> Value:
        t = v.type
        if isinstance(t, ReadTokenType | WriteTokenType):
            return Token(v, self)
        if isinstance(t, RegisterType | SpecialRegType):
            return Reg(v, self)
        return Value(v, self)

    # -- registers --------------------------------------------------------------------------
    def alloca(self, file: str, index: int | None = None, count: int = 1, align: int | None = None) -> Reg:
        """Storage for ``count`` registers of ``file`` ('v', 's', 'a'), pinned at ``index``
        (or left for the allocator when ``index`` is None)."""
        cls = REGISTER_TYPES.get(file)
        if cls is None:
            raise _fail(f"unknown register file '{file}' (expected 'v', 's' or 'a')")
        begin = UNALLOCATED if index is None else index
        if (msg := cls.problem_of(begin, count, align)) is not None:
            raise _fail(msg)
        t = cls._make(begin, count, align)
        return Reg(self.insert(AllocaOp(t)).result, self)  # type: ignore[attr-defined]

    def vgpr(self, index: int | None = None, count: int = 1) -> Reg:
        return self.alloca("v", index, count)

    def sgpr(self, index: int | None = None, count: int = 1) -> Reg:
        return self.alloca("s", index, count)

    def agpr(self, index: int | None = None, count: int = 1) -> Reg:
        return self.alloca("a", index, count)

    def special(self, name: str) -> Reg:
        """A special register as an operand/destination: ``k.special("vcc")``."""
        from gcnforge.dialect.types import SPECIAL_WIDTH

        if name not in SPECIAL_WIDTH:
            raise _fail(f"unknown special register '{name}' (expected one of {', '.join(SPECIAL_WIDTH)})")
        return Reg(self.insert(AllocaOp(SpecialRegType.get(name))).result, self)  # type: ignore[attr-defined]

    def concat(self, *parts: Reg) -> Reg:
        """``amdgcn.make_range`` of consecutive parts of one register file."""
        if not parts:
            raise _fail("concat needs at least one register")
        vals = [p.value for p in parts]
        t0 = vals[0].type
        if not isinstance(t0, RegisterType):
            raise _fail(f"concat takes registers, got {t0}")
        total = sum(getattr(v.type, "width", 0) for v in vals)
        begin = t0.begin.data
        if begin >= 0:
            rt = t0.with_count(total, begin)
        else:
            rt = t0.with_count(total, VALUE if begin == VALUE else UNALLOCATED)
        return Reg(self.insert(MakeRangeOp(vals, rt)).result, self)  # type: ignore[attr-defined]

    def split(self, r: Reg, *sizes: int) -> list[Reg]:
        t = r.type
        if not isinstance(t, RegisterType):
            raise _fail(f"only register ranges can be split, not {t}")
        sizes = sizes or (1,) * t.width
        if sum(sizes) != t.width:
            raise _fail(f"split sizes {list(sizes)} do not add up to the {t.width} dwords of {t}")
        types, at = [], t.begin.data
        for n in sizes:
            b = at if at >= 0 else t.begin.data
            types.append(t.with_count(n, b))
            if at >= 0:
                at += n
        op = self.insert(SplitRangeOp(r.value, types))
        return [Reg(v, self) for v in op.results]

    def slice(self, r: Reg, key: int | slice) -> Reg:
        n = r.width
        if isinstance(key, int):
            if not -n <= key < n:
                raise _fail(f"register index {key} out of range for a {n}-dword range")
            key = slice(key % n, key % n + 1)
        start, stop, step = key.indices(n)
        if step != 1 or stop <= start:
            raise _fail(f"register slices must be non-empty and contiguous, got [{key.start}:{key.stop}]")
        sizes = [x for x in (start, stop - start, n - stop) if x]
        parts = self.split(r, *sizes)
        return parts[1] if start else parts[0]

    # -- memory and control ----------------------------------------------------------------
    def wait(self, *tokens: Token) -> None:
        vals = [unwrap(t) for t in tokens]
        for v in vals:
            if not isinstance(v, SSAValue) or not isinstance(v.type, ReadTokenType | WriteTokenType):
                raise _fail(f"wait takes memory tokens, got {v!r}")
        self.insert(WaitOp(*vals))  # type: ignore[arg-type]

    def new_block(self) -> Block:
        b = Block()
        self.op.regions[0].add_block(b)
        return b

    def set_block(self, b: Block) -> None:
        self.block = b

    def branch(self, mnemonic: str, target: Block, fallthrough: Block | None = None) -> None:
        dests = [target] if fallthrough is None else [target, fallthrough]
        self.insert(BranchOp(mnemonic, *dests))

    def call(self, func: FuncOp | str, *args: Value | int | float) -> Value | tuple[Value, ...] | None:
        f = self.module.funcs.get(func) if isinstance(func, str) else func
        if f is None:
            raise _fail(f"no amdgcn.func named '{func}' in module {self.module.name}")
        ft = f.function_type
        vals = [self._operand_value(a, None) for a in args]
        op = self.insert(CallOp(f.sym_name.data, vals, ft.outputs.data))
        return self._results(op)

    def _results(self, op: Operation):
        outs = [self._wrap(v) for v in op.results]
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    # -- instructions -----------------------------------------------------------------------
    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        if table.by_mnemonic(name) is None and not table.variants(name):
            raise AttributeError(f"'{name}' is not an instruction of the gfx942 ISA table")

        def emit(*operands, **mods):
            return self.inst(name, *operands, **mods)

        emit.__name__ = name
        return emit

    def inst(self, name: str, *operands, **mods):
        """Build instruction ``name`` (exact mnemonic or base name); see the module doc."""
        exact = table.by_mnemonic(name)
        candidates = [exact] if exact is not None else sorted(
            table.variants(name), key=lambda i: _ENC_RANK.get(i.encoding, 2)
        )
        if not candidates:
            raise _fail(f"'{name}' is not an instruction of the gfx942 ISA table")
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
        uses = [s for s in ssa if not s.is_def or s.operand.role == "defuse"]
        pos_imms = [s for s in inf.imm_slots if s.name not in imm_kw]
        n = len(operands)
        if n in (len(ssa) + len(pos_imms), len(ssa)) and (len(ssa) != len(uses) or n == len(ssa) + len(pos_imms)):
            given_slots, fresh = list(ssa), False
        elif n in (len(uses) + len(pos_imms), len(uses)):
            given_slots, fresh = uses, True
        else:
            want = f"{len(uses)} source(s) ({', '.join(s.name for s in uses) or 'none'})"
            if len(ssa) != len(uses):
                want += f" or {len(ssa)} with destinations ({', '.join(s.name for s in ssa)})"
            if pos_imms:
                want += f", then immediate(s) {', '.join(s.name for s in pos_imms)}"
            raise _Mismatch(f"expects {want}; got {n} operand(s)")
        reg_ops, imm_ops = operands[: len(given_slots)], operands[len(given_slots):]
        bound: dict[int, object] = {}
        for s, v in zip(given_slots, reg_ops, strict=True):
            bound[ssa.index(s)] = v
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
                args.append(self._operand_value(v, s))
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
                import struct

                v = struct.unpack("<I", struct.pack("<f", v))[0]
            if not isinstance(v, int) or isinstance(v, bool):
                raise _Mismatch(f"immediate {s.name} must be an integer, got {v!r}")
            imms.append(v)
        cls = FAMILY_OPS[inf.family]
        op = cls(mnemonic, args, imms=imms, off=offs, mods=mods)
        self.block.add_op(op)
        try:
            op.verify_()
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


def _const_name(v: int | float) -> str:
    if isinstance(v, float):
        return "cf" + (f"{v:g}".replace("-", "m").replace(".", "_").replace("+", ""))
    return f"c{v}" if v >= 0 else f"cm{-v}"


class _Mismatch(Exception):
    """Operands do not fit one encoding (try the next, else report)."""


class KernelBuilder(Builder):
    def arg(self, index: int) -> Reg:
        """Kernel argument ``index`` in SGPRs (``amdgcn.load_arg``)."""
        kargs = self.op.kernel_args  # type: ignore[attr-defined]
        if not 0 <= index < len(kargs):
            raise _fail(f"kernel has {len(kargs)} argument(s); no argument {index}")
        n = (kargs[index].size.data + 3) // 4
        op = LoadArgOp(index, SGPRType.value(n))
        if (nm := kargs[index].arg_name.data) and nm.isidentifier():
            op.result.name_hint = nm
        return Reg(self.insert(op).result, self)  # type: ignore[attr-defined]

    def args(self) -> list[Reg]:
        return [self.arg(i) for i in range(len(self.op.kernel_args))]  # type: ignore[attr-defined]

    def thread_id(self, dim: str = "x") -> Reg:
        op = ThreadIdOp(dim)
        op.result.name_hint = f"tid_{dim}"
        return Reg(self.insert(op).result, self)  # type: ignore[attr-defined]

    def block_id(self, dim: str = "x") -> Reg:
        op = BlockIdOp(dim)
        op.result.name_hint = f"bid_{dim}"
        return Reg(self.insert(op).result, self)  # type: ignore[attr-defined]

    def lds(self, size: int, align: int = 16) -> Value:
        return Value(self.insert(LdsAllocOp(size, align)).result, self)  # type: ignore[attr-defined]

    def s_endpgm(self) -> None:
        self.insert(EndOp())

    end = s_endpgm


class FuncBuilder(Builder):
    @property
    def params(self) -> list[Reg]:
        return [Reg(a, self) for a in self.entry.args]

    def ret(self, *values: Value) -> None:
        self.insert(ReturnOp(*[unwrap(v) for v in values]))  # type: ignore[misc]


class Module:
    """An ``amdgcn.module`` under construction (wrapped in a ``builtin.module``)."""

    def __init__(self, name: str = "module", target: str = "gfx942"):
        self.name = name
        self.op = ModuleOp(name, target=target)
        self.top = BuiltinModule([self.op])
        self.funcs: dict[str, FuncOp] = {}

    @contextlib.contextmanager
    def kernel(
        self,
        name: str,
        args: Sequence[Arg] = (),
        *,
        workgroup_size: Sequence[int] | None = None,
        lds_size: int | None = None,
        user_sgprs: Sequence[str] = (),
        system_sgprs: Sequence[str] = (),
        system_vgprs: Sequence[str] = (),
        float_mode: dict | None = None,
    ) -> Iterator[KernelBuilder]:
        k = KernelOp(
            name, [a.attr() for a in args], user_sgprs=user_sgprs, system_sgprs=system_sgprs,
            system_vgprs=system_vgprs, lds_size=lds_size, workgroup_size=workgroup_size,
            float_mode=FloatModeAttr.make(**float_mode) if float_mode else None,
        )
        self.op.body.block.add_op(k)
        kb = KernelBuilder(self, k)
        yield kb
        last = kb.block.last_op
        if last is None or not isinstance(last, EndOp | BranchOp):
            kb.insert(EndOp())

    @contextlib.contextmanager
    def func(self, name: str, inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> Iterator[FuncBuilder]:
        f = FuncOp(name, list(inputs), list(outputs), Region(Block(arg_types=list(inputs))))
        self.op.body.block.add_op(f)
        self.funcs[name] = f
        yield FuncBuilder(self, f)

    def verify(self) -> None:
        try:
            self.top.verify()
        except VerifyException as e:
            raise Diagnostic(str(e), f"module @{self.name}") from None

    def text(self, generic: bool = False) -> str:
        import io

        s = io.StringIO()
        Printer(stream=s, print_generic_format=generic).print_op(self.top)
        return s.getvalue() + "\n"

    def __str__(self) -> str:
        return self.text()


def kernel(args: Sequence[Arg] = (), name: str | None = None, module: str | None = None, **abi):
    """Decorator: ``@kernel(args=[...])`` on ``def f(k): ...`` returns the built ``Module``."""

    def deco(fn):
        m = Module(module or fn.__name__)
        with m.kernel(name or fn.__name__, args, **abi) as k:
            fn(k)
        return m

    return deco



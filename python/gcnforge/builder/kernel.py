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

Beyond instructions: ``k.vgpr(5)`` / ``k.sgpr(None, 2)`` / ``k.agpr(...)`` (pinned or
unallocated storage, ``amdgcn.alloca``), ``k.special("vcc")``, ``k.concat(...)``,
``r.split(2, 2)``, ``r[1]``, ``r[0:2]`` (ranges), ``k.constant(v, type)``, ``k.arg(i)`` /
``k.args()``, ``k.thread_id("x")``, ``k.block_id("x")``, ``k.lds(bytes)``, ``k.wait(*tokens)``,
``with k.loop(n, inits) as body`` (counted loops), ``with k.if_(cmp, a, b) as br`` (a
conditional with merged values), ``m.func(...)`` + ``k.call(...)``,
``k.new_block()`` / ``k.set_block(b)`` / ``k.branch("s_cbranch_scc1", taken, fallthrough)``,
``value.named("x")`` (the SSA name in the printed IR), ``@kernel(args=[...])`` decorator.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    IntegerType,
    i32,
)
from xdsl.dialects.builtin import ModuleOp as BuiltinModule
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.attrs import FloatModeAttr
from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.cond_ops import IfOp
from gcnforge.dialect.loop_ops import LoopOp, YieldOp
from gcnforge.dialect.scc_order import check_scc_order
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
from gcnforge.builder.values import Arg, Reg, Token, Value, unwrap

from gcnforge.builder.emit import InstructionEmitter, _const_name, _fail, stamp


class Builder(InstructionEmitter):
    """Inserts ops at the end of a current block; shared by kernels and functions."""

    def __init__(self, module: Module, region_op: Operation):
        self.module = module
        self.target = module.target
        self.op = region_op
        self.block: Block = region_op.regions[0].blocks[0]
        self.entry: Block = self.block
        self._consts: dict[tuple, SSAValue] = {}
        self._const_anchor: Operation | None = None

    # -- plumbing -----------------------------------------------------------------------
    def insert(self, op: Operation) -> Operation:
        self.block.add_op(stamp(op))
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
            op = ConstantOp.from_int_and_width(value, type)
        else:
            op = ConstantOp(FloatAttr(float(value), type))  # type: ignore[arg-type]
        op.result.name_hint = _const_name(value)
        self._insert_at_top(op)
        self._consts[key] = op.result
        return op.result

    def _insert_at_top(self, op: Operation) -> None:
        """Constants and destination placeholders go first in the entry block, in
        creation order, so they dominate every use."""
        stamp(op)
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

    def barrier(self, release: str = "lds") -> None:
        """``s_barrier`` with the wait pass told what the barrier releases (``isa.counters.
        BARRIER_RELEASE``): ``"lds"`` (what a bare ``k.s_barrier()`` gets by default: LDS
        operations complete first), ``"global"`` (global stores too), ``"none"`` (the author
        orders memory around it)."""
        from xdsl.dialects.builtin import StringAttr

        from gcnforge.dialect.attrs import RELEASE_ATTR
        from gcnforge.isa.counters import BARRIER_RELEASE

        if release not in BARRIER_RELEASE:
            raise _fail(f"barrier release '{release}' (expected one of {', '.join(BARRIER_RELEASE)})")
        self.s_barrier()  # type: ignore[attr-defined]
        self.block.last_op.attributes[RELEASE_ATTR] = StringAttr(release)  # type: ignore[union-attr]

    @contextlib.contextmanager
    def loop(
        self, *bounds, inits: Sequence[Value] = (), dims: Sequence[int] = (), perm: Sequence[int] | None = None
    ) -> Iterator[LoopBody]:
        """``amdgcn.loop``: a counted loop over iteration values (``gcnforge.dialect.loop_ops``).
        ``k.loop(8, [acc])``: 8 iterations (a compile-time count); ``k.loop(n)``,
        ``k.loop(lb, ub)``, ``k.loop(lb, ub, step)`` with any of them an SGPR: run-time bounds
        (``iv = lb; iv < ub; iv += step``, signed, zero trips when ``lb >= ub``), the body's
        ``body.iv`` the induction variable (an SGPR). The iteration values' initial values
        come last (a list) or as ``inits=``.

        ::

            with k.loop(8, [acc]) as body:
                (a,) = body.args
                body.next(k.v_add_f32(a, x))
            total = body.results[0]
            with k.loop(0, n, 4, [acc]) as body:       # n: an SGPR
                ...
        """
        if bounds and isinstance(bounds[-1], list | tuple):
            if inits:
                raise _fail("loop: the initial iteration values are given twice (a list and inits=)")
            bounds, inits = bounds[:-1], bounds[-1]
        vals = [unwrap(v) for v in inits]
        if not all(isinstance(v, SSAValue) for v in vals):
            raise _fail("loop iteration values must be IR values (registers)")
        op = LoopOp(self._loop_bounds(bounds), vals, dims, perm)  # type: ignore[arg-type]
        self.block.add_op(stamp(op))
        outer, self.block = self.block, op.block
        body = LoopBody(self, op)
        try:
            yield body
        finally:
            self.block = outer
        if not isinstance(op.block.last_op, YieldOp):
            if op.iter_args:
                op.detach()
                raise _fail("the loop body must end with body.next(...) giving the next iteration values")
            op.block.add_op(YieldOp())
        try:
            op.verify_()
        except VerifyException as e:
            op.detach()
            y = op.block.last_op  # a mismatch of the next values is the author's body.next(...) line
            raise (Diagnostic(str(e), y) if isinstance(y, YieldOp) and "yield" in str(e) else _fail(str(e))) from None
        body.results = [self._wrap(r) for r in op.results]

    def _loop_bounds(self, bounds: tuple) -> int | list[SSAValue]:
        """A static count (one int) or run-time ``[lb, ub, step]`` values; the author's line
        for any other arity or kind."""
        if len(bounds) == 1 and isinstance(bounds[0], int) and not isinstance(bounds[0], bool):
            return bounds[0]
        if not 1 <= len(bounds) <= 3:
            raise _fail(f"loop takes a count, (ub), (lb, ub) or (lb, ub, step) then the initial iteration values "
                        f"(a list); got {len(bounds)} bound(s)")
        lb, ub, step = ((0, *bounds, 1) if len(bounds) == 1 else (*bounds, 1) if len(bounds) == 2 else bounds)
        out = []
        for name, b in zip(("lb", "ub", "step"), (lb, ub, step), strict=True):
            if isinstance(b, int) and not isinstance(b, bool):
                if name == "step" and b <= 0:
                    raise _fail(f"loop step {b} must be positive")
                out.append(self.constant(b))
            elif isinstance(b, Value) and isinstance(b.type, SGPRType) and b.type.width == 1:
                out.append(b.value)
            else:
                raise _fail(f"loop {name} must be an int or a 32-bit SGPR value, got {b!r}")
        return out

    @contextlib.contextmanager
    def if_(self, *cond) -> Iterator[IfBranches]:
        """``amdgcn.if`` (``gcnforge.dialect.cond_ops``): the ``with`` body is the then branch,
        run when the compare holds; ``with br.else_():`` after it the else branch; values given
        to ``br.next(...)`` in both are merged into ``br.results`` (one register each).
        ``cond``: ``("s_cmp_lt_i32", a, b)`` (an ``s_cmp_*_i32/_u32`` mnemonic, then two SGPRs
        or ints) or one SGPR (taken when non-zero: ``s_cmp_lg_u32 c, 0``).

        ::

            with k.if_("s_cmp_ge_i32", n, 4) as br:   # n >= 4 (signed)
                br.next(k.v_add_f32(a, b))
            with br.else_():
                br.next(a)
            (r,) = br.results
        """
        compare, lhs, rhs = self._if_condition(cond)
        where = stamp(YieldOp())  # the author's k.if_ line, for the op built at the end of the branch
        outer, then_b = self.block, Block()
        self.block = then_b
        br = IfBranches(self)
        try:
            yield br
        finally:
            self.block = outer
        if not isinstance(then_b.last_op, YieldOp):
            then_b.add_op(YieldOp())
        types = [v.type for v in then_b.last_op.values]  # type: ignore[union-attr]
        op = IfOp(compare, lhs, rhs, types, Region(then_b), Region(Block([] if types else [YieldOp()])))
        op.location = where.location
        self.block.add_op(op)
        br._op = op
        br.results = [self._wrap(r) for r in op.results]
        if not types:
            self._verify_if(op)

    def _if_condition(self, cond: tuple) -> tuple[str, SSAValue, SSAValue]:
        from gcnforge.dialect.cond_ops import compare_mnemonics

        if len(cond) == 1:
            cond = ("s_cmp_lg_u32", cond[0], 0)
        if len(cond) != 3 or cond[0] not in compare_mnemonics():
            raise _fail(f"if_ takes an SGPR, or a compare (one of {', '.join(compare_mnemonics())}) and two values; "
                        f"got {cond!r}")
        vals = []
        for b in cond[1:]:
            if isinstance(b, int) and not isinstance(b, bool):
                vals.append(self.constant(b))
            elif isinstance(b, Value) and isinstance(b.type, SGPRType) and b.type.width == 1:
                vals.append(b.value)
            else:
                raise _fail(f"if_ compares 32-bit SGPR values or ints, got {b!r}")
        return cond[0], vals[0], vals[1]

    def _verify_if(self, op: IfOp) -> None:
        try:
            op.verify_()
        except VerifyException as e:
            op.detach()
            raise _fail(str(e)) from None

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

class LoopBody:
    """Inside ``with k.loop(...) as body``: ``body.iv`` (run-time bounds: the induction
    variable, an SGPR), ``body.indices`` (one ``i32`` per unroll
    dimension), ``body.args`` (this iteration's values), ``body.next(*values)``; after the
    ``with``, ``body.results`` (the values after the last iteration)."""

    def __init__(self, builder: Builder, op: LoopOp):
        self.op = op
        self._b = builder
        self.iv = Reg(op.iv, builder) if op.iv is not None else None  # run-time bounds: the induction SGPR
        self.indices = [Value(v, builder) for v in op.index_args]
        self.args = [builder._wrap(v) for v in op.iter_args]
        self.results: list[Value] = []

    def next(self, *values: Value) -> None:
        self._b.insert(YieldOp(*[unwrap(v) for v in values]))  # type: ignore[misc]


class IfBranches:
    """``with k.if_(...) as br``: ``br.next(*values)`` ends a branch with its merged values;
    ``with br.else_():`` (after the then branch) builds the else branch; ``br.results`` the
    merged values, one per value given to ``br.next``."""

    def __init__(self, builder: Builder):
        self._b = builder
        self._op: IfOp | None = None
        self.results: list[Value] = []

    def next(self, *values: Value) -> None:
        vals = [unwrap(v) for v in values]
        if not all(isinstance(v, SSAValue) for v in vals):
            raise _fail("br.next takes IR values (registers)")
        self._b.insert(YieldOp(*vals))  # type: ignore[arg-type]

    @contextlib.contextmanager
    def else_(self) -> Iterator[None]:
        op = self._op
        if op is None:
            raise _fail("br.else_() comes after the 'with k.if_(...)' block (the then branch)")
        b = op.else_block
        for o in list(b.ops):
            o.detach()
            o.erase()
        outer, self._b.block = self._b.block, b
        try:
            yield
        finally:
            self._b.block = outer
        if not isinstance(b.last_op, YieldOp):
            if op.res:
                raise _fail(f"the else branch must end with br.next(...) giving {len(op.res)} value(s), as the "
                            f"then branch does")
            b.add_op(YieldOp())
        y = b.last_op
        try:
            op.verify_()
        except VerifyException as e:  # a mismatch of the else values is the author's br.next(...) line
            raise (Diagnostic(str(e), y) if "else region" in str(e) else _fail(str(e))) from None


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
        return self._launch_id(ThreadIdOp, "tid", dim)

    def block_id(self, dim: str = "x") -> Reg:
        return self._launch_id(BlockIdOp, "bid", dim)

    def _launch_id(self, cls, hint: str, dim: str) -> Reg:
        """One value per kernel and dimension: each id op pins the ABI register it reads,
        so a second op for the same id would be a second pinned value at the same register
        (the allocator rejects that). Created where first asked when that is the entry
        block (so it dominates everything after), else at the top of the entry block."""
        key = (hint, dim)
        if (v := self._consts.get(key)) is None:  # type: ignore[attr-defined]
            op = cls(dim)
            op.result.name_hint = f"{hint}_{dim}"
            if self.block is self.entry:  # type: ignore[attr-defined]
                self.insert(op)  # type: ignore[attr-defined]
            else:
                self.insert(op).detach()  # type: ignore[attr-defined]  # (verifies it)
                self._insert_at_top(op)  # type: ignore[attr-defined]
            v = self._consts[key] = op.result  # type: ignore[attr-defined]
        return Reg(v, self)  # type: ignore[attr-defined]

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
    """An ``amdgcn.module`` under construction (wrapped in a ``builtin.module``).

    ``target``: the processor its kernels are for (``gfx942``, ``gfx950``; a target id such
    as ``gfx950:xnack-`` names its processor); default the active target (gfx942 unless a
    caller such as ``gcnforge compile --target`` chose another, ``isa.table.use_target``).
    Instructions are built and verified against that target's table and limits."""

    def __init__(self, name: str = "module", target: str | None = None):
        self.name = name
        self.target = _known_target(target)
        self.op = ModuleOp(name, target=self.target)
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
        target: str | None = None,
    ) -> Iterator[KernelBuilder]:
        """``target``: optional, must be the module's (one code object serves one target)."""
        if target is not None and _known_target(target) != self.target:
            raise _fail(f"kernel @{name} is for {target} but module {self.name} is for {self.target}: "
                        f"build it in a Module(target={_known_target(target)!r})")
        k = KernelOp(
            name, [a.attr() for a in args], user_sgprs=user_sgprs, system_sgprs=system_sgprs,
            system_vgprs=system_vgprs, lds_size=lds_size, workgroup_size=workgroup_size,
            float_mode=FloatModeAttr.make(**float_mode) if float_mode else None,
        )
        self.op.body.block.add_op(stamp(k))
        kb = KernelBuilder(self, k)
        yield kb
        last = kb.block.last_op
        if last is None or not isinstance(last, EndOp | BranchOp):
            kb.insert(EndOp())
        check_scc_order(k)  # at the end of the kernel, as written (dialect/scc_order.py)

    @contextlib.contextmanager
    def func(self, name: str, inputs: Sequence[Attribute | str], outputs: Sequence[Attribute | str]
             ) -> Iterator[FuncBuilder]:
        """An ``amdgcn.func``; parameter and result types as register types or spellings such as
        ``"v2"`` (two VGPRs), ``"a16"``, ``"s1"`` (see ``reg_type``)."""
        inputs, outputs = [reg_type(t) for t in inputs], [reg_type(t) for t in outputs]
        f = FuncOp(name, list(inputs), list(outputs), Region(Block(arg_types=list(inputs))))
        self.op.body.block.add_op(stamp(f))
        self.funcs[name] = f
        yield FuncBuilder(self, f)

    def verify(self) -> None:
        try:
            self.top.verify()
        except VerifyException as e:
            raise Diagnostic(str(e), self._failing_op(str(e)) or f"module @{self.name}") from None
        from gcnforge.dialect.dominance import check_dominance

        check_dominance(self.top)  # a value used outside the loop body or if branch defining it
        check_scc_order(self.top)  # an s_cselect reading the SCC of SALU arithmetic, not of its s_cmp

    def _failing_op(self, message: str) -> Operation | None:
        """The op the error is about, so it is reported at the author's line of that op: the
        one xDSL prints in the message (``Vop2Op(%0 = ...)``: a use of a value from another
        kernel), else the first op failing its own checks. Looked for only after a failure."""
        import re

        bad = None
        for op in self.top.walk():
            try:
                op.verify(verify_nested_ops=False)
            except VerifyException:
                bad = op
                break
        named = re.search(r"\b(\w+)\((%.*)\)$", message)
        if bad is not None and named is not None:
            for op in bad.walk():
                if type(op).__name__ == named.group(1) and str(op) == named.group(2):
                    return op
        return bad

    def text(self, generic: bool = False) -> str:
        import io

        s = io.StringIO()
        from xdsl.printer import Printer

        Printer(stream=s, print_generic_format=generic).print_op(self.top)
        return s.getvalue() + "\n"

    def __str__(self) -> str:
        return self.text()


def reg_type(spec: Attribute | str) -> Attribute:
    """A value-typed register range from its spelling: ``"v2"`` = two VGPRs, ``"a16"`` sixteen
    AGPRs, ``"s1"`` one SGPR (a type passes through unchanged)."""
    if not isinstance(spec, str):
        return spec
    cls = REGISTER_TYPES.get(spec[:1])
    if cls is None or not spec[1:].isdigit() or int(spec[1:]) < 1:
        raise _fail(f"register type '{spec}': expected v<N>, s<N> or a<N> (N >= 1)")
    return cls.value(int(spec[1:]))


def _known_target(target: str | None) -> str:
    """The processor of ``target`` (default: the active one); a Diagnostic at the author's
    line for one gcnforge has no table for."""
    from gcnforge.isa import table

    if target is None:
        return table.active_target()
    name = table.processor(str(target))
    if name not in table.known_targets():
        raise _fail(f"unknown target '{target}' (known: {', '.join(table.known_targets())})")
    return name


def kernel(args: Sequence[Arg] = (), name: str | None = None, module: str | None = None,
           target: str | None = None, **abi):
    """Decorator: ``@kernel(args=[...])`` on ``def f(k): ...`` returns the built ``Module``
    (for ``target``, default the active target)."""

    def deco(fn):
        m = Module(module or fn.__name__, target=target)
        with m.kernel(name or fn.__name__, args, **abi) as k:
            fn(k)
        return m

    return deco



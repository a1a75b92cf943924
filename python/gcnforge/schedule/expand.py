"""Expand an ``amdgcn.loop`` by its schedule: unrolled nest, prologue, kernel, epilogue.

Time is a sequence of *steps* (one unrolled body each); inside a step the global nest
iteration ``i`` runs over ``[0, P + max_delay)`` and ops come in body order (see
``expr``). Op instance (op, j) is emitted at ``Plan.emit_key``. Stages make steps overlap
different blocks of iterations, which is software pipelining:

* steps ``[0, S)`` (S = the largest stage) are the **prologue** (later stages have no block
  yet), emitted straight-line;
* steps ``[S, S + K*U)`` are the **kernel**, an ``amdgcn.loop`` of ``K`` iterations whose
  body is ``U`` steps, where ``U*P`` = lcm(P, every rate, P * ``kernel_unroll``) is the
  period after which the schedule repeats (the trip count is unrolled to that LCM; the
  loop attribute ``kernel_unroll = N`` asks for N bodies per kernel iteration, modulo
  variable expansion) and K counts the periods in which every stage works on a complete
  block;
* the remaining steps are the **epilogue** plus the **remainder** (blocks beyond the last
  whole period, a last partial block when ``count`` is not a multiple of P), emitted
  straight-line with the exact ``j < count`` test, so nothing is dropped or duplicated.

Values: ``canon(v, j)`` names the clone a use at iteration ``j`` reads (``("res", v, jp)``
for a body result, ``("init", k)`` for iteration value k at j = 0, the value itself for
values defined above the loop, a constant for an index). Values crossing into the kernel
become its iteration values; their next-iteration values are the same keys shifted by
one period; the loop's results give them shifted by K periods for the epilogue.

Pre: the loop verifies; schedules legal (``legality.check``). Post: the loop is replaced
by straight-line clones (and at most one plain ``amdgcn.loop`` without dims/schedules);
every clone drops its ``sched`` attribute.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.loop_ops import LoopOp, YieldOp
from gcnforge.schedule.expr import SCHED_ATTR, Plan, Sched, delinearize, make_plan, op_label, resolve_schedules

Key = tuple


class LoopSchedule:
    """A loop's body ops with their resolved schedules, plan and value naming."""

    def __init__(self, loop: LoopOp, count: int | None = None):
        """``count``: the logical iterations to plan for (a loop with run-time bounds has none:
        ``expand_runtime`` plans for a few periods, enough for the legality checks)."""
        self.loop = loop
        self.ops: list[Operation] = [op for op in loop.block.ops if not isinstance(op, YieldOp)]
        self.pos = {op: i for i, op in enumerate(self.ops)}
        self.sched: dict[Operation, Sched] = resolve_schedules(self.ops)
        ku = loop.attributes.get("kernel_unroll")
        self.plan: Plan = make_plan(loop.trip_count if count is None else count, loop.unroll_dims, loop.order, [self.sched[o] for o in self.ops],
                                    ku.value.data if isinstance(ku, IntegerAttr) else 1)
        self.nidx = len(loop.unroll_dims)
        self.first = int(loop.is_runtime)  # the induction variable comes before the indices
        self.yields = list(loop.yield_op.values)
        self._arg_cache: dict[tuple[int, int], Key] = {}
        self._block = loop.block
        self._reads: dict[Operation, list[SSAValue]] = {}

    # -- naming -------------------------------------------------------------------------------
    def canon(self, v: SSAValue, j: int) -> Key:
        """Which clone a use at logical iteration ``j`` reads."""
        chain: list[tuple[int, int]] = []
        while True:
            if isinstance(v, BlockArgument) and v.block is self._block:
                i = v.index - self.first
                if i < 0:
                    key: Key = ("iv", j)
                    break
                if i < self.nidx:
                    key = ("idx", i, j)
                    break
                k = i - self.nidx
                if (k, j) in self._arg_cache:
                    key = self._arg_cache[(k, j)]
                    break
                chain.append((k, j))
                if j == 0:
                    key = ("init", k)
                    break
                v, j = self.yields[k], j - 1
                continue
            if isinstance(v, OpResult) and v.op in self.pos:
                r = self.sched[v.op].rate
                key = ("res", v, j - j % r)
                break
            key = ("outer", v)
            break
        for c in chain:
            self._arg_cache[c] = key
        return key

    def shift(self, key: Key, by: int) -> Key:
        if key[0] == "res":
            return ("res", key[1], key[2] + by)
        if key[0] == "init":
            return self.canon(self.loop.iter_args[key[1]], by)
        return key

    def produced_at(self, key: Key) -> tuple[int, int, int] | None:
        """Emit key of the clone that defines ``key`` (None: defined before the loop)."""
        if key[0] == "res":
            op = key[1].op
            return self.plan.emit_key(self.sched[op], self.pos[op], key[2])
        return None

    def operands_of(self, op: Operation) -> list[SSAValue]:
        """Values ``op`` (and ops nested in it) read from outside ``op``."""
        if op in self._reads:
            return self._reads[op]
        out: list[SSAValue] = []
        seen: set[SSAValue] = set()
        for inner in op.walk():
            for v in inner.operands:
                if v in seen or _defined_within(v, op):
                    continue
                seen.add(v)
                out.append(v)
        self._reads[op] = out
        return out

    def instances(self, steps: range):
        """(op, j) in emission order for ``steps``."""
        p = self.plan
        width = p.nest + p.max_delay
        for tau in steps:
            for t in range(width):
                for op in self.ops:
                    s = self.sched[op]
                    b = tau - s.stage
                    jl = t - s.delay
                    if b < 0 or not 0 <= jl < p.nest:
                        continue
                    j = b * p.nest + jl
                    if p.handles(s, j):
                        yield op, j

    def index_values(self, j: int) -> tuple[int, ...]:
        p = self.plan
        return delinearize(j % p.nest, p.dims, p.order)

    def label(self, op: Operation) -> str:
        return op_label(op, self.pos.get(op))


def _defined_within(v: SSAValue, op: Operation) -> bool:
    owner = v.op if isinstance(v, OpResult) else v.block.parent_op()  # type: ignore[union-attr]
    while owner is not None:
        if owner is op:
            return True
        owner = owner.parent_op()
    return False


class _Emitter:
    """Clones op instances into a block (before ``anchor`` or at the end)."""

    def __init__(self, ls: LoopSchedule, block: Block, anchor: Operation | None,
                 miss: Callable[[Key], SSAValue]):
        self.ls = ls
        self.block = block
        self.anchor = anchor
        self.env: dict[Key, SSAValue] = {}
        self.consts: dict[int, SSAValue] = {}
        self.miss = miss
        # run-time bounds: the induction SGPR of logical iteration iv_first, and the step
        self.iv: SSAValue | None = None
        self.iv_first = 0
        self.step = 1

    def add(self, op: Operation) -> None:
        if self.anchor is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.anchor)

    def const(self, c: int) -> SSAValue:
        if c not in self.consts:
            op = ConstantOp.from_int_and_width(c, 32)
            op.result.name_hint = f"c{c}" if c >= 0 else f"cm{-c}"
            self.add(op)
            self.consts[c] = op.result
        return self.consts[c]

    def value(self, key: Key) -> SSAValue:
        if key[0] == "outer":
            return key[1]
        if key[0] == "iv":  # iv + (j - iv_first) * step, once per j
            d = key[1] - self.iv_first
            if d == 0 or key in self.env:
                return self.iv if d == 0 else self.env[key]  # type: ignore[return-value]
            self.env[key] = self.sop2("s_add_i32", self.iv, self.const(d * self.step))  # type: ignore[arg-type]
            return self.env[key]
        if key[0] == "idx":
            return self.const(self.ls.index_values(key[2])[key[1]])
        if key in self.env:
            return self.env[key]
        return self.miss(key)

    def sop2(self, mnemonic: str, a: SSAValue, b: SSAValue) -> SSAValue:
        """A fresh SGPR value ``mnemonic a, b`` (run-time bound arithmetic)."""
        from gcnforge.dialect.inst_ops import FAMILY_OPS
        from gcnforge.dialect.structure_ops import AllocaOp
        from gcnforge.dialect.types import SGPRType

        d = AllocaOp(SGPRType.value(1))
        self.add(d)
        op = FAMILY_OPS["sop2"](mnemonic, [d.result, a, b])
        self.add(op)
        return op.results[0]

    def emit(self, op: Operation, j: int) -> None:
        mapper = {v: self.value(self.ls.canon(v, j)) for v in self.ls.operands_of(op)}
        clone = op.clone(value_mapper=mapper)
        clone.attributes.pop(SCHED_ATTR, None)
        self.add(clone)
        for r, c in zip(op.results, clone.results, strict=True):
            self.env[("res", r, j)] = c


def expand_loop(loop: LoopOp, ls: LoopSchedule | None = None) -> None:
    """Replace ``loop`` by its scheduled expansion (see the module docstring)."""
    ls = ls or LoopSchedule(loop)
    p = ls.plan
    parent = loop.parent_block()
    assert parent is not None
    inits = list(loop.inits)

    def outer_miss(key: Key) -> SSAValue:
        if key[0] == "init":
            return inits[key[1]]
        raise Diagnostic(f"internal: no clone for {key[1]} at iteration {key[2]} (schedule expansion)",
                         key[1].op)

    top = _Emitter(ls, parent, loop, outer_miss)
    S = p.max_stage
    U = p.blocks_per_period
    nfull = p.count // p.nest
    K = (nfull - S) // U if nfull > S else 0
    total = p.n_blocks + S
    if K < 2:  # a loop of one period is just straight-line code
        for op, j in ls.instances(range(total)):
            top.emit(op, j)
    else:
        for op, j in ls.instances(range(S)):
            top.emit(op, j)
        _emit_kernel(ls, top, S, K)
        for op, j in ls.instances(range(S + K * U, total)):
            top.emit(op, j)
    results = [top.value(ls.canon(a, p.count)) for a in loop.iter_args]
    for r, v in zip(loop.res, results, strict=True):
        r.replace_all_uses_with(v)
    loop.detach()
    loop.erase()


def kernel_emitter(ls: LoopSchedule, top: _Emitter, body: Block, start: tuple) -> tuple[_Emitter, list[Key]]:
    """An emitter for a steady-state loop body: a value it misses (defined before the kernel,
    at a point before ``start``) becomes a new block argument, its key appended to the
    returned live-in list (the loop's initial values, in order)."""
    liveins: list[Key] = []

    def kernel_miss(key: Key) -> SSAValue:
        at = ls.produced_at(key)
        if at is not None and at >= start:
            raise Diagnostic(f"internal: kernel reads {key[1]} at iteration {key[2]} before it is defined",
                             key[1].op)
        liveins.append(key)
        arg = body.insert_arg(top.value(key).type, len(body.args))
        kern.env[key] = arg
        return arg

    kern = _Emitter(ls, body, None, kernel_miss)
    return kern, liveins


def _emit_kernel(ls: LoopSchedule, top: _Emitter, first_step: int, K: int) -> LoopOp:
    p = ls.plan
    L = p.period
    start = (first_step, -1, -1)
    body = Block()
    kern, liveins = kernel_emitter(ls, top, body, start)
    # The loop's results, canon(arg, count), are needed after the kernel: if their
    # counterpart one kernel-run earlier exists before the kernel, carry it through.
    for a in ls.loop.iter_args:
        seed = ls.canon(a, p.count - K * L)
        at = ls.produced_at(seed)
        if at is None or at < start:
            kern.value(seed)
    for op, j in ls.instances(range(first_step, first_step + p.blocks_per_period)):
        kern.emit(op, j)
    yields: list[SSAValue] = []
    i = 0
    while i < len(liveins):  # the worklist may grow: values older than one period
        yields.append(kern.value(ls.shift(liveins[i], L)))
        i += 1
    body.add_op(YieldOp(*yields))
    loop = LoopOp(K, [top.value(k) for k in liveins], body=Region(body))
    top.add(loop)
    for key, r in zip(liveins, loop.res, strict=True):
        top.env[ls.shift(key, K * L)] = r
    return loop

"""Schedule expressions: when each op of a loop body is emitted, and for which iteration.

An op of an ``amdgcn.loop`` body may carry ``sched = array<i64: delay, rate[, stage]>``.
With P = prod(dims) the size of the unroll nest, an op with (delay d, rate r, stage s)
handles logical iteration ``j`` (0 <= j < count) iff ``j mod r == 0``, and is emitted

* inside the unrolled nest at global iteration ``i = j mod P + d`` (so at ``i`` it is
  emitted iff ``i >= d`` and ``(i - d) mod r == 0``, as the issue states), and
* in unrolled body (block) number ``j div P + s``: stages shift whole unrolled bodies,
  which is software pipelining (``gcnforge.schedule.expand``).

Within one (block, i) step ops come in body order. ``emit_key`` is that total order.

The op's indices at iteration ``j`` are ``delinearize(j mod P)`` over the dims taken in the
loop order ``perm`` (outermost first). A use at iteration ``j`` of a value defined by a
body op of rate ``r`` reads that op's clone for iteration ``j - j mod r`` (the instance that
covers ``j``). Ops without a schedule inherit one from their consumers in the body: a
single consumer's, or with several the earliest (smallest (stage, delay)); ops consumed by
nothing in the body get (0, 1, 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm, prod

from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Operation

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.loop_ops import SCHED_ATTR


@dataclass(frozen=True, order=True)
class Sched:
    stage: int = 0
    delay: int = 0
    rate: int = 1

    def attr(self) -> DenseArrayBase:
        vals = [self.delay, self.rate] + ([self.stage] if self.stage else [])
        return DenseArrayBase.from_list(i64, vals)


def op_label(op: Operation, pos: int | None = None) -> str:
    """A short human name for an op in diagnostics: its result name, op name and mnemonic."""
    m = getattr(op, "mnemonic", None)
    text = op.name + (f" {m}" if isinstance(m, str) else "")
    names = [r.name_hint for r in op.results if r.name_hint]
    head = f"{', '.join('%' + n for n in names)} = " if names else ""
    where = f" (body op #{pos})" if pos is not None else ""
    return f"'{head}{text}'{where}"


MAX_SCHED_VALUE = 1 << 16


def explicit_sched(op: Operation) -> Sched | None:
    a = op.attributes.get(SCHED_ATTR)
    if a is None:
        return None
    if not isinstance(a, DenseArrayBase):
        raise Diagnostic(f"{op_label(op)}: sched must be array<i64: delay, rate[, stage]>, got {a}", op)
    v = [int(x) for x in a.get_values()]  # type: ignore[union-attr]
    if len(v) not in (2, 3):
        raise Diagnostic(f"{op_label(op)}: sched takes (delay, rate[, stage]), got {v}", op)
    d, r = v[0], v[1]
    s = v[2] if len(v) == 3 else 0
    if d < 0 or r < 1 or s < 0:
        raise Diagnostic(f"{op_label(op)}: sched needs delay >= 0, rate >= 1, stage >= 0; got {v}", op)
    if max(d, r, s) > MAX_SCHED_VALUE:  # expansion time grows with them (bounded work on any input)
        raise Diagnostic(f"{op_label(op)}: sched values must be at most {MAX_SCHED_VALUE}; got {v}", op)
    return Sched(s, d, r)


def set_sched(op: Operation, delay: int = 0, rate: int = 1, stage: int = 0) -> None:
    op.attributes[SCHED_ATTR] = Sched(stage, delay, rate).attr()


def body_ancestor(op: Operation, body_ops: set[Operation]) -> Operation | None:
    while op is not None and op not in body_ops:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def resolve_schedules(ops: list[Operation]) -> dict[Operation, Sched]:
    """Every body op's schedule, explicit or inherited from its consumers (reverse order,
    so a consumer is resolved before its producers)."""
    body = set(ops)
    out: dict[Operation, Sched] = {}
    for op in reversed(ops):
        s = explicit_sched(op)
        if s is None:
            cons = []
            for r in op.results:
                for u in r.uses:
                    c = body_ancestor(u.operation, body)
                    if c is not None and c is not op and c in out:
                        cons.append(out[c])
            s = min(cons) if cons else Sched()
        out[op] = s
    return out


def delinearize(j: int, dims: tuple[int, ...], order: tuple[int, ...]) -> tuple[int, ...]:
    """Indices (in dim order) of position ``j`` of a nest walked in ``order`` (outermost first)."""
    idx = [0] * len(dims)
    for d in reversed(order):
        idx[d] = j % dims[d]
        j //= dims[d]
    return tuple(idx)


@dataclass(frozen=True)
class Plan:
    """The numbers the expansion needs for one loop."""

    count: int  # N, logical iterations
    nest: int  # P = prod(dims)
    dims: tuple[int, ...]
    order: tuple[int, ...]
    max_delay: int
    max_stage: int
    period: int  # L = lcm(P, rates): logical iterations after which the schedule repeats

    @property
    def blocks_per_period(self) -> int:
        return self.period // self.nest

    @property
    def n_blocks(self) -> int:
        return -(-self.count // self.nest)

    def emit_key(self, s: Sched, pos: int, j: int) -> tuple[int, int, int]:
        return (j // self.nest + s.stage, j % self.nest + s.delay, pos)

    def handles(self, s: Sched, j: int) -> bool:
        return 0 <= j < self.count and j % s.rate == 0


def make_plan(count: int, dims: tuple[int, ...], order: tuple[int, ...], scheds: list[Sched],
              kernel_unroll: int = 1) -> Plan:
    """``kernel_unroll``: the pipelined kernel holds at least that many unrolled bodies
    (modulo variable expansion: a value that lives across one step can then be written in
    place by its producer instead of being copied at the back edge)."""
    p = prod(dims) if dims else 1
    period = p * max(1, kernel_unroll)
    for s in scheds:
        period = lcm(period, s.rate)
    return Plan(count, p, dims, order, max((s.delay for s in scheds), default=0),
                max((s.stage for s in scheds), default=0), period)

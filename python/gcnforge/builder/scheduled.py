"""Authoring API for scheduled loops (the schedule dialect's loops built from ``gcnforge.builder`` kernels).

A loop body is written once; its schedule is a few numbers::

    from gcnforge.builder.scheduled import sched_for

    with m.kernel("k", args) as k:
        for L in sched_for(k, count=8, dims=[2, 4], perm=[1, 0], iter=[acc0]):
            (i, j), (acc,) = L.indices, L.values
            with L.at(delay=0):                 # loads first ...
                v, t = k.global_load_dword(off, ptr)
            with L.at(delay=1), L.stage(1):    # ... their use one nest step and one stage later
                k.wait(t)
                acc = k.v_add_f32(v, acc)
            L.yield_(acc)
        (result,) = L.results

``sched_for`` yields exactly once, with the kernel builder inserting into the loop body
(so the ``for`` reads like the loop it builds); leaving it closes the body with
``amdgcn.yield`` and verifies the loop. ``L.at(delay=, rate=)`` and ``L.stage(s)`` give
every op built inside them that schedule (innermost wins; ops built outside any context
inherit from their consumers, as in the IR). Nothing is expanded here: run the
``amdgcn-schedule`` pass (``schedule_loops(m.top)``) to get the unrolled / pipelined code,
so the same loop is rescheduled by changing the numbers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Operation
from xdsl.utils.exceptions import VerifyException

from gcnforge.builder.emit import stamp, user_location
from gcnforge.builder.values import Value, unwrap
from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.loop_ops import LoopOp, YieldOp
from gcnforge.schedule.expr import SCHED_ATTR, Sched


class SchedLoop:
    """The loop being built: its indices, iteration values, schedule contexts and results."""

    def __init__(self, k, loop: LoopOp):
        self.k = k
        self.op = loop
        self.iv = _wrap(k, loop.iv) if loop.iv is not None else None  # run-time bounds: the induction SGPR
        self.indices: tuple[Value, ...] = tuple(Value(a, k).named(f"i{n}") for n, a in enumerate(loop.index_args))
        self.values: tuple[Value, ...] = tuple(_wrap(k, a) for a in loop.iter_args)
        self.results: tuple[Value, ...] = ()
        self._yield: list | None = None
        self._sched = Sched()
        self._explicit: dict[str, int] = {}

    # -- schedule contexts -------------------------------------------------------------------
    @contextlib.contextmanager
    def _context(self, **kw: int) -> Iterator[None]:
        for name, v in kw.items():
            if v is None:
                continue
            if v < (1 if name == "rate" else 0):
                raise Diagnostic(f"schedule {name} must be {'>= 1' if name == 'rate' else '>= 0'}, got {v}",
                                 user_location())
        saved = dict(self._explicit)
        self._explicit.update({n: v for n, v in kw.items() if v is not None})
        before = self.op.block.last_op
        try:
            yield
        finally:
            s = Sched(self._explicit.get("stage", 0), self._explicit.get("delay", 0), self._explicit.get("rate", 1))
            op = before.next_op if before is not None else self.op.block.first_op
            while op is not None:
                if SCHED_ATTR not in op.attributes:
                    op.attributes[SCHED_ATTR] = s.attr()
                op = op.next_op
            self._explicit = saved

    def at(self, delay: int | None = None, rate: int | None = None) -> contextlib.AbstractContextManager:
        """Ops built inside are emitted at nest iteration ``i`` iff ``i >= delay`` and
        ``(i - delay) % rate == 0``."""
        return self._context(delay=delay, rate=rate)

    def stage(self, s: int) -> contextlib.AbstractContextManager:
        """Ops built inside belong to pipeline stage ``s`` (one unrolled body later per stage)."""
        return self._context(stage=s)

    def yield_(self, *values) -> None:
        self._yield = [unwrap(v) for v in values]


def _wrap(k, v):
    """A builder handle for ``v`` (the kernel builder's own wrapping: Reg / Token / Value)."""
    w = getattr(k, "_wrap", None)
    return w(v) if w is not None else Value(v, k)


def sched_for(k, count: int | Sequence, dims: Sequence[int] = (), perm: Sequence[int] | None = None,
              iter: Sequence = (), kernel_unroll: int = 1) -> Iterator[SchedLoop]:  # noqa: A002
    """Build an ``amdgcn.loop`` in kernel builder ``k`` (see the module docstring).
    ``count``: the trip count, or run-time bounds ``(ub,)``, ``(lb, ub)``, ``(lb, ub, step)``
    (SGPRs or ints, as ``k.loop``; ``L.iv`` is the induction SGPR; the expansion handles the
    remainder at run time, ``gcnforge.schedule.expand_runtime``).
    ``kernel_unroll``: unrolled bodies per pipelined kernel iteration (see ``expand``)."""
    inits = [unwrap(v) for v in iter]
    loop = LoopOp(count if isinstance(count, int) else k._loop_bounds(tuple(count)), inits, dims, perm)
    if kernel_unroll != 1:
        if kernel_unroll < 1:
            raise Diagnostic(f"kernel_unroll must be >= 1, got {kernel_unroll}", user_location())
        loop.attributes["kernel_unroll"] = IntegerAttr(kernel_unroll, i64)
    outer: Block = k.block
    outer.add_op(stamp(loop))  # the author's sched_for line: the schedule pass's diagnostics point there
    L = SchedLoop(k, loop)
    k.block = loop.block
    try:
        yield L
    finally:
        k.block = outer
    vals = L._yield if L._yield is not None else []
    if len(vals) != len(inits):
        raise Diagnostic(f"the loop has {len(inits)} iteration value(s) but L.yield_ got {len(vals)}", user_location())
    loop.block.add_op(YieldOp(*vals))
    try:
        loop.verify_()  # the loop's own rules; its body ops were verified as they were built
    except VerifyException as e:
        raise Diagnostic(str(e), user_location()) from None
    L.results = tuple(_wrap(k, r) for r in loop.res)


def body_ops(L: SchedLoop) -> list[Operation]:
    return list(L.op.block.ops)

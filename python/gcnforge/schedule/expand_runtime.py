"""Expand a scheduled ``amdgcn.loop`` with run-time bounds (``lb``, ``ub``, ``step``).

The schedule's period (L = lcm(P, rates, P * kernel_unroll) logical iterations) is known at
compile time, the trip count is not, so the loop becomes:

* the **main loop**, itself a loop with run-time bounds: ``(lb, ub - (L-1)*step, L*step)``,
  whose body is one period's op instances in the schedule's order (unrolled nest,
  interleaving by delays; the induction value of iteration j is ``iv + j*step``); it runs the
  whole periods, zero of them when fewer than L iterations remain;
* the **remainder**, handled at run time: L-1 loops of at most one iteration each,
  ``(cur, min(cur + step, ub), step)``, the j-th holding iteration j of a period (its indices
  are constants, ``delinearize(j mod P)``) with the ops in body order; each one runs only
  while ``cur < ub``, so nothing is dropped or repeated, whatever the count (zero included).

The current value of ``cur`` crosses the main loop as an extra SGPR iteration value.
Supported: unroll dims, delays and ``kernel_unroll``; stages (software pipelining) go to
``expand_pipelined`` (a trip-count guard around prologue, kernel and epilogue); rates above 1
need the count at compile time (a located diagnostic). ``step`` must be a constant.
Pre: ``legality.check`` passed on a plan of a few periods. Post: plain loops with run-time
bounds only (``amdgcn-lower-loops`` lowers them with guarded entries).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Region, SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.loop_ops import LoopOp, YieldOp
from gcnforge.dialect.types import SGPRType
from gcnforge.schedule.expand import Key, LoopSchedule, _Emitter

PLANNED_PERIODS = 3  # periods the legality checks look at (dependences reach one period back)


def check_supported(loop: LoopOp, ls: LoopSchedule) -> int:
    """The constant step; a Diagnostic for what needs a compile-time count."""
    step = loop.bounds[2].owner
    if not (isinstance(step, ConstantOp) and isinstance(step.value, IntegerAttr)):
        raise Diagnostic("amdgcn-schedule: a scheduled loop with run-time bounds needs a constant step", loop)
    if any(ls.sched[o].rate != 1 for o in ls.ops):
        raise Diagnostic("amdgcn-schedule: rates above 1 in a loop with run-time bounds are not supported yet", loop)
    return step.value.value.data


def planned_count(loop: LoopOp) -> int:
    """The logical iterations to plan a run-time loop for (the legality checks and the
    expansion use the same plan): a few periods, and with stages enough kernel periods that
    the pipelined epilogue reads the kernel only through its results (``expand_pipelined``)."""
    plan = LoopSchedule(loop, count=1).plan
    if not plan.max_stage:
        return PLANNED_PERIODS * plan.period
    from gcnforge.schedule.expand_pipelined import planned_periods

    return plan.max_stage * plan.nest + planned_periods(loop, plan, PLANNED_PERIODS) * plan.period


def expand_runtime_loop(loop: LoopOp, ls: LoopSchedule) -> None:
    step = check_supported(loop, ls)
    if ls.plan.max_stage:
        from gcnforge.schedule.expand_pipelined import expand_pipelined_runtime

        expand_pipelined_runtime(loop, ls, step)
        return
    lb, ub, _ = loop.bounds
    top = _Emitter(ls, loop.parent_block(), loop, _no_clone)  # type: ignore[arg-type]
    L = ls.plan.period
    cur = top.sop2("s_add_i32", lb, top.const(0))  # cur = lb, an SGPR value (lb may be a constant)
    cur, values = _main_loop(loop, ls, top, cur, list(loop.inits), step)
    for j in range(L - 1):
        values = _remainder_loop(loop, ls, top, cur, values, step, j)
        cur = top.sop2("s_add_i32", cur, top.const(step))
    for r, v in zip(loop.res, values, strict=True):
        r.replace_all_uses_with(v)
    loop.detach()
    loop.erase()


def _no_clone(key: Key) -> SSAValue:
    raise Diagnostic(f"internal: no clone for {key} (run-time schedule expansion)")


def _main_loop(loop: LoopOp, ls: LoopSchedule, top: _Emitter, cur: SSAValue, values: list[SSAValue],
               step: int) -> tuple[SSAValue, list[SSAValue]]:
    """One period per iteration while a whole period remains; returns (cur, values) after it."""
    L = ls.plan.period
    _, ub, _ = loop.bounds
    last = top.sop2("s_sub_i32", ub, top.const((L - 1) * step))  # iterations cur .. cur+(L-1)*step < ub
    body = Block(arg_types=[SGPRType.value(1), cur.type, *[v.type for v in values]])
    kern = _Emitter(ls, body, None, _no_clone)
    kern.iv, kern.step = body.args[1], step
    for k in range(len(values)):
        kern.env[("init", k)] = body.args[2 + k]
    for op, j in ls.instances(range(ls.plan.blocks_per_period)):
        kern.emit(op, j)
    nxt = kern.sop2("s_add_i32", body.args[1], kern.const(L * step))
    body.add_op(YieldOp(nxt, *[kern.value(ls.canon(a, L)) for a in loop.iter_args]))
    main = LoopOp([cur, last, top.const(L * step)], [cur, *values], body=Region(body))
    top.add(main)
    return main.res[0], list(main.res[1:])


def _remainder_loop(loop: LoopOp, ls: LoopSchedule, top: _Emitter, cur: SSAValue, values: list[SSAValue],
                    step: int, j: int) -> list[SSAValue]:
    """Iteration j of a period, run once if ``cur < ub``."""
    _, ub, _ = loop.bounds
    end = top.sop2("s_min_i32", top.sop2("s_add_i32", cur, top.const(step)), ub)
    body = Block(arg_types=[SGPRType.value(1), *[v.type for v in values]])
    rem = _Emitter(ls, body, None, _no_clone)
    rem.iv, rem.iv_first, rem.step = body.args[0], j, step
    for k, a in enumerate(loop.iter_args):
        rem.env[ls.canon(a, j)] = body.args[1 + k]
    for op in ls.ops:
        rem.emit(op, j)
    body.add_op(YieldOp(*[rem.value(ls.canon(a, j + 1)) for a in loop.iter_args]))
    r = LoopOp([cur, end, top.const(step)], values, body=Region(body))
    top.add(r)
    return list(r.res)

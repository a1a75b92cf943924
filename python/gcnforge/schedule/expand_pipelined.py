"""Software pipelining (stages) of a scheduled ``amdgcn.loop`` with run-time bounds.

With S the largest stage, P the unroll nest, U unrolled bodies per period and L = U*P the
period, the compile-time expansion of ``count`` iterations (``expand``) is a prologue (steps
``[0, S)``), a kernel of K periods and an epilogue (S steps) finishing the last S blocks.
That code is periodic: for any K >= 0 the same prologue, kernel body and epilogue are right
once the kernel runs K times, as long as the epilogue reads what the kernel computed only
through the kernel loop's results (``planned_count`` plans K0 periods, enough that it never
reads a prologue value directly). So with N = ceil((ub - lb) / step) unknown::

    cur0 = lb
    if lb + (S*P - 1)*step < ub:           (amdgcn.if: at least S whole blocks)
        prologue                           (iterations 0 .. S*P-1 started; iv from cur0)
        kernel: run-time loop over whole periods while cur + (L-1)*step < ub
        epilogue                           (finishes the S started blocks; iv from cur)
        yield cur, values
    else:
        yield cur0, initial values          (nothing started)
    tail: a run-time loop of whole nests, each iteration's ops in body order (the loop's own
          meaning, always legal), then P-1 guarded single-iteration loops (``expand_runtime``)

K = floor((N - S*P) / L), computed by the kernel loop's bounds; the tail runs what is left
(fewer than L iterations after the epilogue, fewer than S*P on the else path), so nothing is
dropped or repeated for any count, zero included. The if's results are the merged ``cur`` and
iteration values (``amdgcn-lower-loops`` gives each one register). Memory-token iteration
values cannot be merged (a located diagnostic). Pre: ``legality.check`` passed on the plan of
``planned_count`` iterations (the same emission order as every K). Post: an ``amdgcn.if``
holding plain run-time loops, then plain run-time loops.
"""

from __future__ import annotations

from xdsl.ir import Block, Region, SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.cond_ops import IfOp
from gcnforge.dialect.loop_ops import LoopOp, YieldOp
from gcnforge.dialect.types import ReadTokenType, SGPRType, WriteTokenType
from gcnforge.schedule.expand import Key, LoopSchedule, _Emitter, kernel_emitter
from gcnforge.schedule.expr import Plan


def planned_periods(loop: LoopOp, plan: Plan, at_least: int) -> int:
    """K0, the kernel periods the expansion is planned for: the epilogue's reads go back at
    most one iteration per iteration value (plus the iteration itself) from block K0*U, which
    must be past the prologue's S*P iterations."""
    reach = plan.max_stage * plan.nest + len(loop.iter_args) + 2
    return max(at_least, -(-reach // plan.period) + 1)


def check_pipelinable(loop: LoopOp) -> None:
    for a in loop.iter_args:
        if isinstance(a.type, ReadTokenType | WriteTokenType):
            raise Diagnostic("amdgcn-schedule: software pipelining a loop with run-time bounds merges its iteration "
                             "values after a trip-count guard, and a memory token cannot be merged: wait inside "
                             "the body instead of carrying the token", loop)


def expand_pipelined_runtime(loop: LoopOp, ls: LoopSchedule, step: int) -> None:
    from gcnforge.schedule.expand_runtime import _no_clone, _remainder_loop

    check_pipelinable(loop)
    p = ls.plan
    S, P = p.max_stage, p.nest
    lb, ub, _ = loop.bounds
    top = _Emitter(ls, loop.parent_block(), loop, _no_clone)  # type: ignore[arg-type]
    cur0 = top.sop2("s_add_i32", lb, top.const(0))  # an SGPR value (lb may be a constant)
    last_start = _plus(top, cur0, (S * P - 1) * step)
    then_b = Block()
    cur, values = _pipelined(loop, ls, then_b, cur0, step)
    then_b.add_op(YieldOp(cur, *values))
    inits = list(loop.inits)
    guard = IfOp("s_cmp_lt_i32", last_start, ub, [cur.type, *[v.type for v in inits]], Region(then_b),
                 Region(Block([YieldOp(cur0, *inits)])))
    guard.location = loop.location
    top.add(guard)
    cur, values = _nest_loop(loop, ls, top, guard.res[0], list(guard.res[1:]), step)
    for j in range(P - 1):
        values = _remainder_loop(loop, ls, top, cur, values, step, j)
        cur = top.sop2("s_add_i32", cur, top.const(step))
    for r, v in zip(loop.res, values, strict=True):
        r.replace_all_uses_with(v)
    loop.detach()
    loop.erase()


def _plus(em: _Emitter, v: SSAValue, c: int) -> SSAValue:
    """``v + c`` as an SGPR value (``v`` itself when ``c`` is 0)."""
    return v if c == 0 else em.sop2("s_add_i32", v, em.const(c))


def _pipelined(loop: LoopOp, ls: LoopSchedule, block: Block, cur0: SSAValue,
               step: int) -> tuple[SSAValue, list[SSAValue]]:
    """Prologue, kernel loop and epilogue into ``block``; returns (cur, values) after them."""
    p = ls.plan
    S, P, U, L = p.max_stage, p.nest, p.blocks_per_period, p.period
    K0 = (p.count - S * P) // L
    inits = list(loop.inits)

    def miss(key: Key) -> SSAValue:
        if key[0] == "init":
            return inits[key[1]]
        raise Diagnostic(f"internal: no clone for {key[1]} at iteration {key[2]} (run-time pipelining)", key[1].op)

    em = _Emitter(ls, block, None, miss)
    em.iv, em.iv_first, em.step = cur0, 0, step
    for op, j in ls.instances(range(S)):
        em.emit(op, j)
    _, ub, _ = loop.bounds
    last = _plus(em, ub, -(L - 1) * step)  # a whole period remains while cur < last
    cur = _kernel(ls, em, em.sop2("s_add_i32", cur0, em.const(S * P * step)), last, step, K0)
    em.iv, em.iv_first = cur, S * P + K0 * L  # the epilogue's iterations count back from cur
    for op, j in ls.instances(range(S + K0 * U, 2 * S + K0 * U)):
        em.emit(op, j)
    return cur, [em.value(ls.canon(a, p.count)) for a in loop.iter_args]


def _kernel(ls: LoopSchedule, top: _Emitter, cur: SSAValue, last: SSAValue, step: int, K0: int) -> SSAValue:
    """The steady state: one period per iteration of a run-time loop (as ``expand._emit_kernel``,
    with ``cur``, the first iteration not yet started, carried as the first iteration value);
    the keys the epilogue reads map to the loop's results as if it ran K0 times. Returns cur."""
    p = ls.plan
    S, P, L = p.max_stage, p.nest, p.period
    start = (S, -1, -1)
    body = Block(arg_types=[SGPRType.value(1), cur.type])
    kern, liveins = kernel_emitter(ls, top, body, start)
    kern.iv, kern.iv_first, kern.step = body.args[1], S * P, step
    for a in ls.loop.iter_args:  # the loop's results are read after the kernel: carry them
        seed = ls.canon(a, p.count - K0 * L)
        at = ls.produced_at(seed)
        if at is None or at < start:
            kern.value(seed)
    for op, j in ls.instances(range(S, S + p.blocks_per_period)):
        kern.emit(op, j)
    yields: list[SSAValue] = []
    i = 0
    while i < len(liveins):  # the worklist may grow: values older than one period
        yields.append(kern.value(ls.shift(liveins[i], L)))
        i += 1
    nxt = kern.sop2("s_add_i32", body.args[1], kern.const(L * step))
    body.add_op(YieldOp(nxt, *yields))
    loop = LoopOp([cur, last, top.const(L * step)], [cur, *[top.value(k) for k in liveins]], body=Region(body))
    top.add(loop)
    for key, r in zip(liveins, loop.res[1:], strict=True):
        top.env[ls.shift(key, K0 * L)] = r
    return loop.res[0]


def _nest_loop(loop: LoopOp, ls: LoopSchedule, top: _Emitter, cur: SSAValue, values: list[SSAValue],
               step: int) -> tuple[SSAValue, list[SSAValue]]:
    """Whole nests from ``cur`` while P iterations remain, each iteration's ops in body order."""
    from gcnforge.schedule.expand_runtime import _no_clone

    P = ls.plan.nest
    _, ub, _ = loop.bounds
    last = _plus(top, ub, -(P - 1) * step)
    body = Block(arg_types=[SGPRType.value(1), cur.type, *[v.type for v in values]])
    kern = _Emitter(ls, body, None, _no_clone)
    kern.iv, kern.step = body.args[1], step
    for k in range(len(values)):
        kern.env[("init", k)] = body.args[2 + k]
    for j in range(P):
        for op in ls.ops:
            kern.emit(op, j)
    nxt = kern.sop2("s_add_i32", body.args[1], kern.const(P * step))
    body.add_op(YieldOp(nxt, *[kern.value(ls.canon(a, P)) for a in loop.iter_args]))
    lp = LoopOp([cur, last, top.const(P * step)], [cur, *values], body=Region(body))
    top.add(lp)
    return lp.res[0], list(lp.res[1:])

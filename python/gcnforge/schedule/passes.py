"""``amdgcn-schedule``: expand every scheduled ``amdgcn.loop`` (xDSL ``ModulePass``).

Pre: loops verify. A loop is *scheduled* when it has unroll ``dims`` or a body op carries
``sched``; other loops are left alone (WYSIWYG). Post: each scheduled loop is checked
(``legality``) and replaced by its expansion (``expand``): straight-line clones for the
prologue / unrolled nest / epilogue / remainder, and at most one plain ``amdgcn.loop``
(the pipelined kernel, no dims, no schedules); a loop with run-time bounds becomes plain
run-time loops (``expand_runtime``: a main loop over whole periods and the remainder; with
stages an ``amdgcn.if`` on the trip count around prologue, kernel and epilogue, then the
remainder: ``expand_pipelined``). Inner
loops are expanded before outer ones.

Options: ``check-only`` (run the legality checks, change nothing).
Errors: ``Diagnostic`` naming both ops and the conflicting iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.loop_ops import SCHED_ATTR, LoopOp


def is_scheduled(loop: LoopOp) -> bool:
    return (loop.dims is not None or "kernel_unroll" in loop.attributes
            or any(SCHED_ATTR in op.attributes for op in loop.block.ops))


def schedule_loops(root, check_only: bool = False) -> int:
    """Expand the scheduled loops under ``root``; returns how many were expanded."""
    loops = [op for op in root.walk() if isinstance(op, LoopOp) and is_scheduled(op)]
    if not loops:
        return 0
    # the expansion machinery only for a module that has something to expand (issue 15)
    from gcnforge.schedule import legality
    from gcnforge.schedule.expand import LoopSchedule, expand_loop

    n = 0
    for loop in reversed(loops):  # reversed pre-order: inner loops first
        if loop.is_runtime:  # planned for a few periods: enough for the legality checks
            from gcnforge.schedule.expand_runtime import check_supported, expand_runtime_loop, planned_count

            ls = LoopSchedule(loop, count=planned_count(loop))
            check_supported(loop, ls)
        else:
            ls = LoopSchedule(loop)
        _check_size(ls)
        legality.check(ls)
        if not check_only:
            (expand_runtime_loop if loop.is_runtime else expand_loop)(loop, ls)
            n += 1
    return n


MAX_EXPANDED_OPS = 2_000_000  # what one loop may expand to (bounded work on any input)
MAX_EXPANSION_STEPS = 20_000_000


def _check_size(ls: LoopSchedule) -> None:
    """Refuse expansions beyond ``MAX_EXPANDED_OPS`` before building anything."""
    p = ls.plan
    nfull = p.count // p.nest
    k = (nfull - p.max_stage) // p.blocks_per_period if nfull > p.max_stage else 0
    straight = p.count if k < 2 else p.count - (k - 1) * p.period  # one period stays as the kernel body
    n = straight * sum(sum(1 for _ in op.walk()) for op in ls.ops)
    if n > MAX_EXPANDED_OPS:
        raise Diagnostic(
            f"expanding this loop would emit about {n} ops (limit {MAX_EXPANDED_OPS}): use smaller unroll "
            f"dims (nest of {p.nest}) or fewer stages", ls.loop)
    steps = (p.n_blocks + p.max_stage) * (p.nest + p.max_delay) * max(1, len(ls.ops))
    if steps > MAX_EXPANSION_STEPS:  # the (step, slot, op) scan in LoopSchedule.instances
        raise Diagnostic(f"scheduling this loop would scan {steps} (iteration, slot, op) triples (limit "
                         f"{MAX_EXPANSION_STEPS}): use smaller delays, stages or unroll dims", ls.loop)


@dataclass(frozen=True)
class SchedulePass(ModulePass):
    name = "amdgcn-schedule"

    check_only: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        schedule_loops(op, self.check_only)


def _schedule():
    return SchedulePass


def _lower_loops():
    from gcnforge.schedule.lower_loops import LowerLoopsPass

    return LowerLoopsPass


PASSES = {"amdgcn-schedule": _schedule, "amdgcn-lower-loops": _lower_loops}

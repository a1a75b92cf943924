"""``amdgcn-schedule``: expand every scheduled ``amdgcn.loop`` (xDSL ``ModulePass``).

Pre: loops verify. A loop is *scheduled* when it has unroll ``dims`` or a body op carries
``sched``; other loops are left alone (WYSIWYG). Post: each scheduled loop is checked
(``legality``) and replaced by its expansion (``expand``): straight-line clones for the
prologue / unrolled nest / epilogue / remainder, and at most one plain ``amdgcn.loop``
(the pipelined kernel, no dims, no schedules). Inner loops are expanded before outer ones.

Options: ``check-only`` (run the legality checks, change nothing).
Errors: ``Diagnostic`` naming both ops and the conflicting iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gcnforge.dialect.loop_ops import LoopOp
from gcnforge.schedule import legality
from gcnforge.schedule.expand import LoopSchedule, expand_loop
from gcnforge.schedule.expr import SCHED_ATTR


def is_scheduled(loop: LoopOp) -> bool:
    return loop.dims is not None or any(SCHED_ATTR in op.attributes for op in loop.block.ops)


def schedule_loops(root, check_only: bool = False) -> int:
    """Expand the scheduled loops under ``root``; returns how many were expanded."""
    loops = [op for op in root.walk() if isinstance(op, LoopOp) and is_scheduled(op)]
    n = 0
    for loop in reversed(loops):  # reversed pre-order: inner loops first
        ls = LoopSchedule(loop)
        legality.check(ls)
        if not check_only:
            expand_loop(loop, ls)
            n += 1
    return n


@dataclass(frozen=True)
class SchedulePass(ModulePass):
    name = "amdgcn-schedule"

    check_only: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        schedule_loops(op, self.check_only)


def _schedule():
    return SchedulePass


PASSES = {"amdgcn-schedule": _schedule}

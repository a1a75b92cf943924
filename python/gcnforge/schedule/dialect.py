"""The ``amdgcn`` dialect with the loop ops of ``gcnforge.dialect.loop_ops``.

Until the dialect module lists ``LOOP_OPS`` itself, ``amdgcn()`` builds a ``Dialect`` named
``amdgcn`` from the dialect's ops plus the loop ops (if the dialect already has them it is
returned unchanged), and ``context()`` loads it with builtin/arith/func.

The loop ops' schedule attribute, ``sched = array<i64: delay, rate[, stage]>`` on a body op
(``gcnforge.schedule.expr`` has the full rules): ``rate`` r makes the op fire only on the
logical iterations j with j mod r == 0, and the iterations in between read the result of
that instance (iteration j uses the clone of j - j mod r); a rate-2 load in a 4-iteration
loop is emitted twice. This is not ASTER's ``sched.rate`` (iree-org/aster,
``lib/Transforms/OpScheduling.cpp``: every op is emitted once per iteration, its n-th
instance at the n-th global slot g >= delay with (g - delay) mod rate == 0), which emits
every iteration's instance and places consecutive instances ``rate`` slots apart; an op
that must run on every iteration keeps rate 1 here. ``test/schedule/rate-semantics.mlir``
shows the difference.
"""

from __future__ import annotations

from functools import cache

from xdsl.context import Context
from xdsl.ir import Dialect

from gcnforge.dialect.loop_ops import LOOP_OPS


@cache
def amdgcn() -> Dialect:
    from gcnforge.dialect import AMDGCN

    ops = list(AMDGCN.operations)
    names = {o.name for o in ops}
    missing = [o for o in LOOP_OPS if o.name not in names]
    if not missing:
        return AMDGCN
    return Dialect("amdgcn", [*ops, *missing], list(AMDGCN.attributes))


def context() -> Context:
    """The dialect's own context (``amdgcn`` with the loop ops, ``lift``, builtin/arith/func)."""
    from gcnforge.dialect import context as dialect_context

    return dialect_context()

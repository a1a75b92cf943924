"""The ``amdgcn`` dialect with the loop ops of ``gcnforge.dialect.loop_ops``.

Until the dialect module lists ``LOOP_OPS`` itself, ``amdgcn()`` builds a ``Dialect`` named
``amdgcn`` from the dialect's ops plus the loop ops (if the dialect already has them it is
returned unchanged), and ``context()`` loads it with builtin/arith/func.
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
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func

    ctx = Context()
    for d in (Builtin, Arith, Func, amdgcn()):
        ctx.load_dialect(d)
    return ctx

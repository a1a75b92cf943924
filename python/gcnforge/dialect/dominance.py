"""SSA dominance of IR: every operand must be defined where its use can see it.

xDSL 0.74's verifier checks each op's own constraints but not dominance (MLIR's
``verifyDominance``), so IR text like a loop that yields its own result
(``%r = amdgcn.loop ... { amdgcn.yield %r }``) parsed and reached the passes, which then
failed deep inside a rewrite. ``check_dominance`` is MLIR's rule, on xDSL's block dominance
(``xdsl.irdl.dominance.DominanceInfo``):

* a block argument is visible in its block, the blocks that block dominates, and every
  region nested in them;
* an op's result is visible after the op in its block, in the blocks that block strictly
  dominates, and in the regions nested there, but never inside the op itself;
* uses in a block that cannot be reached from its region's entry are not checked (as MLIR).

Regions without SSA control flow between blocks (the module bodies) hold no uses of
values of other blocks, so the one rule serves every region of the dialect.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl.dominance import DominanceInfo

from gcnforge.diagnostics import Diagnostic


def _name(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "a value"


class _Regions:
    """Block dominance and reachability per region, computed on first need."""

    def __init__(self) -> None:
        self._dom: dict[int, DominanceInfo] = {}
        self._reach: dict[int, set[Block]] = {}

    def _reachable(self, region: Region) -> set[Block]:
        r = self._reach.get(id(region))
        if r is None:
            r, work = set(), [region.blocks.first] if region.blocks.first is not None else []
            while work:
                b = work.pop()
                if b in r:
                    continue
                r.add(b)
                if b.last_op is not None:
                    work.extend(b.last_op.successors)
            self._reach[id(region)] = r
        return r

    def dominates(self, a: Block, b: Block) -> bool:
        """Block ``a`` dominates block ``b`` (same region); every block of an unreachable
        one is, as in MLIR, not checked."""
        region = a.parent
        assert region is not None
        if a is b or b not in self._reachable(region):
            return True
        d = self._dom.get(id(region))
        if d is None:
            d = self._dom[id(region)] = DominanceInfo(region)
        return d.dominates(a, b)


def _ancestor_in(region: Region, op: Operation) -> Operation | None:
    """The op of ``region`` that is ``op`` or contains it (None: ``op`` is outside)."""
    cur: Operation | None = op
    while cur is not None and cur.parent_region() is not region:
        cur = cur.parent_op()
    return cur


def _why_not(v: SSAValue, user: Operation, regions: _Regions, seen: set[int]) -> str | None:
    """Why ``v`` does not dominate its use in ``user`` (None when it does); ``seen``: the ids
    of the ops the pre-order walk has passed (an op of the same block is before ``user``'s
    ancestor exactly when it was passed)."""
    if isinstance(v, BlockArgument):
        block = v.block
        region = block.parent
        if region is None:
            return None
        anc = _ancestor_in(region, user)
        if anc is None:
            owner = region.parent
            where = f" of '{owner.name}'" if owner is not None else ""
            return f"{_name(v)} is a block argument{where}, not visible here (outside its region)"
        if not regions.dominates(block, anc.parent_block()):  # type: ignore[arg-type]
            return f"{_name(v)} is a block argument of a block that does not dominate this use"
        return None
    if isinstance(v, OpResult):
        d = v.op
        region = d.parent_region()
        if region is None:
            return None
        if d is user:
            return f"{_name(v)} is a result of this op, used as its own operand"
        if d.is_ancestor(user):
            return f"{_name(v)} is a result of the enclosing '{d.name}', used inside it (a value is defined " \
                   "only after its op: a loop's body reaches the last iteration's values through its block arguments)"
        anc = _ancestor_in(region, user)
        if anc is None:
            return f"{_name(v)} is defined in a region that does not enclose this use"
        db, ub = d.parent_block(), anc.parent_block()
        if db is ub:
            if id(d) not in seen:
                return f"{_name(v)} is used before its definition"
            return None
        if not regions.dominates(db, ub):  # type: ignore[arg-type]
            return f"{_name(v)} is defined in a block that does not dominate this use"
    return None


def check_dominance(root: Operation) -> None:
    """Raise a ``Diagnostic`` at the first op (in walk order) using a value that does not
    dominate it."""
    regions = _Regions()
    seen: set[int] = set()
    for op in root.walk():  # pre-order: an op before the ops nested in it
        seen.add(id(op))
        for i, v in enumerate(op.operands):
            why = _why_not(v, op, regions, seen)
            if why is not None:
                raise Diagnostic(f"'{op.name}' operand #{i}: {why}", op)

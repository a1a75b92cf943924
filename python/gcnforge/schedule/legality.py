"""Legality of a loop's schedule, checked before anything is rewritten.

Three rules, each reported as a ``Diagnostic`` naming both ops and the iteration:

1. **use before definition**: a clone reads a value whose defining clone would be emitted
   later (also through iteration values: iteration ``j`` reads what ``j - 1`` yielded);
2. **memory order**: two memory ops that may alias, at least one writing, must keep the
   order they have in the sequential loop (iteration, then body position). May-alias is
   conservative: LDS ops (``ds_*``) alias each other, global/buffer/scratch/scalar-memory
   ops alias each other, flat ops alias both, ``s_barrier`` orders against every LDS op
   (it is where the work-group hands LDS data over; global memory is not ordered by it). Two escapes the author states on the ops: ``alias_scope = "name"`` (ops in
   different scopes never alias) and ``bufs = array<i64: count, shift>`` (the op at
   iteration j touches buffer ``(j + shift) mod count``: multi-buffering; two ops with the
   same count alias only on the same buffer). ``ds_swizzle``/``ds_permute``/``ds_bpermute``
   touch no memory;
3. **wait order**: a clone that reads the data of a memory op must come after the
   ``amdgcn.wait`` (of the same loop body) that waits for that op's token, for the same
   memory-op instance.

Order checks are sweeps over instances sorted by sequential order, O(N log N) per pair of
ops, so a nest that unrolls to 10,000 ops is checked in well under a second.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, StringAttr
from xdsl.ir import Operation, OpResult

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect import WaitOp
from gcnforge.dialect.types import ReadTokenType, WriteTokenType
from gcnforge.schedule.expand import LoopSchedule

_NO_MEMORY = ("ds_swizzle", "ds_permute", "ds_bpermute", "ds_nop")


def _error(ls: LoopSchedule, msg: str, first: Operation, second: Operation, j1: int, j2: int) -> Diagnostic:
    return Diagnostic(
        msg,
        second,
        (f"first: {ls.label(first)} at iteration {j1} {list(ls.index_values(j1))}",
         f"second: {ls.label(second)} at iteration {j2} {list(ls.index_values(j2))}"),
    )


def check(ls: LoopSchedule) -> None:
    check_defs(ls)
    check_memory(ls)
    check_waits(ls)


def _all_instances(ls: LoopSchedule, op: Operation):
    s = ls.sched[op]
    return range(0, ls.plan.count, s.rate)


def check_defs(ls: LoopSchedule) -> None:
    p = ls.plan
    for op in ls.ops:
        s = ls.sched[op]
        reads = ls.operands_of(op)
        for j in _all_instances(ls, op):
            here = p.emit_key(s, ls.pos[op], j)
            for v in reads:
                key = ls.canon(v, j)
                at = ls.produced_at(key)
                if at is not None and at >= here:
                    prod = key[1].op
                    raise _error(
                        ls, f"schedule emits a use before its definition: {ls.label(op)} at iteration {j} "
                        f"reads {ls.label(prod)} of iteration {key[2]}, which is emitted later",
                        prod, op, key[2], j)


# -- memory -----------------------------------------------------------------------------------
def _mem_info(op: Operation) -> tuple[frozenset[str], bool] | None:
    """(alias groups, writes) of a memory-touching op, else None."""
    if isinstance(op, InstOp):
        m = op.mnemonic
        inf = op.info
        fam = inf.family if inf is not None else ""
        sem = str(inf.inst.sem) if inf is not None else ""
        writes = (inf is not None and inf.token == "write") or "atomic" in sem
        if fam == "ds":
            if m.startswith(_NO_MEMORY):
                return None
            writes = writes or not m.startswith(("ds_read", "ds_load"))
            return frozenset({"lds"}), writes
        if fam == "flat":
            return frozenset({"lds", "global"}), writes
        if fam in ("global", "scratch", "mubuf", "mtbuf", "smem"):
            return frozenset({"global"}), writes
        if m == "s_barrier":  # the work-group's LDS hand-off point
            return frozenset({"lds"}), True
    return None


def _bufs(op: Operation) -> tuple[int, int] | None:
    a = op.attributes.get("bufs")
    if isinstance(a, DenseArrayBase):
        v = [int(x) for x in a.get_values()]  # type: ignore[union-attr]
        if len(v) == 2 and v[0] > 0:
            return v[0], v[1]
        raise Diagnostic(f"bufs must be array<i64: count, shift> with count > 0, got {v}", op)
    return None


def _scope(op: Operation) -> str | None:
    a = op.attributes.get("alias_scope")
    return a.data if isinstance(a, StringAttr) else None


def check_memory(ls: LoopSchedule) -> None:
    mem = [(op, info) for op in ls.ops if (info := _mem_info(op)) is not None]
    for x in range(len(mem)):
        a, (ga, wa) = mem[x]
        for y in range(x + 1, len(mem)):
            b, (gb, wb) = mem[y]
            if not (wa or wb) or not (ga & gb):
                continue
            sa, sb = _scope(a), _scope(b)
            if sa is not None and sb is not None and sa != sb:
                continue
            if ls.sched[a] == ls.sched[b]:
                continue  # same shift: relative order is the body order, unchanged
            _check_pair(ls, a, b)


def _check_pair(ls: LoopSchedule, a: Operation, b: Operation) -> None:
    p = ls.plan
    ba, bb = _bufs(a), _bufs(b)
    classes: dict[int, list] = {}
    for op, bf in ((a, ba), (b, bb)):
        s = ls.sched[op]
        for j in _all_instances(ls, op):
            cls = (j + bf[1]) % bf[0] if (ba and bb and ba[0] == bb[0]) else 0
            classes.setdefault(cls, []).append(((j, ls.pos[op]), p.emit_key(s, ls.pos[op], j), op, j))
    for inst in classes.values():
        inst.sort(key=lambda t: t[0])
        best: dict[Operation, tuple] = {}
        for seq, new, op, j in inst:
            other = b if op is a else a
            if other in best and best[other][0] > new:
                _, oj = best[other]
                raise _error(
                    ls, f"schedule reorders memory operations that may alias: {ls.label(other)} at iteration "
                    f"{oj} comes before {ls.label(op)} at iteration {j} in the loop but would be emitted after it",
                    other, op, oj, j)
            if op not in best or new > best[op][0]:
                best[op] = (new, j)


# -- waits --------------------------------------------------------------------------------------
def check_waits(ls: LoopSchedule) -> None:
    p = ls.plan
    waits_on: dict[Operation, list[Operation]] = {}
    for w in ls.ops:
        if isinstance(w, WaitOp):
            for t in w.tokens:
                if isinstance(t, OpResult) and t.op in ls.pos and isinstance(t.type, ReadTokenType | WriteTokenType):
                    waits_on.setdefault(t.op, []).append(w)
    for m, ws in waits_on.items():
        rm = ls.sched[m].rate
        data = [r for r in m.results if not isinstance(r.type, ReadTokenType | WriteTokenType)]
        for r in data:
            for u in r.uses:
                c = u.operation
                if c not in ls.pos:
                    continue
                sc = ls.sched[c]
                for j in _all_instances(ls, c):
                    jm = j - j % rm
                    for w in ws:
                        sw = ls.sched[w]
                        jw = jm
                        while jw < p.count and jw % sw.rate:  # first instance of w waiting for jm
                            jw += 1
                        if jw >= p.count or jw - jw % rm != jm:
                            continue
                        if p.emit_key(sw, ls.pos[w], jw) > p.emit_key(sc, ls.pos[c], j):
                            raise _error(
                                ls, f"schedule breaks a wait token's order: {ls.label(c)} at iteration {j} reads "
                                f"the result of {ls.label(m)} of iteration {jm} before {ls.label(w)} waits for it",
                                w, c, jw, j)

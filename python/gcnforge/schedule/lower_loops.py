"""``amdgcn-lower-loops``: plain ``amdgcn.loop`` and ``amdgcn.if`` ops -> blocks, branches and storage registers.

Pre: every loop is plain (no ``dims``, no ``sched``: run ``amdgcn-schedule`` first) and sits
directly in a kernel's or function's block once the ops around it are lowered (outer ops first).
Post: no ``amdgcn.loop`` / ``amdgcn.if`` / ``amdgcn.yield`` (ifs: ``lower_if``).
Each loop becomes, in the style the register allocator already handles (storage registers
written in place across blocks, like ``tests/translate/kernels/loop_sum.py``)::

    preheader:  S_k = alloca <storage of iteration value k>; S_k <- init_k
                cnt = alloca sgpr; s_mov_b32 cnt, 0; s_branch body
    body:       the loop body, reading S_k where it read iteration value k;
                S_k <- yielded value k (the producing instruction writes S_k in place when
                nothing later in the body still reads S_k; otherwise a copy: v_mov_b32,
                v_lshlrev_b64 0, s_mov_b32/_b64, v_accvgpr_mov_b32; values that are other
                iteration values' storage go through a temporary first: a parallel copy);
                s_add_u32 cnt, cnt, 1; s_cmp_lt_u32 cnt, count; s_cbranch_scc1 body, exit
    exit:       the ops that followed the loop, reading S_k for the loop's results

A loop with run-time bounds (``lb``, ``ub``, ``step``) counts its induction variable instead,
with a guarded entry, so it runs zero times when ``lb >= ub``::

    preheader:  S_k <- init_k; iv = alloca sgpr; s_mov_b32 iv, lb
                s_cmp_lt_i32 iv, ub; s_cbranch_scc0 exit      (zero trips: straight to exit)
    body:       ... reading iv where the body read its first argument ...
                s_add_i32 iv, iv, step; s_cmp_lt_i32 iv, ub; s_cbranch_scc1 body, exit

Memory tokens cannot live in registers: a wait on a token that crosses the back edge (or
leaves the loop) becomes an ``s_waitcnt`` whose counts come from the issue order along the
back edge and the entry path (the fewest of the two), so loads of the next iteration stay
in flight (e.g. ``vmcnt(2)``).
Iteration values wider than two dwords are written in place by their producer when it is an
instruction of the body (MFMA accumulators), otherwise copied one dword at a time through
``amdgcn.split_range`` of the storage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import FAMILY_OPS, InstOp
from gcnforge.dialect.loop_ops import SCHED_ATTR, LoopOp, YieldOp
from gcnforge.dialect import AllocaOp, BranchOp, FuncOp, KernelOp, WaitOp  # re-exported by the package
from gcnforge.isa import counters, waitcnt
from gcnforge.dialect.types import UNALLOCATED, VALUE, AGPRType, ReadTokenType, RegisterType, SGPRType, VGPRType, WriteTokenType

_TOKEN = (ReadTokenType, WriteTokenType)


def _inst(mnemonic: str, *args: SSAValue, imms=()) -> InstOp:
    from gcnforge.dialect import isa_info

    fam = isa_info.info(mnemonic).family  # type: ignore[union-attr]
    return FAMILY_OPS[fam](mnemonic, list(args), imms=imms)


def _copy(dst: SSAValue, src: SSAValue) -> InstOp:
    """``dst <- src`` (``dst`` a storage register): one move for up to two dwords, else one per
    dword through ``amdgcn.split_range`` of both (the parts of the storage are its registers,
    so the moves write it in place). Ops to insert first hang on the result as ``_before``."""
    t = dst.type
    assert isinstance(t, RegisterType)
    w = t.width
    if isinstance(t, VGPRType) and w == 1:
        return _inst("v_mov_b32_e32", dst, src)
    if isinstance(t, VGPRType) and w == 2:
        from gcnforge.dialect.constant import ConstantOp

        zero = ConstantOp.from_int_and_width(0, 32)
        op = _inst("v_lshlrev_b64", dst, zero.result, src)
        op._before = [zero]  # type: ignore[attr-defined]
        return op
    if isinstance(t, SGPRType) and w in (1, 2):
        return _inst("s_mov_b32" if w == 1 else "s_mov_b64", dst, src)
    if isinstance(t, AGPRType) and w == 1:
        return _inst("v_accvgpr_mov_b32", dst, src)
    return _copy_dwords(dst, src)


def _copy_dwords(dst: SSAValue, src: SSAValue) -> InstOp:
    from gcnforge.dialect.value_ops import SplitRangeOp

    def parts(v: SSAValue) -> SplitRangeOp:
        t = v.type
        b = t.begin.data  # type: ignore[attr-defined]
        return SplitRangeOp(v, [t.with_count(1, b + i if b >= 0 else b) for i in range(t.width)])  # type: ignore[attr-defined]

    d, s = parts(dst), parts(src)
    moves = [_copy(a, b) for a, b in zip(d.parts, s.parts, strict=True)]
    last = moves.pop()
    last._before = [d, s, *moves]  # type: ignore[attr-defined]
    return last


def _insert_before(op: Operation, anchor: Operation) -> None:
    for z in getattr(op, "_before", ()):
        anchor.parent_block().insert_op_before(z, anchor)  # type: ignore[union-attr]
    anchor.parent_block().insert_op_before(op, anchor)  # type: ignore[union-attr]


def _waitcnt(vm: int | None, lgkm: int | None) -> InstOp:
    """``s_waitcnt`` for these counts; None = don't wait on that counter."""
    return _inst("s_waitcnt", imms=(waitcnt.pack(vmcnt=vm, lgkmcnt=lgkm),))


def _counters(op: Operation) -> tuple[str, ...]:
    inf = getattr(op, "info", None)
    return counters.raised(inf.inst) if inf is not None else ()


def _event(op: Operation) -> str:
    return counters.event(str(op.info.inst.sem))  # type: ignore[attr-defined]


def _issued_between(m: Operation, w: Operation, counter: str) -> int | None:
    """Ops raising ``counter`` issued after ``m`` (to the end of its block) and before ``w``
    (from the start of its block): the path around a back edge or out of the loop. None
    when it cannot be counted (the counter model, ``isa.counters``, says ``counter`` does
    not retire these operations in order: SMEM, FLAT, or mixed events)."""
    n = 0
    spans = []
    o = m.next_op
    while o is not None:
        spans.append(o)
        o = o.next_op
    o = w.parent_block().first_op  # type: ignore[union-attr]
    while o is not None and o is not w:
        spans.append(o)
        o = o.next_op
    events = {_event(m)}
    for o in spans:
        if counter in _counters(o):
            events.add(_event(o))
            n += 1
    return n if counters.in_order(counter, events) else None


def _drop_token_uses(v: SSAValue, producers: list[Operation], needs: dict[WaitOp, dict[str, int]]) -> None:
    """Waits on ``v`` (a token that crosses the loop boundary and cannot live in a register)
    will become one ``s_waitcnt`` per wait (``_emit_waits``), with counts from the issue
    order along every path from a producer (the fewest over the paths; zero if uncountable)."""
    for use in list(v.uses):
        w = use.operation
        if isinstance(w, YieldOp):  # passed on to the next iteration: handled through its producers
            continue
        if not isinstance(w, WaitOp):
            raise Diagnostic(f"amdgcn-lower-loops: a memory token crossing the loop is used by {w.name}, "
                             f"not amdgcn.wait", w)
        need = needs.setdefault(w, {})
        for m in producers:
            for c in _counters(m):
                n = _issued_between(m, w, c)
                need[c] = min(need.get(c, 1 << 30), 0 if n is None else n)
        if not producers:
            need.update({"vmcnt": 0, "lgkmcnt": 0})
        use.operation.operands = [t for t in w.operands if t is not v]  # type: ignore[misc]


def _emit_waits(needs: dict[WaitOp, dict[str, int]]) -> None:
    for w, need in needs.items():
        _insert_before(_waitcnt(need.get("vmcnt"), need.get("lgkmcnt")), w)
        if not w.tokens:
            w.detach()
            w.erase()


def _retarget(y: SSAValue, storage: SSAValue, body: Block, stop: Operation | None = None) -> bool:
    """Make the instruction producing ``y`` write ``storage`` in place, if that is safe:
    ``y``'s destination is a fresh placeholder, no later op of the block (up to ``stop``)
    reads storage, and (with ``stop``) nothing after ``stop`` or inside it reads ``y``."""
    op = y.owner
    if not isinstance(op, InstOp) or op.parent_block() is not body:
        return False
    if stop is not None:
        after = set()
        o = stop.next_op
        while o is not None:
            after.add(o)
            o = o.next_op
        for u in y.uses:
            top = u.operation
            while top is not None and top.parent_block() is not body:
                top = top.parent_op()
            # read after the loop, or inside it (the body reads the value as it was before the
            # loop, which the storage no longer holds once an iteration has written it)
            if top in after or (top is stop and u.operation is not stop):
                return False
    inf = op.info
    if inf is None:
        return False
    # destination operand of result index i = the i-th def slot among the present operands
    defs = [n for n, s in enumerate(s for k, s in enumerate(inf.ssa_slots) if k not in set(op.off_slots)) if s.is_def]
    i = list(op.outs).index(y)
    if i >= len(defs):
        return False
    d = op.args[defs[i]]
    if not (isinstance(d.owner, AllocaOp) and isinstance(d.type, RegisterType) and d.type.is_value):
        return False
    if d.type.width != storage.type.width or type(d.type) is not type(storage.type):
        return False
    later = op.next_op
    while later is not None and later is not stop:
        if any(o is storage for inner in later.walk() for o in inner.operands):
            return False
        later = later.next_op
    args = list(op.args)
    args[defs[i]] = storage
    new = type(op)(op.mnemonic, args, imms=op.imm_values, off=op.off_slots, mods=op.mods)
    for k, a in op.attributes.items():
        if k not in ("inst", "imms", "off", "mods"):
            new.attributes[k] = a
    body.insert_op_before(new, op)
    for old_r, new_r in zip(op.results, new.results, strict=True):
        if old_r is y:
            old_r.replace_all_uses_with(storage)
        else:
            old_r.replace_all_uses_with(new_r)
    op.detach()
    op.erase()
    return True


def lower_loop(loop: LoopOp) -> None:
    pre = _lowerable_block(loop)
    storages = _storages(loop, pre)
    runtime = loop.is_runtime
    if not runtime and loop.trip_count == 0:
        for k, (r, s) in enumerate(zip(loop.res, storages, strict=True)):
            r.replace_all_uses_with(loop.inits[k] if s is None else s)
        loop.detach()
        loop.erase()
        return
    cnt = _counter(loop, pre)
    iter_args = list(loop.iter_args)  # (the block's arguments: read before the body leaves the loop)
    body, exit_b = _split_blocks(loop, pre)
    y = body.last_op
    assert isinstance(y, YieldOp)
    _replace_iteration_values(loop, iter_args, storages, list(y.values))
    yields = list(y.values)
    y.detach()
    y.erase()
    for arg in reversed(body.args):
        body.erase_arg(arg)
    anchor = AllocaOp(SGPRType.value(1))  # a marker at the end of the body
    body.add_op(anchor)
    _copy_yields(body, storages, yields, anchor)
    _latch(loop, body, cnt, anchor)
    anchor.detach()
    anchor.erase()
    body.add_op(BranchOp("s_cbranch_scc1", body, exit_b))
    loop.detach()
    loop.erase()
    pre.add_op(BranchOp("s_cbranch_scc0", exit_b, body) if runtime else BranchOp("s_branch", body))


def _counter(loop: LoopOp, pre: Block) -> SSAValue:
    """The loop's counter SGPR, set before the loop: 0, or for run-time bounds ``lb`` followed
    by the entry guard's compare (its SCC decides the preheader's branch). The body's
    induction argument becomes the counter."""
    from gcnforge.dialect.constant import ConstantOp

    cnt = AllocaOp(SGPRType.unallocated(1))
    pre.insert_op_before(cnt, loop)
    if loop.is_runtime:
        lb, ub, _ = loop.bounds
        pre.insert_op_before(_inst("s_mov_b32", cnt.result, lb), loop)
        pre.insert_op_before(_inst("s_cmp_lt_i32", cnt.result, ub), loop)
        loop.iv.replace_all_uses_with(cnt.result)  # type: ignore[union-attr]
    else:
        c0 = ConstantOp.from_int_and_width(0, 32)
        pre.insert_op_before(c0, loop)
        pre.insert_op_before(_inst("s_mov_b32", cnt.result, c0.result), loop)
    return cnt.result


def _latch(loop: LoopOp, body: Block, cnt: SSAValue, anchor: Operation) -> None:
    """Count one iteration and compare, before ``anchor`` (the back edge's SCC)."""
    from gcnforge.dialect.constant import ConstantOp

    if loop.is_runtime:
        _, ub, step = loop.bounds
        _insert_before(_inst("s_add_i32", cnt, cnt, step), anchor)
        _insert_before(_inst("s_cmp_lt_i32", cnt, ub), anchor)
        return
    c1 = ConstantOp.from_int_and_width(1, 32)
    ck = ConstantOp.from_int_and_width(loop.trip_count, 32)
    for o in (c1, ck):
        body.insert_op_before(o, anchor)
    _insert_before(_inst("s_add_u32", cnt, cnt, c1.result), anchor)
    _insert_before(_inst("s_cmp_lt_u32", cnt, ck.result), anchor)


def _lowerable_block(loop: LoopOp) -> Block:
    """The kernel or function block holding ``loop``, once nothing is left to schedule."""
    if loop.dims is not None or any(SCHED_ATTR in o.attributes for o in loop.block.ops):
        raise Diagnostic("amdgcn-lower-loops: this loop still has unroll dims or schedules; run amdgcn-schedule first",
                         loop)
    pre = loop.parent_block()
    owner = pre.parent_op() if pre is not None else None
    if not isinstance(owner, KernelOp | FuncOp):
        raise Diagnostic("amdgcn-lower-loops: only loops directly in a kernel or function body are lowered "
                         "(expand enclosing scheduled loops first)", loop)
    assert not loop.unroll_dims
    return pre


def _storages(loop: LoopOp, pre: Block) -> list[SSAValue | None]:
    """One register storage per iteration value (None for a token), holding its initial value."""
    storages: list[SSAValue | None] = []
    for k, arg in enumerate(loop.iter_args):
        init = loop.inits[k]  # read afresh: retargeting an earlier initial value renames it
        t = arg.type
        if isinstance(t, _TOKEN):
            storages.append(None)
            continue
        if not isinstance(t, RegisterType):
            raise Diagnostic(f"amdgcn-lower-loops: iteration value of type {t} has no register storage", loop)
        s = AllocaOp(t.with_state(UNALLOCATED))
        pre.insert_op_before(s, pre.first_op)  # dominates any producer of the initial value
        if not _retarget(init, s.result, pre, stop=loop):
            _insert_before(_copy(s.result, init), loop)
        storages.append(s.result)
    return storages


def _split_blocks(loop: LoopOp, pre: Block) -> tuple[Block, Block]:
    """The loop's body becomes a block after ``pre``, everything after the loop an exit block."""
    region = pre.parent
    assert region is not None
    body = loop.block
    exit_b = Block()
    while loop.next_op is not None:
        o = loop.next_op
        o.detach()
        exit_b.add_op(o)
    loop.body.detach_block(body)
    region.insert_block_after(body, pre)
    region.insert_block_after(exit_b, body)
    return body, exit_b


def _replace_iteration_values(loop: LoopOp, iter_args: list[SSAValue], storages: list[SSAValue | None],
                              yields: list[SSAValue]) -> None:
    """Register iteration values and results become their storage; token ones become waits
    on the memory operations that may have produced them."""
    arg_index = {a: k for k, a in enumerate(iter_args)}

    def producer(t: SSAValue, seen: frozenset = frozenset()) -> list[Operation]:
        """Memory ops whose token ``t`` may be; through iteration values passed on unchanged
        (an older instance: waiting as for the newest one is the stronger wait)."""
        o = t.owner
        if isinstance(o, InstOp):
            return [o]
        k = arg_index.get(t)
        if k is None or k in seen:
            return []
        return producer(yields[k], seen | {k}) + producer(loop.inits[k], seen | {k})

    needs: dict[WaitOp, dict[str, int]] = {}
    for k, (arg, s) in enumerate(zip(iter_args, storages, strict=True)):
        if s is None:  # iteration k's token: from the last iteration, or the initial one
            _drop_token_uses(arg, producer(yields[k]) + producer(loop.inits[k]), needs)
        else:
            arg.replace_all_uses_with(s)
    for k, (r, s) in enumerate(zip(loop.res, storages, strict=True)):
        if s is None:  # (with run-time bounds the initial token may leave a loop of zero trips)
            entry = producer(loop.inits[k]) if loop.is_runtime else []
            _drop_token_uses(r, producer(yields[k]) + entry, needs)
        else:
            r.replace_all_uses_with(s)
    _emit_waits(needs)


def _copy_yields(body: Block, storages: list[SSAValue | None], yields: list[SSAValue], anchor: Operation) -> None:
    """The parallel copy of the yielded values into the storages, before ``anchor``."""
    pending: list[tuple[SSAValue, SSAValue]] = []
    moved: dict[SSAValue, SSAValue] = {}  # yielded value -> the storage its producer now writes
    for s, v in zip(storages, yields, strict=True):
        if s is None or v is s:
            continue
        if v in storages:  # another iteration value's storage: read it before anything is written
            wide = v.type.width > 2
            tmp = AllocaOp(v.type.with_state(UNALLOCATED if wide else VALUE))  # (wide: copied by parts into storage)
            body.insert_op_before(tmp, anchor)
            c = _copy(tmp.result, v)
            _insert_before(c, anchor)
            pending.append((s, tmp.result if wide else c.results[0]))
        elif v in moved:  # yielded twice: copy from the storage written in place
            pending.append((s, moved[v]))
        elif any(pv is v for _, pv in pending):  # yielded twice, the first time by a copy: copy again
            pending.append((s, v))  # (retargeting now would rename the value the first copy reads)
        elif _retarget(v, s, body):
            moved[v] = s
        else:
            pending.append((s, v))
    for s, v in pending:
        _insert_before(_copy(s, v), anchor)


def lower_loops(root) -> int:
    """Lower every loop and if under ``root``, outer ones first (pre-order), so each one sits
    in a kernel or function block by the time it is lowered; returns how many."""
    from gcnforge.dialect.cond_ops import IfOp

    ops = [op for op in root.walk() if isinstance(op, LoopOp | IfOp)]
    for op in ops:
        if isinstance(op, LoopOp):
            lower_loop(op)
        else:
            from gcnforge.schedule.lower_if import lower_if

            lower_if(op)
    return len(ops)


@dataclass(frozen=True)
class LowerLoopsPass(ModulePass):
    name = "amdgcn-lower-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_loops(op)

"""``amdgcn-insert-waits``: ``s_waitcnt`` from memory tokens or from data dependences.

Which counters an operation raises and when a counter retires in issue order come from the
counter model ``gcnforge.isa.counters`` (SMEM and FLAT pending, or two kinds of event
pending on one counter: only a count of 0 is safe). Limits: vmcnt 63, lgkmcnt 15, expcnt 7
(an operation with that many younger ones is waited for at count limit - 1, the largest
count that covers it, as LLVM's SIInsertWaitcnts does).

The analysis keeps, per counter, the outstanding operations newest first (each with the
registers it will write and the token it yields) and merges control-flow joins position by
position (union), iterating loops to a fixed point. A use or overwrite of a register a
pending load writes needs ``counter <= position``; ``amdgcn.wait %t`` needs the same for the
operations that yielded ``%t``. Hand-written ``s_waitcnt`` is honoured.

Modes (``mode=``): ``auto`` (default: each ``amdgcn.wait`` becomes the weakest covering
``s_waitcnt``, then any read the author's waits leave exposed gets one from the data
dependences; a kernel written without waits gets them all that way), ``tokens`` (only the
author's waits; a read they leave exposed is a located error, not a silent race), ``deps``
(only data dependences; ``amdgcn.wait`` ops are dropped), ``verify`` (reports every read or
overwrite of a register whose load may be in flight, and every unreleased barrier, and
changes nothing).

Barriers (``barrier=``, default ``lds``): before each ``s_barrier`` the pass waits for what a
work-group-scope release needs (``isa.counters.BARRIER_RELEASE``, LLVM's memory model):
outstanding LDS operations (``lgkmcnt``); ``global`` adds global memory (``vmcnt``), for
authors whose other waves read global stores after the barrier; ``none`` is the opt-out for
authors who order it themselves. One barrier can say its own: the attribute ``release =
"none"|"lds"|"global"`` on the ``s_barrier`` op (``k.barrier(release=...)`` in the builder).

Pre: registers allocated (deps/verify); Post: no ``amdgcn.wait`` remains, and every such
read is covered by an ``s_waitcnt`` (deps).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from gcnforge.diagnostics import Diagnostic, op_place
from gcnforge.dialect.attrs import RELEASE_ATTR
from gcnforge.dialect.inst_ops import FAMILY_OPS, InstOp
from gcnforge.dialect.structure_ops import FuncOp, KernelOp, WaitOp
from gcnforge.passes.dataflow import forward, successors
from gcnforge.passes.machine import MInstCache
from gcnforge.record import FrozenRecord
from gcnforge.isa import counters, waitcnt

LIMIT = waitcnt.MAX
COUNTERS = counters.COUNTERS




class Entry(FrozenRecord):
    """One outstanding operation of a counter's queue (a frozen record: no ``@dataclass``
    code generation at import, issue 15)."""

    __slots__ = _fields = ("regs", "events", "tokens")
    regs: frozenset
    events: frozenset  # the event kind(s) of this operation (isa.counters.event)
    tokens: frozenset  # ids of the token values this operation yielded

    def __init__(self, regs: frozenset, events: frozenset, tokens: frozenset) -> None:
        _set = object.__setattr__
        _set(self, "regs", regs)
        _set(self, "events", events)
        _set(self, "tokens", tokens)

    def union(self, o: Entry) -> Entry:
        return Entry(self.regs | o.regs, self.events | o.events, self.tokens | o.tokens)


def _in_order(c: str, q: tuple[Entry, ...]) -> bool:
    return counters.in_order(c, (ev for e in q for ev in e.events))


State = dict  # counter -> tuple[Entry, ...] newest first


def _merge(a: State, b: State) -> State:
    out = {}
    for c in COUNTERS:
        x, y = a.get(c, ()), b.get(c, ())
        n = max(len(x), len(y))
        out[c] = tuple(
            (x[i].union(y[i]) if i < len(x) and i < len(y) else (x[i] if i < len(x) else y[i])) for i in range(n)
        )
    return out


def _apply_wait(s: State, need: dict[str, int]) -> State:
    out = dict(s)
    for c, n in need.items():
        q = s.get(c, ())
        if n == 0 or _in_order(c, q):
            out[c] = q[:n]
        # out-of-order queue and n > 0: nothing is known to be done
    return out


def _needs(s: State, hit) -> dict[str, int]:
    need: dict[str, int] = {}
    for c in COUNTERS:
        q = s.get(c, ())
        for i, e in enumerate(q):
            if hit(e):
                # an operation with more younger ones than the counter can express is
                # waited for at the largest count that still covers it (as LLVM does)
                n = min(i, LIMIT[c] - 1) if _in_order(c, q) else 0
                need[c] = min(need.get(c, LIMIT[c]), n)
                break  # the newest matching entry decides (older ones complete first or n is 0)
    return need


def _push(s: State, m, token) -> State:
    out = dict(s)
    regs = frozenset(m.all_writes) if m.sem not in ("vmem_store", "flat_store") else frozenset()
    toks = frozenset([id(token)]) if token is not None else frozenset()
    evs = frozenset([counters.event(m.sem)])
    for c in m.counters:
        q = (Entry(regs, evs, toks),) + s.get(c, ())
        if len(q) > LIMIT[c] + 1:  # older entries all need the same count: keep them as one
            q = q[: LIMIT[c]] + (q[LIMIT[c]].union(q[LIMIT[c] + 1]),)
        out[c] = q
    return out


def _where(op: Operation) -> str:
    """``file:line:col: `` of a located op; nothing for a raised op (its caller names the pc)."""
    place = op_place(op)
    return f"{place}: " if not isinstance(place, str) else ""


def _barrier_needs(s: State, release: str) -> dict[str, int]:
    """Counts that retire every operation a ``release`` of this kind must see done."""
    need: dict[str, int] = {}
    for c, events in counters.BARRIER_RELEASE[release].items():
        q = s.get(c, ())
        i = next((i for i, e in enumerate(q) if e.events & events), None)
        if i is not None:
            need[c] = min(i, LIMIT[c] - 1) if _in_order(c, q) else 0
    return need


class _Kernel(MInstCache):

    def __init__(self, region_op: Operation, mode: str, barrier: str = "lds"):
        super().__init__()
        self.op = region_op
        self.blocks: list[Block] = list(region_op.regions[0].blocks)
        self.mode = mode
        self.barrier = barrier
        self.tokens = mode in ("auto", "tokens")
        self.deps = mode in ("auto", "deps", "verify")
        self.exposed = mode == "tokens"  # report reads the author's waits leave exposed
        self.findings: list[str] = []
        self.barriers = 0  # of the findings, barriers without their release (verify)
        self.first_finding: Operation | None = None  # the diagnostic points at the author's line of the first

    def run(self) -> None:
        # bounded: entry states only grow, queues are capped by the counter limits
        ins = forward(successors(self.blocks), {}, lambda b, s: self._block(self.blocks[b], s, modify=False), _merge)
        if ins is None:
            raise Diagnostic("wait analysis did not converge (a gcnforge bug)", f"@{self._name()}")
        for i, b in enumerate(self.blocks):
            # final walk: insert (or, in verify mode, report: modify=None)
            self._block(b, ins[i] or {}, modify=True if self.mode != "verify" else None)
        if self.mode == "verify" and self.findings:
            reads, bars = len(self.findings) - self.barriers, self.barriers
            what = [f"{reads} read(s) of registers whose load may still be in flight"] if reads else []
            what += [f"{bars} s_barrier(s) before the memory operations they release complete"] if bars else []
            raise Diagnostic(f"@{self._name()}: {' and '.join(what)}", self.first_finding or self.op,
                             tuple(self.findings))
        if self.exposed and self.findings:
            raise Diagnostic(f"@{self._name()}: amdgcn-insert-waits{{mode=tokens}}: {len(self.findings)} read(s) of "
                             "registers whose load has no amdgcn.wait (wait for its token, or use mode=auto)",
                             self.first_finding or self.op, tuple(self.findings))

    def _name(self) -> str:
        return self.op.sym_name.data if hasattr(self.op, "sym_name") else "?"

    def _block(self, block: Block, s: State, modify: bool | None) -> State:
        for op in list(block.ops):
            if isinstance(op, WaitOp):
                toks = {id(t) for t in op.tokens}
                need = _needs(s, lambda e: bool(e.tokens & toks)) if self.tokens else {}
                s = _apply_wait(s, need)
                if modify:
                    if need:
                        block.insert_op_before(self._waitcnt(need), op)
                    op.detach()
                    op.erase()
                continue
            m = self._minst(op)
            if m is None:
                continue
            if m.mnemonic == "s_waitcnt":
                s = _apply_wait(s, waitcnt.waits(op.imm_values[0]) if op.imm_values else {})
                continue
            if m.mnemonic == "s_barrier":
                s = self._release(block, op, s, modify)
            touched = m.all_reads | m.all_writes
            reads = m.all_reads
            if self.exposed and modify:
                need = _needs(s, lambda e: bool(e.regs & touched))
                if need:
                    self._finding(op, m, s, touched, need)
                    s = _apply_wait(s, need)  # each exposed load is reported once
            if self.deps:
                need = _needs(s, lambda e: bool(e.regs & touched))
                if "vmcnt" in need and "vmcnt" in m.counters:
                    # a VMEM op overwriting what an earlier VMEM load writes: vmcnt returns in
                    # order, so only its reads need the older load done (LLVM does the same)
                    n2 = _needs({"vmcnt": s.get("vmcnt", ())}, lambda e: bool(e.regs & reads))
                    if "vmcnt" in n2:
                        need["vmcnt"] = n2["vmcnt"]
                    else:
                        del need["vmcnt"]
                if need:
                    if self.mode == "verify" and modify is None:
                        self._finding(op, m, s, touched, need)
                    elif modify:
                        block.insert_op_before(self._waitcnt(need), op)
                    s = _apply_wait(s, need)
            if m.counters:
                s = _push(s, m, op.token if isinstance(op, InstOp) else None)
        return s

    def _finding(self, op: Operation, m, s: State, touched, need: dict[str, int]) -> None:
        regs = sorted({f"{f}{i}" for e in (x for q in s.values() for x in q) for f, i in e.regs & touched if f != "x"})
        if self.first_finding is None:
            self.first_finding = op
        self.findings.append(f"{_where(op)}'{m.mnemonic}' uses {', '.join(regs) or 'a register'} "
                             f"while a load writing it may be in flight (needs "
                             f"{' '.join(f'{c}({v})' for c, v in need.items())})")

    def _release(self, block: Block, op: Operation, s: State, modify: bool | None) -> State:
        """Before ``s_barrier``: wait for what its release kind needs (verify: report it)."""
        attr = op.attributes.get(RELEASE_ATTR)
        release = attr.data if attr is not None else self.barrier  # type: ignore[attr-defined]
        if release not in counters.BARRIER_RELEASE:
            raise Diagnostic(f"s_barrier {RELEASE_ATTR} = '{release}': expected one of "
                             f"{', '.join(counters.BARRIER_RELEASE)}", op)
        need = _barrier_needs(s, release)
        if not need:
            return s
        if self.mode == "verify":
            if modify is None:
                if self.first_finding is None:
                    self.first_finding = op
                self.barriers += 1
                self.findings.append(f"{_where(op)}'s_barrier' while {release} memory operations may be in "
                                     f"flight (needs {' '.join(f'{c}({v})' for c, v in need.items())}): other waves "
                                     "may not see them")
            return _apply_wait(s, need)  # reported once, not again at later barriers
        if modify:
            block.insert_op_before(self._waitcnt(need), op)
        return _apply_wait(s, need)

    @staticmethod
    def _waitcnt(need: dict[str, int]) -> Operation:
        imm = waitcnt.pack(need.get("vmcnt"), need.get("expcnt"), need.get("lgkmcnt"))
        return FAMILY_OPS["sopp"]("s_waitcnt", [], imms=[imm])


@dataclass(frozen=True)
class InsertWaitsPass(ModulePass):
    name = "amdgcn-insert-waits"

    mode: str = "auto"
    barrier: str = "lds"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in ("auto", "tokens", "deps", "verify"):
            raise Diagnostic(f"amdgcn-insert-waits: unknown mode '{self.mode}' (auto, tokens, deps, verify)")
        if self.barrier not in counters.BARRIER_RELEASE:
            raise Diagnostic(f"amdgcn-insert-waits: unknown barrier '{self.barrier}' "
                             f"({', '.join(counters.BARRIER_RELEASE)})")
        from gcnforge.dialect.value_ops import input_target
        from gcnforge.isa import table

        with table.use_target(input_target(op)):  # the target's counters (its instruction table)
            for k in list(op.walk()):
                if isinstance(k, KernelOp | FuncOp):
                    _Kernel(k, self.mode, self.barrier).run()

"""In-order issue model of one wave on gfx942 (numbers in ``costs``).

An ``Item`` is one instruction: its semantic class, the registers (or SSA values) it
reads and writes, and what it waits for. Instruction k issues at the earliest cycle that

* is at least one issue window (4 cycles) after instruction k-1 issued (in order, one
  instruction per wave per window),
* finds its pipe free (MFMA, VALU, LDS, VMEM, SMEM, SALU pipes each serve one
  instruction at a time; transcendentals also hold the VALU),
* has every operand ready (written at issue + latency of its producer), and
* satisfies its wait: ``s_waitcnt vmcnt(N)/lgkmcnt(N)`` (counters in issue order; LDS and
  SMEM share lgkmcnt) or ``amdgcn.wait`` on tokens (until those ops complete).

Reported: modeled cycles (until the last result is ready), busy cycles per pipe, the
busiest pipe and MFMA utilization (= MFMA busy / cycles). This is a ranking model of a
wave in isolation: no other waves hide latency, no bank conflicts, no cache misses.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from gcnforge.isa import waitcnt
from gcnforge.perfmodel.costs import ISSUE, PIPES, cost

VM_CLASSES = {"vmem_load", "vmem_store", "vmem_atomic", "flat_load", "flat_store", "flat_atomic"}
LGKM_CLASSES = {"lds", "gds", "smem", "message", "flat_load", "flat_store", "flat_atomic"}


@dataclass
class Item:
    text: str
    sem: str
    base: str
    reads: Sequence[Hashable] = ()
    writes: Sequence[Hashable] = ()
    data_dwords: int = 1
    waitcnt: tuple[int | None, int | None] | None = None  # (vmcnt, lgkmcnt) for s_waitcnt
    wait_for: Sequence[Hashable] = ()  # tokens (amdgcn.wait)
    token: Hashable | None = None  # this op's memory token
    nop: int = 0  # s_nop N: N + 1 extra wait states
    formats: tuple[int, int] | None = None  # a gfx950 f8f6f4 MFMA's (cbsz, blgp): its pass count


@dataclass
class Report:
    name: str
    instructions: int
    cycles: int
    issue_cycles: int
    busy: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    per_iteration: float | None = None  # loop bodies: steady-state cycles per iteration

    @property
    def busiest(self) -> str:
        return max(self.busy, key=lambda p: (self.busy[p], p)) if any(self.busy.values()) else "issue"

    @property
    def mfma_utilization(self) -> float:
        """MFMA busy / cycles: of one pass through the block, or per iteration in steady
        state for a loop body."""
        if self.per_iteration:
            return min(1.0, self.busy.get("mfma", 0) / self.per_iteration)
        return self.busy.get("mfma", 0) / self.cycles if self.cycles else 0.0


    def text(self) -> str:
        lines = [f"{self.name}: {self.instructions} instructions, {self.cycles} modeled cycles "
                 f"(last issue at {self.issue_cycles})"]
        if self.per_iteration is not None:
            lines.append(f"  loop body: {self.per_iteration:g} cycles per iteration in steady state")
        lines += [
                 f"  busiest pipe: {self.busiest}   MFMA utilization: {100 * self.mfma_utilization:.1f}%"]
        for p in PIPES:
            if self.busy.get(p):
                lines.append(f"  {p:<6} busy {self.busy[p]:>7} cycles ({100 * self.busy[p] / max(1, self.cycles):5.1f}%)"
                             f"  {self.counts.get(p, 0)} instructions")
        return "\n".join(lines)


def simulate(items: Iterable[Item], name: str = "block", prof=None) -> Report:
    """One wave's in-order issue of ``items``; memory latencies from the device profile
    ``prof`` (``costs.cost``; None: the active target's default device)."""
    items = list(items)
    ready: dict[Hashable, int] = {}
    pipe_free: dict[str, int] = {}
    busy = {p: 0 for p in PIPES}
    counts = {p: 0 for p in PIPES}
    vm: list[int] = []  # completion times of outstanding counter events, in issue order
    lgkm: list[int] = []
    token_done: dict[Hashable, int] = {}
    t = -ISSUE
    end = 0
    n_inst = 0
    for it in items:
        if it.sem.startswith("pseudo"):  # IR-only ops: no issue slot; forward readiness / wait
            r0 = max([ready.get(r, 0) for r in it.reads] + [token_done.get(k, 0) for k in it.wait_for] + [0])
            for w in it.writes:
                ready[w] = r0
            if it.wait_for:  # amdgcn.wait: the next instruction may not issue before it
                t = max(t, r0 - ISSUE)
            continue
        n_inst += 1
        pipe, b, lat = cost(it.sem, it.base, it.data_dwords, prof, it.formats)
        start = t + ISSUE
        if pipe is not None:
            start = max(start, pipe_free.get(pipe, 0))
            if pipe == "trans":
                start = max(start, pipe_free.get("valu", 0))
        for r in it.reads:
            start = max(start, ready.get(r, 0))
        if it.waitcnt is not None:
            n_vm, n_lgkm = it.waitcnt
            for q, n in ((vm, n_vm), (lgkm, n_lgkm)):
                if n is not None and len(q) > n:
                    start = max(start, max(q[: len(q) - n]))
        for tok in it.wait_for:
            start = max(start, token_done.get(tok, 0))
        if it.nop:
            start += it.nop + 1
        if pipe is not None:
            pipe_free[pipe] = start + b
            if pipe == "trans":
                pipe_free["valu"] = start + b
            busy[pipe] += b
            counts[pipe] += 1
        done = start + lat
        for w in it.writes:
            ready[w] = done
        if it.sem in VM_CLASSES:
            vm.append(done)
        if it.sem in LGKM_CLASSES:
            lgkm.append(done)
        if it.token is not None:
            token_done[it.token] = done
        t = start
        end = max(end, done, start + (b if pipe else ISSUE))
    return Report(name, n_inst, end, max(t, 0), busy, counts)


def decode_waitcnt(simm16: int) -> tuple[int | None, int | None]:
    """(vmcnt, lgkmcnt) an ``s_waitcnt`` immediate waits for; None = that counter not waited on."""
    w = waitcnt.waits(simm16)
    return w.get("vmcnt"), w.get("lgkmcnt")


def simulate_loop(iteration: Callable[[int], list[Item]], name: str = "loop", iters: int = 4, prof=None) -> Report:
    """A loop body in steady state: ``iteration(n)`` gives the items of iteration ``n``
    (with its values renamed so that iteration n reads what n - 1 produced). Reports the
    body's own figures (one iteration) plus ``per_iteration`` = (cycles of ``iters``
    iterations - cycles of ``iters // 2``) / (``iters - iters // 2``), so start-up and
    drain cancel out."""
    one = simulate(iteration(0), name, prof)
    half = iters // 2
    c_half = simulate([it for n in range(half) for it in iteration(n)], prof=prof).cycles
    c_full = simulate([it for n in range(iters) for it in iteration(n)], prof=prof).cycles
    one.per_iteration = (c_full - c_half) / (iters - half)
    return one

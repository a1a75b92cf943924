"""One CU, cycle by cycle enough to matter: the work-groups the dispatcher gives it, their
waves on the CU's four SIMDs, replaying what the emulator executed (pcs, and per memory
instruction the cache lines or LDS bank passes its lanes' real addresses produced).

A wave's next instruction issues at the earliest cycle that satisfies all of:

* in order, one instruction per wave per issue window (``costs.ISSUE`` = 4 cycles; a wave64
  VALU op runs four 16-lane passes: MI300 ISA guide ch. 1);
* its operands are ready (the producer's latency from ``costs``; MFMA results after the
  calculator's cycle count; loads when their data returned);
* ``s_waitcnt``: vmcnt / lgkmcnt counted in issue order (the completions of the older
  requests); ``s_nop N`` adds N + 1 wait states; ``s_barrier`` waits for the work-group;
* its pipe is free: per SIMD one VALU (transcendentals hold it 4x longer), one matrix core
  (MFMA busy for its cycle count), one scalar ALU; per CU one LDS (one pass per bank-conflict
  degree, 128 B/clk), one texture address unit (vector memory: 64 lanes of addresses at
  16 lanes per clock, 64 B/clk of data) and the scalar cache;
* among waves that could issue, the oldest goes first (the arbiter's age priority).

Memory requests go to ``memory.MemoryModel`` (L1 / L2 / Infinity Cache-HBM with shared
bandwidth). When a work-group's last wave ends, the next queued work-group starts on the
freed slot (occupancy decides how many are resident), which models rounds and the tail.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gcnforge.perfmodel.costs import ISSUE, cost
from gcnforge.perfmodel.device import DeviceProfile
from gcnforge.perfmodel.issue import LGKM_CLASSES, VM_CLASSES
from gcnforge.perfmodel.memory import MemoryModel

# one executed instruction of one wave: (pc, mem) with mem None or
# ("load"|"store"|"atomic", lines tuple, bytes) or ("lds", passes)
Stream = list


@dataclass
class WaveSlice:
    """One issued instruction, for the Perfetto timeline."""

    wg: int
    wave: int
    simd: int
    start: float
    dur: float
    name: str


@dataclass
class CUResult:
    cycles: float
    busy: dict[str, float]
    counts: dict[str, int]
    instructions: int
    waves: int
    mem: MemoryModel
    loops: list[dict] = field(default_factory=list)
    slices: list[WaveSlice] = field(default_factory=list)
    stall: dict[str, float] = field(default_factory=dict)


class _Wave:
    __slots__ = ("wg", "slot", "simd", "stream", "i", "t_next", "ready", "vm", "lgkm", "done", "at_barrier",
                 "times", "age")

    def __init__(self, wg, slot, simd, stream, t0, age):
        self.wg, self.slot, self.simd, self.stream = wg, slot, simd, stream
        self.i = 0
        self.t_next = float(t0)
        self.ready: dict = {}
        self.vm: list[float] = []
        self.lgkm: list[float] = []
        self.done = False
        self.at_barrier = False
        self.times: list[float] | None = None
        self.age = age


_PIPE_PER_CU = ("lds", "vmem", "smem")


def simulate_cu(static: dict, wgs: list[list[Stream]], resident: int, prof: DeviceProfile, active_cus: int,
                simds: int = 4, keep_slices: bool = False, max_slices: int = 200_000, reuse: float = 1.0,
                footprint_bytes: float | None = None, shared: frozenset | set = frozenset()) -> CUResult:
    """Run the work-groups ``wgs`` (each a list of wave streams) through one CU holding at most
    ``resident`` of them at a time. ``static[pc]`` is the ``issue.Item`` of the instruction at pc;
    ``reuse``: device-wide bytes read / bytes of the buffers read, ``footprint_bytes`` those
    buffers' bytes, ``shared`` the lines several work-groups read (``memory.MemoryModel``)."""
    mem = MemoryModel(prof, active_cus, reuse, footprint_bytes, shared)
    busy: dict[str, float] = {}
    counts: dict[str, int] = {}
    stall = {"dependency/pipe": 0.0, "waitcnt": 0.0, "barrier": 0.0}
    first: list[_Wave] = []
    pipe_free: dict[tuple, float] = {}
    queue = list(range(len(wgs)))
    live: list[_Wave] = []
    wg_left: dict[int, int] = {}
    slices: list[WaveSlice] = []
    age = 0
    next_simd = 0
    n_inst = 0
    end = 0.0

    def launch(g: int, t: float) -> None:
        nonlocal age, next_simd
        streams = wgs[g]
        wg_left[g] = len(streams)
        for s, st in enumerate(streams):
            w = _Wave(g, s, next_simd % simds, st, t, age)
            next_simd += 1
            age += 1
            if g == 0 and s == 0:
                w.times = []
                first.append(w)
            if not st:
                w.done = True
                wg_left[g] -= 1
                continue
            live.append(w)

    for _ in range(min(resident, len(queue))):
        launch(queue.pop(0), 0.0)

    while live:
        # the wave that can issue earliest (oldest first on ties)
        best = None
        best_t = 0.0
        for w in live:
            if w.at_barrier:
                continue
            t = _issue_time(w, static[w.stream[w.i][0]], prof, pipe_free)
            if best is None or t < best_t or (t == best_t and w.age < best.age):
                best, best_t = w, t
        if best is None:  # every live wave waits at a barrier that cannot release
            break
        w = best
        t = best_t
        pc, m = w.stream[w.i]
        it = static[pc]
        pipe, b, lat = cost(it.sem, it.base, it.data_dwords, prof, it.formats)
        if it.nop:
            t += it.nop + 1
        if t > w.t_next:
            stall["waitcnt" if it.waitcnt is not None else "dependency/pipe"] += t - w.t_next
        b, done = _completion(it, m, t, pipe, b, lat, prof, mem)
        if pipe is not None:
            key = (pipe, -1 if pipe in _PIPE_PER_CU else w.simd)
            pipe_free[key] = t + b
            if pipe == "trans":
                pipe_free[("valu", w.simd)] = t + b
            busy[pipe] = busy.get(pipe, 0.0) + b
            counts[pipe] = counts.get(pipe, 0) + 1
        _record_results(w, it, done)
        if w.times is not None:
            w.times.append(t)
        if keep_slices and len(slices) < max_slices:
            slices.append(WaveSlice(w.wg, w.slot, w.simd, t, float(b if pipe else ISSUE), it.base))
        n_inst += 1
        w.t_next = t + ISSUE
        end = max(end, done, t + (b if pipe else ISSUE))
        w.i += 1
        if it.base == "s_barrier":
            w.at_barrier = True
            _release_barrier([x for x in live if x.wg == w.wg], stall)
        if w.i >= len(w.stream) or it.base == "s_endpgm":
            w.done = True
            live.remove(w)
            wg_left[w.wg] -= 1
            _release_barrier([x for x in live if x.wg == w.wg], None)  # a barrier may wait only for this wave
            if wg_left[w.wg] == 0 and queue:
                # the freed slot takes the next work-group once the last wave's data is back
                launch(queue.pop(0), max(t + ISSUE, max(w.vm, default=0.0)))
    res = CUResult(end, busy, counts, n_inst, sum(len(g) for g in wgs), mem, stall=stall, slices=slices)
    if first:
        res.loops = loop_breakdown(first[0].stream, first[0].times or [], end)
    return res


def _issue_time(w: _Wave, it, prof: DeviceProfile, pipe_free: dict) -> float:
    """When wave ``w``'s next instruction ``it`` can issue: its issue window, its pipe, its
    operands and the counters a ``s_waitcnt`` waits for."""
    t = w.t_next
    pipe = cost(it.sem, it.base, it.data_dwords, prof, it.formats)[0]
    if pipe is not None:
        t = max(t, pipe_free.get((pipe, -1 if pipe in _PIPE_PER_CU else w.simd), 0.0))
        if pipe == "trans":
            t = max(t, pipe_free.get(("valu", w.simd), 0.0))
    for r in it.reads:
        rt = w.ready.get(r)
        if rt is not None and rt > t:
            t = rt
    if it.waitcnt is not None:
        n_vm, n_lgkm = it.waitcnt
        if n_vm is not None and len(w.vm) > n_vm:
            t = max(t, max(w.vm[: len(w.vm) - n_vm]))
        if n_lgkm is not None and len(w.lgkm) > n_lgkm:
            t = max(t, max(w.lgkm[: len(w.lgkm) - n_lgkm]))
    return t


def _completion(it, m, t: float, pipe, b: float, lat: float, prof: DeviceProfile, mem: MemoryModel):
    """(pipe occupancy, completion time) of an instruction issued at ``t``: memory from the
    recorded access ``m`` through the hierarchy, the rest from the cost model."""
    if m is not None:
        kind = m[0]
        if kind == "lds":
            return max(ISSUE, m[1]), t + prof.lat_lds + m[1]
        b = max(ISSUE, len(m[1]) * prof.line_bytes // prof.l1_bytes_per_clk)
        if kind == "load":
            return b, mem.load(t, m[1], m[2])
        return b, mem.store(t, m[1], m[2], atomic=kind == "atomic")
    if it.sem == "smem":
        return b, t + prof.lat_smem
    if pipe == "lds":
        return b, t + prof.lat_lds
    return b, t + lat


def _record_results(w: _Wave, it, done: float) -> None:
    """The issued instruction's results are ready at ``done``; its counters count it; the
    operations a ``s_waitcnt`` waited for leave them."""
    for r in it.writes:
        w.ready[r] = done
    if it.sem in VM_CLASSES:
        w.vm.append(done)
    if it.sem in LGKM_CLASSES:
        w.lgkm.append(done)
    if it.waitcnt is not None:
        n_vm, n_lgkm = it.waitcnt
        if n_vm is not None and len(w.vm) > n_vm:
            w.vm = w.vm[len(w.vm) - n_vm:]
        if n_lgkm is not None and len(w.lgkm) > n_lgkm:
            w.lgkm = w.lgkm[len(w.lgkm) - n_lgkm:]


def _release_barrier(group: list[_Wave], stall: dict | None) -> None:
    """Release a work-group's barrier once each of its live waves has reached it (``stall``:
    add the waiting time of the waves that were held)."""
    if not group or not all(x.at_barrier or x.done for x in group):
        return
    rel = max(x.t_next for x in group)
    for x in group:
        if x.at_barrier and stall is not None:
            stall["barrier"] += rel - x.t_next
        x.at_barrier = False
        x.t_next = rel


def loop_breakdown(stream: Stream, times: list[float], end: float) -> list[dict]:
    """Loops of one wave's executed stream (a back edge: a pc followed by a lower pc), with
    iterations, cycles spent inside (issue time to the next instruction's issue time, the
    innermost loop owning each instruction) and cycles per iteration."""
    n = min(len(stream), len(times))
    if n == 0:
        return []
    spans: dict[tuple[int, int], int] = {}  # (head pc, back-edge pc) -> back edges taken
    for k in range(n - 1):
        a, b = stream[k][0], stream[k + 1][0]
        if b < a:
            spans[(b, a)] = spans.get((b, a), 0) + 1
    if not spans:
        return []
    inner = sorted(spans, key=lambda s: s[1] - s[0])
    cyc = dict.fromkeys(spans, 0.0)
    for k in range(n):
        pc = stream[k][0]
        dt = (times[k + 1] if k + 1 < n else end) - times[k]
        for s in inner:
            if s[0] <= pc <= s[1]:
                cyc[s] += dt
                break
    out = []
    for s in sorted(spans):
        iters = spans[s] + 1
        out.append({"head_pc": s[0], "back_edge_pc": s[1], "iterations": iters, "cycles": cyc[s],
                    "cycles_per_iteration": cyc[s] / iters, "fraction": cyc[s] / end if end else 0.0})
    return out


__all__ = ["simulate_cu", "CUResult", "WaveSlice"]

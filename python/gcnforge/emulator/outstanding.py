"""Outstanding memory operations per wave: when ``s_waitcnt`` retires what, and when LDS DMA
data lands.

One model of the wait counters (``gcnforge.isa.counters``) for the executor and the sanitizer:
each wave numbers the operations it issues on ``vmcnt`` and ``lgkmcnt`` (1, 2, ...; the
counters an instruction raises are the ISA table's), and ``s_waitcnt counter(N)`` proves all
but the newest N done while the counter retires in order (one kind of event pending, no SMEM,
no FLAT); out of order only a count of 0 does. An operation with sequence number ``seq`` on
counter ``c`` is retired once ``done[c, wave] >= seq``.

LDS DMA (``buffer_load_* ... lds``, ``global_load_lds_*``, ``scratch_load_lds_*``) writes LDS
asynchronously: the data lands when the load returns, which a wave can only be sure of through
``vmcnt`` ("MUBUF and FLAT LDS DMA operations need a wait on vmcnt before LDS written can be
accessed", LLVM D124626; SIInsertWaitcnts tracks them on vmcnt). ``LdsDma`` holds each DMA's
data (address and bytes taken at issue, as the hardware computes them) until it lands: at the
``s_waitcnt`` that retires it (in issue order, as vmcnt counts), or once the memory latency has
passed on the work-group's clock (the executor's issue-model ``cycles``; the latency is the
unloaded DRAM latency of the target's default device, ``perfmodel.profiles``), or when its wave
ends. Production kernels depend on both sides of that window: software-pipelined ones read the
old contents of an LDS buffer after issuing the DMA that refills it (aiter's fused-MoE stage-1
``_pf2`` objects), and reuse LDS that a last over-prefetching DMA, never waited for, wrote
long before (their epilogues). The emulator runs waves out of clock order, so LDS keeps per
dword the clock of its last write (``Executor.lds_access``) and DMA data landing at an earlier
clock does not overwrite it. The sanitizer reports every access whose result depends on when
the data lands (``sanitizer_lds_dma.py``, on the same sequence numbers).
"""

from __future__ import annotations

import numpy as np

from gcnforge.isa import counters, table

VM, LGKM = 0, 1  # rows of the state arrays
_NEVER = np.iinfo(np.int64).max
_ROW = {"vmcnt": VM, "lgkmcnt": LGKM}  # expcnt: no exports on gfx942 compute


def is_lds_dma(ins) -> bool:
    """A load whose data goes to LDS: ``buffer_load_* ... lds`` or ``{global,scratch}_load_lds_*``
    (not a DS instruction, nor a FLAT store or atomic through the shared aperture)."""
    b = ins.base
    return "_load_lds_" in b or (b.startswith("buffer_load_") and "lds" in ins.mods)


def dma_latency(image) -> int:
    """Cycles after issue by which an LDS DMA's data has landed when no wait retired it before:
    the unloaded latency of a load that misses every cache (``lat_hbm``) on the default device
    of the code object's target (``perfmodel.profiles``)."""
    from gcnforge.emulator.device import emulated_target
    from gcnforge.perfmodel import profiles

    return profiles.for_target(emulated_target(image.processor).name).lat_hbm


class WaitCounters:
    """Per wave and counter: operations issued, operations proven retired, and per event kind
    the sequence number of its newest operation (to tell whether the counter is in order)."""

    def __init__(self, waves: int):
        self.issued = np.zeros((2, waves), np.int64)
        self.done = np.zeros((2, waves), np.int64)
        self.last_ev: dict[int, dict[str, np.ndarray]] = {VM: {}, LGKM: {}}
        self._rows: dict[str, tuple[int, ...]] = {}

    def rows(self, ins) -> tuple[int, ...]:
        """The counters (VM, LGKM) ``ins`` raises when it issues."""
        r = self._rows.get(ins.mnemonic)
        if r is None:
            inst = table.by_mnemonic(ins.mnemonic)
            r = self._rows[ins.mnemonic] = tuple(_ROW[c] for c in counters.raised(inst) if c in _ROW) \
                if inst is not None else ()
        return r

    def issue(self, ins, w) -> None:
        """Count ``ins`` issued by waves ``w`` (after it executed)."""
        rows = self.rows(ins)
        if not rows:
            return
        ev = counters.event(ins.sem)
        for c in rows:
            self.issued[c, w] += 1
            last = self.last_ev[c].setdefault(ev, np.zeros(self.issued.shape[1], np.int64))
            last[w] = self.issued[c, w]

    def next_seq(self, c: int, w) -> np.ndarray:
        """The sequence number the instruction executing now gets on counter ``c`` (``issue``
        counts it after it executed)."""
        return self.issued[c, w] + 1

    def retired(self, c: int, w, seq) -> np.ndarray:
        """Whether operation ``seq`` of each wave in ``w`` is proven done on counter ``c``."""
        return seq <= self.done[c, w]

    def wait(self, ins, w) -> None:
        """``s_waitcnt``: retire what its counts prove done, per wave."""
        m = ins.mods
        for name, c in _ROW.items():
            if name not in m:
                continue
            n = m[name]
            if n == 0:
                self.done[c, w] = self.issued[c, w]
                continue
            evs = list(self.last_ev[c].items())
            if not evs:
                continue
            kinds = sum((last[w] > self.done[c, w]).astype(np.int64) << i for i, (_, last) in enumerate(evs))
            ordered = np.zeros(len(w), bool)  # per wave: its set of pending events (a bit mask) retires in order
            for k in set(kinds.tolist()):
                ordered[kinds == k] = counters.in_order(name, [e for i, (e, _) in enumerate(evs) if k >> i & 1])
            ok = w[ordered]
            self.done[c, ok] = np.maximum(self.done[c, ok], self.issued[c, ok] - n)


class LdsDma:
    """LDS DMA data held from issue until it lands: when vmcnt retires it, or once the memory
    latency has passed on the work-group's clock (the executor's issue-model ``cycles``),
    whichever comes first."""

    def __init__(self, latency: int, waves: int):
        self.latency = latency  # cycles from issue until a load's data is back (a profile's lat_hbm)
        self.held: list[tuple] = []  # (waves, seq, due cycle, offsets, nbytes, lane mask, data), in issue order
        self.low_seq = np.full(waves, _NEVER, np.int64)  # per wave the oldest held DMA's sequence number
        self.low_due = _NEVER  # the earliest due cycle held

    def hold(self, ex, w, off, n, m, data) -> None:
        """Keep the bytes a DMA of waves ``w`` writes (``ex.lds_access``'s arguments)."""
        w = np.array(w)
        seq, due = ex.waits.next_seq(VM, w), ex.cycles[w] + self.latency
        self.held.append((w, seq, due, off.copy(), n, m.copy(), np.array(data)))
        self.low_seq[w] = np.minimum(self.low_seq[w], seq)
        self.low_due = min(self.low_due, int(due.min()))

    def land(self, ex, w, force: bool = False) -> None:
        """Land the held DMAs of waves ``w`` that vmcnt retired (``force``: all of them: the
        waves end; their loads still land)."""
        low = self.low_seq[w]
        if (low < _NEVER).any() if force else (low <= ex.waits.done[VM, w]).any():
            self._land(ex, lambda waves, seq, due: np.isin(waves, w) & (force | ex.waits.retired(VM, waves, seq)),
                       lambda waves, due: np.minimum(due, ex.cycles[waves]))

    def arrive(self, ex, w) -> None:
        """Before waves ``w`` access LDS: land the held DMAs of their work-groups whose data is
        back by the accessing waves' clock."""
        if int(ex.cycles[w].max()) >= self.low_due:
            now = np.full(len(ex.wgs), -1, np.int64)
            np.maximum.at(now, ex.wg_of[w], ex.cycles[w])
            self._land(ex, lambda waves, seq, due: now[ex.wg_of[waves]] >= due, lambda waves, due: due)

    def _land(self, ex, ready, at) -> None:
        """Land the rows ``ready(waves, seq, due)`` selects, each at clock ``at(waves, due)``."""
        keep = []
        self.low_seq[:] = _NEVER
        self.low_due = _NEVER
        for e in self.held:  # in issue order: a later DMA lands over an earlier one
            waves, seq, due, off, n, m, data = e
            now = ready(waves, seq, due)
            if now.all():
                ex.lds_access(off, n, m, waves, data, at=at(waves, due))
                continue
            if now.any():
                ex.lds_access(off[now], n, m[now], waves[now], data[now], at=at(waves[now], due[now]))
                r = ~now
                e = waves, seq, due, off, n, m, data = (waves[r], seq[r], due[r], off[r], n, m[r], data[r])
            keep.append(e)
            self.low_seq[waves] = np.minimum(self.low_seq[waves], seq)  # (one row per wave in an entry)
            self.low_due = min(self.low_due, int(due.min()))
        self.held = keep

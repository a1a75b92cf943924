"""The memory hierarchy one modelled CU sees: vector L1, the XCD's L2, Infinity Cache / HBM,
each a latency (from the device profile) plus a bandwidth share served in order.

Requests arrive as 128-byte lines (the L1/L2 line of CDNA3, AMD CDNA 3 white paper) that
the emulator computed from the lanes' real addresses. Where a line is served:

* vector L1 (32 KiB per CU, LRU): lines this CU read recently;
* L2 (4 MiB per XCD, LRU with capacity): lines a modelled work-group of this XCD touched
  before and that were not evicted since. The simulated CU stands for every CU of its XCD:
  a line only it reads (private) stands for one line of each of the XCD's active CUs and
  fills that many slots; a line the sampled work-groups share (an operand panel) fills one.
  Work-groups reach the XCDs round-robin (``timing``), so the CU's queue is the XCD's share
  of the grid and reuse between neighbouring work-group ids happens on other XCDs' L2s;
* otherwise the Infinity Cache (256 MiB) when the buffers the kernel reads fit in it: the
  first read of a byte comes from HBM, the other ``reuse - 1`` from the Infinity Cache
  (latency between ``lat_hbm`` and ``lat_mall`` in that proportion); this CU's bandwidth
  share is ``reuse`` times achievable HBM's, at most the Infinity Cache's measured bandwidth,
  divided over the busy CUs. When the buffers do not fit, every L2 miss is an HBM access at
  achievable HBM bandwidth (the Infinity Cache is memory-side and holds at most 256 MiB).

Stores go through to L2 (write-through L1, no allocate) and take their share of far
bandwidth (written back); their counter completes after the L2 latency. Global atomics
(split-K reductions): the XCDs' L2s are not coherent with each other (CDNA 3 white paper),
so a device-scope atomic is performed at the memory side: it reads and writes its line
through the far bandwidth and completes after the Infinity Cache latency.
"""

from __future__ import annotations

from collections import OrderedDict

from gcnforge.perfmodel.device import DeviceProfile


class _Server:
    """A bandwidth share serving byte transfers in arrival order."""

    __slots__ = ("rate", "free")

    def __init__(self, bytes_per_clk: float):
        self.rate = max(bytes_per_clk, 1e-9)
        self.free = 0.0

    def take(self, t: float, nbytes: int) -> float:
        """Time the transfer of ``nbytes`` requested at ``t`` has passed this server."""
        start = max(t, self.free)
        self.free = start + nbytes / self.rate
        return self.free


class MemoryModel:
    def __init__(self, prof: DeviceProfile, active_cus: int, reuse: float = 1.0, footprint_bytes: float | None = None,
                 shared: frozenset | set = frozenset()):
        self.p = prof
        active = max(1, min(active_cus, prof.cus))
        per_xcd = max(1, min(prof.cus_per_xcd, -(-active // prof.xcds)))
        self.per_xcd = per_xcd
        self.l1 = _Server(prof.l1_bytes_per_clk)
        self.l2 = _Server(prof.l2_bytes_per_clk_per_xcd / per_xcd)
        self.fits_mall = footprint_bytes is None or footprint_bytes <= prof.mall_bytes
        reuse = max(1.0, reuse) if self.fits_mall else 1.0
        far = min(prof.hbm_bytes_per_clk() * reuse, max(prof.mall_bytes_per_clk(), prof.hbm_bytes_per_clk()))
        self.hbm = _Server(far / active)
        # far latency: the first read of a byte from HBM, the re-reads from the Infinity Cache
        self.lat_far = round(prof.lat_mall + (prof.lat_hbm - prof.lat_mall) / reuse)
        self.l1_lines: OrderedDict[int, None] = OrderedDict()
        self.l1_cap = prof.l1_bytes // prof.line_bytes
        self.l2_lines: OrderedDict[int, int] = OrderedDict()  # line -> slots it fills
        self.l2_cap = prof.l2_bytes_per_xcd // prof.line_bytes
        self.l2_used = 0
        self.shared = shared
        self.bytes_read_hbm = 0
        self.bytes_written = 0
        self.hits = {"l1": 0, "l2": 0, "hbm": 0}
        self.outstanding: list[tuple[float, int]] = []  # (time, +1/-1) for the trace counter

    def _l1_touch(self, line: int) -> bool:
        hit = line in self.l1_lines
        if hit:
            self.l1_lines.move_to_end(line)
        else:
            self.l1_lines[line] = None
            if len(self.l1_lines) > self.l1_cap:
                self.l1_lines.popitem(last=False)
        return hit

    def _l2_fill(self, line: int) -> None:
        if line in self.l2_lines:
            self.l2_lines.move_to_end(line)
            return
        w = 1 if line in self.shared else self.per_xcd
        self.l2_lines[line] = w
        self.l2_used += w
        while self.l2_used > self.l2_cap and len(self.l2_lines) > 1:
            _, w_old = self.l2_lines.popitem(last=False)
            self.l2_used -= w_old

    def load(self, t: float, lines, bytes_per_line: int) -> float:
        """Completion time of a wave's load touching ``lines`` issued at ``t``."""
        p = self.p
        done = t + p.lat_l1
        lb = p.line_bytes
        for ln in lines:
            if self._l1_touch(ln):
                self.hits["l1"] += 1
                d = self.l1.take(t, lb) + p.lat_l1
            elif ln in self.l2_lines:
                self.hits["l2"] += 1
                self.l2_lines.move_to_end(ln)
                d = self.l1.take(self.l2.take(t, lb), lb) + p.lat_l2
            else:
                self.hits["hbm"] += 1
                self._l2_fill(ln)
                self.bytes_read_hbm += lb
                d = self.l1.take(self.l2.take(self.hbm.take(t, lb), lb), lb) + self.lat_far
            done = max(done, d)
        self.outstanding += [(t, 1), (done, -1)]
        return done

    def store(self, t: float, lines, nbytes: int, atomic: bool = False) -> float:
        p = self.p
        done = t + p.lat_l2
        lb = p.line_bytes
        for ln in lines:
            self.l1_lines.pop(ln, None)  # write-through, no allocate in L1
            if atomic:  # performed at the memory side: read and write of the line over the far path
                done = max(done, self.hbm.take(self.l2.take(self.l1.take(t, lb), lb), 2 * lb) + p.lat_mall)
                continue
            self._l2_fill(ln)
            # the line goes on to HBM (L2 write-back): stores share this CU's far bandwidth too
            done = max(done, self.hbm.take(self.l2.take(self.l1.take(t, lb), lb), lb) + p.lat_l2)
        self.bytes_written += nbytes
        self.outstanding += [(t, 1), (done, -1)]
        return done


__all__ = ["MemoryModel"]

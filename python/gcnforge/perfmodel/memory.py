"""The memory hierarchy one modelled CU sees: vector L1, the XCD's L2, Infinity Cache / HBM,
each a latency (from the device profile) plus a bandwidth share served in order.

Requests arrive as 128-byte lines (the L1/L2 line of CDNA3, AMD CDNA 3 white paper) that
the emulator computed from the lanes' real addresses. Where a line is served:

* vector L1 (32 KiB per CU, LRU): lines this CU read recently;
* L2 (4 MiB per XCD): lines any modelled work-group touched before (the sample stands for
  its XCD: a line a sampled work-group read is assumed resident for the others);
* otherwise the Infinity Cache / HBM: latency ``lat_hbm``; this CU's share of bandwidth is
  the peak divided by the CUs that are busy. The peak is HBM's when every CU reads data of
  its own; when the CUs together request ``reuse`` times the bytes the kernel's buffers hold
  (a GEMM's operand panels are read by every work-group of a row or column), only one
  request in ``reuse`` can miss the shared caches (each byte comes from HBM once, the
  Infinity Cache and the XCDs' L2s serve the rest), so the share is ``reuse`` times HBM's,
  never more than the Infinity Cache's peak (``mall_bytes_per_s``).

Stores and atomics go through to L2 (write-through L1), count as bytes written and take
their share of HBM bandwidth (written back); their counter completes after the L2 latency
(atomics: twice, read and write at L2).
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
    def __init__(self, prof: DeviceProfile, active_cus: int, reuse: float = 1.0):
        self.p = prof
        active = max(1, min(active_cus, prof.cus))
        per_xcd = max(1, min(prof.cus_per_xcd, -(-active // prof.xcds)))
        self.l1 = _Server(prof.l1_bytes_per_clk)
        self.l2 = _Server(prof.l2_bytes_per_clk_per_xcd / per_xcd)
        far = min(prof.hbm_bytes_per_clk() * max(1.0, reuse), max(prof.mall_bytes_per_clk(), prof.hbm_bytes_per_clk()))
        self.hbm = _Server(far / active)
        self.l1_lines: OrderedDict[int, None] = OrderedDict()
        self.l1_cap = prof.l1_bytes // prof.line_bytes
        self.l2_lines: set[int] = set()
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
                d = self.l1.take(self.l2.take(t, lb), lb) + p.lat_l2
            else:
                self.hits["hbm"] += 1
                self.l2_lines.add(ln)
                self.bytes_read_hbm += lb
                d = self.l1.take(self.l2.take(self.hbm.take(t, lb), lb), lb) + p.lat_hbm
            done = max(done, d)
        self.outstanding += [(t, 1), (done, -1)]
        return done

    def store(self, t: float, lines, nbytes: int, atomic: bool = False) -> float:
        p = self.p
        done = t + p.lat_l2
        lb = p.line_bytes
        for ln in lines:
            self.l2_lines.add(ln)
            self.l1_lines.pop(ln, None)  # write-through, no allocate in L1
            # the line goes on to HBM (L2 write-back): stores share this CU's HBM bandwidth too
            done = max(done, self.hbm.take(self.l2.take(self.l1.take(t, lb), lb), lb) + p.lat_l2
                       + (p.lat_l2 if atomic else 0))
        self.bytes_written += nbytes
        self.outstanding += [(t, 1), (done, -1)]
        return done


__all__ = ["MemoryModel"]

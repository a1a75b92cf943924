"""Stop a kernel that can never finish: the batch's whole machine state repeats.

Emulation is deterministic, so if every piece of state that steers what happens next
(PCs, SGPRs, VGPRs/AGPRs, SCC, LDS, wave flags and modes, the scheduler's order) is the same
at two snapshots and no memory was written in between, the waves are in a cycle and will
repeat it forever: a spin-wait on a flag nobody sets, a barrier-free lock on a workgroup of a
later batch, a loop whose exit test never changes. Snapshots are taken every ``EVERY``
issues (a multiple of the scheduler's fairness period of 16 issues, so that phase matches
too); a loop of period p is seen after at most p snapshots once it started. The check
costs one hash of the register files per snapshot. Loops that change state (a counter that
only grows) are not cycles: the instruction budget ends those.
"""

from __future__ import annotations

import hashlib

import numpy as np

EVERY = 1024  # issues between snapshots
MAX_SNAPSHOTS = 4096  # state hashes kept since the last memory write


class Livelock:
    def __init__(self):
        self.seen: dict[bytes, int] = {}
        self.writes = -1

    def repeats(self, ex) -> int | None:
        """-> the issue count of an identical earlier snapshot, or None."""
        if ex.mem_writes != self.writes or len(self.seen) > MAX_SNAPSHOTS:
            self.seen.clear()
            self.writes = ex.mem_writes
        h = hashlib.blake2b(digest_size=16)
        for a in (ex.PC, ex.S, ex.V, ex.SCC, ex.lds, ex.done, ex.at_barrier, ex.gpr_idx_mode, ex.vskip,
                  ex.hwreg_mode, ex.trap_sts, np.argsort(ex.last_run, kind="stable")):
            h.update(np.ascontiguousarray(a).view(np.uint8).reshape(-1))
        key = h.digest()
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = ex.issued
        return first

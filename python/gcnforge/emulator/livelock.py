"""Stop a kernel that can never finish: the batch's whole machine state repeats.

Emulation is deterministic, so if every piece of state that steers what happens next
(PCs, SGPRs, VGPRs/AGPRs, SCC, LDS, wave flags and modes, the scheduler's order) is the same
at two snapshots and no memory was written in between, the waves are in a cycle and will
repeat it forever: a spin-wait on a flag nobody sets, a barrier-free lock on a workgroup of a
later batch, a loop whose exit test never changes. Snapshots are taken every ``EVERY``
issues (a multiple of the scheduler's fairness period of 16 issues, so that phase matches
too); a loop of period p is seen within about 2p snapshots once it started. Loops that
change state (a counter that only grows) are not cycles: the instruction budget ends those.
"""

from __future__ import annotations

import hashlib

import numpy as np

EVERY = 1024  # issues between snapshots
MAX_SNAPSHOTS = 4096  # state hashes kept since the last memory write


class Livelock:
    """Two-level fingerprint: the small state (PCs, SGPRs, flags, scheduler order) at every
    snapshot; the large one (VGPRs/AGPRs, LDS) only once the small one has come back, so a
    kernel that makes progress (its SGPRs or PCs differ) never pays for hashing its VGPRs."""

    def __init__(self):
        self.seen: dict[bytes, list] = {}  # small fingerprint -> [issue, large fingerprint or None]
        self.writes = -1

    def repeats(self, ex) -> int | None:
        """-> the issue count of an identical earlier snapshot, or None."""
        if ex.mem_writes != self.writes or len(self.seen) > MAX_SNAPSHOTS:
            self.seen.clear()
            self.writes = ex.mem_writes
        small = _digest(ex.PC, ex.S, ex.SCC, ex.done, ex.at_barrier, ex.gpr_idx_mode, ex.vskip, ex.hwreg_mode,
                        ex.trap_sts, np.argsort(ex.last_run, kind="stable"))
        got = self.seen.get(small)
        if got is None:
            self.seen[small] = [ex.issued, None]
            return None
        large = _digest(ex.V, ex.lds)
        if got[1] == large:
            return got[0]
        got[:] = [ex.issued, large]
        return None


def _digest(*arrays) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        h.update(np.ascontiguousarray(a).view(np.uint8).reshape(-1))
    return h.digest()

"""How many passes the LDS needs for one wave's access: the target's ``lds_banks`` 4-byte banks
(``isa.target``: 32 on gfx942, AMD CDNA 3 white paper / ISA guide "LDS"; 64 on gfx950) serve
one dword each per pass; a chunk of lanes whose dwords fill the banks once takes as many passes
as its busiest bank has distinct dword addresses (lanes reading one address share a broadcast).
The emulator's timing mode and ``gcnforge.lib``'s layout checks count with it."""

from __future__ import annotations

import numpy as np

from gcnforge.isa.target import target as _target


def lds_passes(addrs, nbytes: int, target: str = "gfx942") -> int:
    """LDS passes for one wave's access of ``nbytes`` per lane at byte ``addrs`` (active lanes)."""
    banks = _target(target).lds_banks
    a = np.asarray(addrs, np.int64).ravel()
    if a.size == 0:
        return 0
    dw = max(1, nbytes // 4)
    per = max(1, banks // dw)  # lanes whose dwords fill the banks once
    words = (a // 4)[:, None] + np.arange(dw)[None, :]
    total = 0
    for c in range(0, len(words), per):
        u = np.unique(words[c : c + per].ravel())
        total += int(np.bincount(u % banks, minlength=banks).max())
    return total

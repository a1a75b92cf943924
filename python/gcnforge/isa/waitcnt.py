"""``s_waitcnt``'s 16-bit immediate on gfx942: the one place its fields are packed and unpacked.

AMD Instinct MI300 (CDNA3) ISA Reference Guide, 4.4 "Data Dependency Resolution" and the
S_WAITCNT entry of the SOPP table: vmcnt is bits [3:0] (low half) and [15:14] (high half),
expcnt bits [6:4], lgkmcnt bits [11:8]; bits 7, 12 and 13 are unused. A counter at its
maximum (vmcnt 63, expcnt 7, lgkmcnt 15) waits for nothing, and LLVM prints only the counters
below their maximum (all three when none is). gfx942 has no ``s_waitcnt_vscnt`` (a gfx10+
instruction): stores count on vmcnt here.
"""

from __future__ import annotations

MAX = {"vmcnt": 63, "expcnt": 7, "lgkmcnt": 15}
COUNTERS = tuple(MAX)
USED_BITS = 0xCFFF & ~0x80  # bits 7, 12 and 13 are unused


def pack(vmcnt: int | None = None, expcnt: int | None = None, lgkmcnt: int | None = None) -> int:
    """The immediate that waits until each given counter is at most its value (None: no wait).
    Values above a counter's maximum are clamped to it (the widest wait the field holds)."""
    vm = MAX["vmcnt"] if vmcnt is None else min(vmcnt, MAX["vmcnt"])
    ex = MAX["expcnt"] if expcnt is None else min(expcnt, MAX["expcnt"])
    lgkm = MAX["lgkmcnt"] if lgkmcnt is None else min(lgkmcnt, MAX["lgkmcnt"])
    return (vm & 0xF) | (ex << 4) | (lgkm << 8) | ((vm >> 4) << 14)


def unpack(v: int) -> dict[str, int]:
    """``{"vmcnt": .., "expcnt": .., "lgkmcnt": ..}`` of an immediate (unused bits ignored)."""
    return {"vmcnt": (v & 0xF) | ((v >> 14) & 3) << 4, "expcnt": (v >> 4) & 7, "lgkmcnt": (v >> 8) & 0xF}


def is_canonical(v: int) -> bool:
    """Whether ``v`` is a 16-bit immediate that sets no unused bit."""
    return 0 <= v <= 0xFFFF and not v & ~USED_BITS


def waits(v: int) -> dict[str, int]:
    """Only the counters ``v`` actually waits on (below their maximum)."""
    return {c: n for c, n in unpack(v).items() if n < MAX[c]}


def text(v: int) -> str:
    """LLVM's spelling: ``vmcnt(0) lgkmcnt(0)``, counters at their maximum left out, all three
    when none waits."""
    c = unpack(v)
    parts = [f"{k}({n})" for k, n in c.items() if n != MAX[k]]
    return " ".join(parts) if parts else " ".join(f"{k}({n})" for k, n in c.items())

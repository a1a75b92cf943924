"""Device memory of the emulator: global allocations, and the flat address apertures.

Global memory is one NumPy ``uint8`` arena; allocations sit at distinct device addresses
``GLOBAL_BASE + arena offset`` separated by unmapped guard gaps, so an access that runs
past the end of a buffer lands in a gap (unmapped: the sanitizer reports it) instead of in
a neighbour. Addresses are above 4 GiB on purpose: kernels that truncate pointers to 32
bits fail here as they would on hardware.

Flat addresses (FLAT instructions, ISA guide "Flat Memory Instructions") resolve by their
high 32 bits: those equal to SHARED_APERTURE_HI are LDS, those equal to
PRIVATE_APERTURE_HI are scratch (per-lane private memory), everything else is global.
``s_mov_b64 s[0:1], src_shared_base`` / ``src_private_base`` read the apertures as on
gfx9 (the base is the aperture's high dword shifted up by 32).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gcnforge.diagnostics import Diagnostic

GLOBAL_BASE = 0x1_0000_0000  # first allocation at 4 GiB
GUARD = 4096  # unmapped bytes between allocations
SHARED_APERTURE_HI = 0x1000_0000  # high dword of src_shared_base (flat -> LDS)
PRIVATE_APERTURE_HI = 0x2000_0000  # high dword of src_private_base (flat -> scratch)
SHARED_BASE = SHARED_APERTURE_HI << 32
PRIVATE_BASE = PRIVATE_APERTURE_HI << 32


@dataclass
class Allocation:
    addr: int
    size: int
    offset: int  # in the arena
    live: bool = True
    name: str = ""


def _words(b: np.ndarray) -> np.ndarray:
    """A uint8 array (length a multiple of 4) seen as dwords."""
    return b.view(np.uint32)


class Memory:
    """Device allocations backed by one growing NumPy ``uint8`` arena."""

    def __init__(self, capacity: int = 1 << 20):
        self.arena = np.zeros((capacity + 3) & ~3, dtype=np.uint8)
        self.used = 0
        self.allocs: list[Allocation] = []
        # sorted parallel arrays for vectorized lookup
        self._starts = np.zeros(0, dtype=np.uint64)
        self._ends = np.zeros(0, dtype=np.uint64)
        self._live = np.zeros(0, dtype=bool)

    # ---- allocation -------------------------------------------------------------
    def alloc(self, nbytes: int, align: int = 256, name: str = "") -> int:
        if nbytes < 0 or align <= 0 or align & (align - 1):
            raise Diagnostic(f"bad allocation request: {nbytes} bytes, align {align}")
        off = self.used + GUARD
        off = (off + align - 1) // align * align
        end = off + max(nbytes, 1)
        if end > len(self.arena):
            grown = np.zeros((max(end + GUARD, 2 * len(self.arena)) + 3) & ~3, dtype=np.uint8)
            grown[: self.used] = self.arena[: self.used]
            self.arena = grown
        self.used = end
        a = Allocation(GLOBAL_BASE + off, nbytes, off, True, name)
        self.allocs.append(a)
        self._starts = np.append(self._starts, np.uint64(a.addr))
        self._ends = np.append(self._ends, np.uint64(a.addr + nbytes))
        self._live = np.append(self._live, True)
        return a.addr

    def free(self, addr: int) -> None:
        for i, a in enumerate(self.allocs):
            if a.addr == addr and a.live:
                a.live = False
                self._live[i] = False
                return
        raise Diagnostic(f"free of 0x{addr:x}: not a live allocation")

    def find(self, addr: int, n: int = 1) -> Allocation | None:
        for a in self.allocs:
            if a.live and a.addr <= addr and addr + n <= a.addr + a.size:
                return a
        return None

    # ---- host access -------------------------------------------------------------
    def write(self, addr: int, data) -> None:
        buf = np.frombuffer(bytes(data) if not isinstance(data, np.ndarray) else data.tobytes(), np.uint8)
        if self.find(addr, len(buf)) is None:
            raise Diagnostic(f"host write of {len(buf)} bytes at 0x{addr:x}: not inside a live allocation")
        o = addr - GLOBAL_BASE
        self.arena[o : o + len(buf)] = buf

    def read(self, addr: int, n: int) -> bytes:
        if self.find(addr, n) is None:
            raise Diagnostic(f"host read of {n} bytes at 0x{addr:x}: not inside a live allocation")
        o = addr - GLOBAL_BASE
        return self.arena[o : o + n].tobytes()

    # ---- device access (vectorized over lanes) -------------------------------------
    def check(self, addrs: np.ndarray, n: int) -> np.ndarray:
        """Bool per address: the ``n`` bytes at it lie inside one live allocation."""
        if len(self._starts) == 0:
            return np.zeros(addrs.shape, dtype=bool)
        a = addrs.astype(np.uint64, copy=False)
        if a.size:  # usually every lane is inside one allocation: two reductions decide it
            lo, hi = int(a.min()), int(a.max())
            j = int(np.searchsorted(self._starts, np.uint64(lo), side="right")) - 1
            if j >= 0 and self._live[j] and hi + n <= int(self._ends[j]):
                return np.ones(addrs.shape, dtype=bool)
        i = np.searchsorted(self._starts, a, side="right") - 1
        ok = i >= 0
        ic = np.clip(i, 0, None)
        ok &= self._live[ic] & (a + np.uint64(n) <= self._ends[ic]) & (a >= self._starts[ic])
        return ok

    def offsets(self, addrs: np.ndarray, n: int) -> np.ndarray:
        """Arena offsets of device addresses; addresses outside the arena are clamped to a
        scratch byte range so that a wild access never raises inside NumPy (the sanitizer,
        or the caller's ``valid`` mask, decides what to do with them)."""
        o = addrs.astype(np.int64) - GLOBAL_BASE
        bad = (o < 0) | (o + n > len(self.arena))
        if bad.any():
            o = np.where(bad, 0, o)
        return o

    def gather(self, addrs: np.ndarray, n: int, valid: np.ndarray | None = None, checked: bool = False) -> np.ndarray:
        """Bytes ``(len(addrs), n)``; lanes not ``valid`` (or unmapped) read zero. With
        ``checked`` the caller has already limited ``valid`` to mapped addresses."""
        ok = valid if checked else self.check(addrs, n) if valid is None else self.check(addrs, n) & valid
        o = np.where(ok, self.offsets(addrs, n), 0)
        if n % 4 == 0 and not (o & 3).any():  # whole aligned dwords: gather words, not bytes
            out = _words(self.arena)[(o >> 2)[:, None] + np.arange(n // 4)]
            out[~ok] = 0
            return out.view(np.uint8)
        out = self.arena[o[:, None] + np.arange(n)]
        out[~ok] = 0
        return out

    def scatter(self, addrs: np.ndarray, data: np.ndarray, valid: np.ndarray, checked: bool = False) -> None:
        """Write ``data`` ``(k, n)`` bytes at ``addrs`` where ``valid`` and mapped (later
        lanes win on overlap, as NumPy assignment does; hardware order is unspecified)."""
        n = data.shape[1]
        ok = valid if checked else valid & self.check(addrs, n)
        if not ok.any():
            return
        o = self.offsets(addrs[ok], n)
        if n % 4 == 0 and not (o & 3).any():
            _words(self.arena)[(o >> 2)[:, None] + np.arange(n // 4)] = \
                np.ascontiguousarray(data[ok]).view(np.uint32)
            return
        self.arena[o[:, None] + np.arange(n)] = data[ok]

"""Device memory of the emulator: global allocations, and the flat address apertures.

Global memory is one NumPy ``uint8`` arena; allocations sit at distinct device addresses
``GLOBAL_BASE + arena offset`` separated by guard gaps. Freed allocations are reused
(``Memory``), so an address may name a new buffer after its old one was freed, as on a
device. Addresses are above 4 GiB on purpose: kernels that truncate pointers to 32 bits fail
here as they would on hardware.

What an access past the end of an allocation does follows ROCm's allocator, which hipMalloc
reaches through ROCr's ``MemoryRegion::Allocate`` (ROCm/ROCR-Runtime,
src/core/runtime/amd_memory_region.cpp and src/core/inc/amd_memory_region.h): a request is
rounded up to ``kPageSize_`` = 4 KiB (``HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE``, the
granularity ROCclr queries); one of at most 2 MiB is a fragment of a shared, mapped 2 MiB
block (``BlockAllocator::block_size_``), a larger one is padded to a multiple of 2 MiB.
So here each allocation maps its rounded extent (``Allocation.mapped``): device loads and
stores inside it succeed, as on a GPU. A load past the extent that stays inside the heap
(the arena's used range, standing for ROCr's blocks) reads the bytes there (a gap's zeros or
the next allocation) where a GPU reads its neighbouring fragment; a store past the extent
stops the launch (``Memory.describe`` names the array), since on a GPU it overwrites another
allocation or faults. The sanitizer reports every access past an array's own size.

Flat addresses (FLAT instructions, ISA guide "Flat Memory Instructions") resolve by their
high 32 bits: those equal to SHARED_APERTURE_HI are LDS, those equal to
PRIVATE_APERTURE_HI are scratch (per-lane private memory), everything else is global.
``s_mov_b64 s[0:1], src_shared_base`` / ``src_private_base`` read the apertures as on
gfx9 (the base is the aperture's high dword shifted up by 32).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from gcnforge.diagnostics import Diagnostic

GLOBAL_BASE = 0x1_0000_0000  # first allocation at 4 GiB
GUARD = 4096  # unmapped bytes between allocations' extents
PAGE = 4096  # ROCr kPageSize_: every allocation is rounded up to it (amd_memory_region.h)
FRAGMENT_BLOCK = 2 << 20  # ROCr BlockAllocator::block_size_: larger allocations are padded to it
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
    block: int = 0  # arena offset where the allocation's block (its guard gap, then its bytes) starts

    @property
    def mapped(self) -> int:
        """Bytes a GPU maps for it: the size rounded as ROCr rounds it (module docstring)."""
        return mapped_size(self.size)


def mapped_size(nbytes: int) -> int:
    n = max(nbytes, 1)
    g = PAGE if n <= FRAGMENT_BLOCK else FRAGMENT_BLOCK
    return (n + g - 1) // g * g


def _words(b: np.ndarray) -> np.ndarray:
    """A uint8 array (length a multiple of 4) seen as dwords."""
    return b.view(np.uint32)


class Memory:
    """Device allocations backed by one NumPy ``uint8`` arena.

    Each allocation is a block of the arena: a guard gap of at least ``GUARD`` unmapped bytes,
    then its bytes (aligned as asked). Freed blocks go back to a free list (merged with free
    neighbours) and later allocations reuse them first-fit, as a device allocator reuses
    freed memory: a process that allocates and frees per launch keeps a fixed footprint
    (the arena also shrinks when its in-use top falls far below its size). Memory returned by
    ``alloc`` reads zero."""

    def __init__(self, capacity: int = 1 << 20):
        self.capacity = (capacity + 3) & ~3
        self.arena = np.zeros(self.capacity, dtype=np.uint8)
        self.used = 0  # end of the highest block in use
        self.allocs: list[Allocation] = []  # the live allocations, by address
        self._free: list[list[int]] = []  # [start, end) arena ranges below ``used`` that no block holds, sorted
        # sorted arrays of the live allocations for vectorized lookup
        self._starts = np.zeros(0, dtype=np.uint64)
        self._ends = np.zeros(0, dtype=np.uint64)  # ends of the mapped extents
        self._size_ends = np.zeros(0, dtype=np.uint64)  # ends of the arrays as allocated

    # ---- allocation -------------------------------------------------------------
    def alloc(self, nbytes: int, align: int = 256, name: str = "") -> int:
        if nbytes < 0 or align <= 0 or align & (align - 1):
            raise Diagnostic(f"bad allocation request: {nbytes} bytes, align {align}")
        span = mapped_size(nbytes)
        for i, (lo, hi) in enumerate(self._free):  # first fit in a freed range
            off = (lo + GUARD + align - 1) // align * align
            if off + span <= hi:
                if off + span == hi:
                    del self._free[i]
                else:
                    self._free[i][0] = off + span
                self.arena[off : off + span] = 0
                return self._add(Allocation(GLOBAL_BASE + off, nbytes, off, True, name, lo))
        lo = self.used
        off = (lo + GUARD + align - 1) // align * align
        end = off + span
        if end > len(self.arena):
            grown = np.zeros((max(end + GUARD, 2 * len(self.arena)) + 3) & ~3, dtype=np.uint8)
            grown[: self.used] = self.arena[: self.used]
            self.arena = grown
        else:
            self.arena[off:end] = 0  # bytes a freed top block left
        self.used = end
        return self._add(Allocation(GLOBAL_BASE + off, nbytes, off, True, name, lo))

    def _add(self, a: Allocation) -> int:
        bisect.insort(self.allocs, a, key=lambda x: x.addr)
        self._index()
        return a.addr

    def _index(self) -> None:
        self._starts = np.array([a.addr for a in self.allocs], dtype=np.uint64)
        self._ends = np.array([a.addr + a.mapped for a in self.allocs], dtype=np.uint64)
        self._size_ends = np.array([a.addr + a.size for a in self.allocs], dtype=np.uint64)

    def free(self, addr: int) -> None:
        i = bisect.bisect_left(self.allocs, addr, key=lambda x: x.addr)
        if i == len(self.allocs) or self.allocs[i].addr != addr:
            raise Diagnostic(f"free of 0x{addr:x}: not a live allocation")
        a = self.allocs.pop(i)
        a.live = False
        self._index()
        self._release(a.block, a.offset + a.mapped)

    def _release(self, lo: int, hi: int) -> None:
        """Return arena range [lo, hi) to the free list, merged with free neighbours."""
        j = bisect.bisect_left(self._free, [lo, hi])
        if j < len(self._free) and self._free[j][0] == hi:
            hi = self._free.pop(j)[1]
        if j > 0 and self._free[j - 1][1] == lo:
            j -= 1
            lo = self._free.pop(j)[0]
        if hi >= self.used:  # the top of the arena: lower it instead
            self.used = lo
            if len(self.arena) > 4 * max(self.used, self.capacity):
                self.arena = self.arena[: max(2 * self.used, self.capacity)].copy()
            return
        self._free.insert(j, [lo, hi])

    def find(self, addr: int, n: int = 1) -> Allocation | None:
        i = bisect.bisect_right(self.allocs, addr, key=lambda x: x.addr) - 1
        if i >= 0:
            a = self.allocs[i]
            if addr + n <= a.addr + a.size:
                return a
        return None

    def label(self, addr: int, name: str) -> None:
        """Name the live allocation at ``addr`` (the runtime names each after its kernel argument)."""
        a = self.find(addr)
        if a is not None and a.addr == addr:
            a.name = name

    def describe(self, addr: int, n: int) -> str:
        """Where ``n`` bytes at ``addr`` lie relative to the nearest allocation below them."""
        return self.describe_from(addr, addr, n)

    def describe_from(self, owner: int, addr: int, n: int) -> str:
        """Where ``n`` bytes at ``addr`` lie relative to the allocation that holds ``owner`` (the
        access's base pointer), or else the nearest one below ``owner``."""
        i = bisect.bisect_right(self.allocs, owner, key=lambda x: x.addr) - 1
        if i < 0:
            return f"0x{addr:x} is below every allocation"
        a = self.allocs[i]
        where = f"the {a.size}-byte allocation{f' {a.name!r}' if a.name else ''} at 0x{a.addr:x}"
        end = a.addr + a.size
        if addr < a.addr:
            return f"outside {where} ({a.addr - addr} bytes before its start)"
        if addr + n <= end:
            return f"inside {where}"
        at = f"{addr - end} bytes past its end" if addr >= end else f"runs {addr + n - end} bytes past its end"
        extra = "inside" if addr + n <= a.addr + a.mapped else "beyond"
        return f"outside {where} (offset {addr - a.addr}: {at}, {extra} its {a.mapped}-byte mapped extent)"

    def within_owner(self, addrs: np.ndarray, n: int, bases: np.ndarray, exact: bool = False) -> np.ndarray | None:
        """For accesses whose base pointer is known (a buffer resource's base, (k,) per wave):
        bool (k, 64) per lane, whether its ``n`` bytes lie in the allocation holding that base
        (its mapped extent; ``exact``: its size). Waves whose base is in no allocation get the
        plain ``check`` of every allocation; None when no base is in an allocation."""
        if len(self._starts) == 0:
            return None
        b = bases.astype(np.uint64, copy=False)
        i = np.searchsorted(self._starts, b, side="right") - 1
        ic = np.clip(i, 0, None)
        owned = (i >= 0) & (b < self._ends[ic])
        if not owned.any():
            return None
        ends = (self._size_ends if exact else self._ends)[ic][:, None]
        a = addrs.astype(np.uint64, copy=False)
        ok = (a >= self._starts[ic][:, None]) & (a + np.uint64(n) <= ends)
        if not owned.all():
            ok = np.where(owned[:, None], ok, self.check(a.reshape(-1), n, exact).reshape(a.shape))
        return ok

    def in_heap(self, addrs: np.ndarray, n: int) -> np.ndarray:
        """Bool per address: its ``n`` bytes lie in the arena's used range (ROCr's 2 MiB blocks
        stand behind it: a load there reads a neighbour on a GPU, it does not fault)."""
        a = addrs.astype(np.uint64, copy=False)
        return (a >= np.uint64(GLOBAL_BASE)) & (a + np.uint64(n) <= np.uint64(GLOBAL_BASE + self.used))

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
    def check(self, addrs: np.ndarray, n: int, exact: bool = False) -> np.ndarray:
        """Bool per address: the ``n`` bytes at it lie inside one live allocation's mapped
        extent (``exact``: inside the array's own size, for the sanitizer)."""
        if len(self._starts) == 0:
            return np.zeros(addrs.shape, dtype=bool)
        ends = self._size_ends if exact else self._ends
        a = addrs.astype(np.uint64, copy=False)
        if a.size:  # usually every lane is inside one allocation: two reductions decide it
            lo, hi = int(a.min()), int(a.max())
            j = int(np.searchsorted(self._starts, np.uint64(lo), side="right")) - 1
            if j >= 0 and hi + n <= int(ends[j]):
                return np.ones(addrs.shape, dtype=bool)
        i = np.searchsorted(self._starts, a, side="right") - 1
        ok = i >= 0
        ic = np.clip(i, 0, None)
        ok &= (a + np.uint64(n) <= ends[ic]) & (a >= self._starts[ic])
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

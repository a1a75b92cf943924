"""Device memory: distinct allocations above 4 GiB with unmapped gaps, each mapping its size
rounded as ROCr rounds it (4 KiB pages; 2 MiB blocks above 2 MiB), host copies, and the
vectorized access primitives the instructions use."""

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator.memory import GLOBAL_BASE, GUARD, Memory, mapped_size


def test_allocations_are_distinct_aligned_and_above_4gib():
    m = Memory(capacity=4096)
    addrs = [m.alloc(n, align=a) for n, a in [(10, 256), (1, 256), (5000, 4096), (0, 64)]]
    assert all(a >= GLOBAL_BASE for a in addrs)
    assert addrs[0] % 256 == 0 and addrs[2] % 4096 == 0
    for a, b in zip(addrs, addrs[1:]):
        assert b > a
    # past the array, inside its 4 KiB page (ROCr rounds a request to 4096 bytes): mapped, but not
    # inside the array itself (the sanitizer's view); the byte past the page is unmapped (guard gap)
    assert m.check(np.array([addrs[0] + 10, addrs[0] + 4095], np.uint64), 1).all()
    assert not m.check(np.array([addrs[0] + 10], np.uint64), 1, exact=True)[0]
    assert m.check(np.array([addrs[0] + 9], np.uint64), 1, exact=True)[0]
    assert not m.check(np.array([addrs[0] + 4096], np.uint64), 1)[0]
    assert not m.check(np.array([addrs[2] + 8192], np.uint64), 1)[0]  # 5000 bytes map two pages


def test_mapped_extent_follows_rocr_rounding():
    """ROCr's MemoryRegion::Allocate: AlignUp(size, 4 KiB); above the 2 MiB fragment block size,
    a multiple of 2 MiB (ROCm/ROCR-Runtime amd_memory_region.{h,cpp})."""
    assert [mapped_size(n) for n in (0, 1, 4096, 4097, 2 << 20)] == [4096, 4096, 4096, 8192, 2 << 20]
    assert mapped_size((2 << 20) + 1) == 4 << 20


def test_host_write_read_roundtrip_and_growth():
    m = Memory(capacity=1024)
    a = m.alloc(100_000)
    data = np.arange(100_000, dtype=np.uint8).tobytes()
    m.write(a, data)
    assert m.read(a, 100_000) == data
    assert m.read(a + 5, 3) == data[5:8]


def test_bad_host_access_is_a_diagnostic():
    m = Memory()
    a = m.alloc(16)
    with pytest.raises(Diagnostic):
        m.write(a + 8, b"\0" * 16)
    with pytest.raises(Diagnostic):
        m.read(a - 1, 2)
    m.free(a)
    with pytest.raises(Diagnostic):
        m.read(a, 4)
    with pytest.raises(Diagnostic):
        m.free(a)


def test_gather_scatter_masks_unmapped_lanes():
    m = Memory()
    a = m.alloc(64)
    m.write(a, bytes(range(64)))
    addrs = np.array([a, a + 60, a + 62, a + 4094, 0x10], np.uint64)
    got = m.gather(addrs, 4)
    assert got[0].tolist() == [0, 1, 2, 3] and got[1].tolist() == [60, 61, 62, 63]
    assert got[2].tolist() == [62, 63, 0, 0]  # past the array, inside its page: mapped (zeros)
    assert got[3].tolist() == [0, 0, 0, 0] and got[4].tolist() == [0, 0, 0, 0]  # straddles the page / unmapped
    m.scatter(np.array([a + 4, 0x10], np.uint64), np.array([[9, 9], [7, 7]], np.uint8), np.array([True, True]))
    assert m.read(a + 4, 2) == b"\x09\x09"


def test_freed_memory_is_reused_and_reads_zero():
    m = Memory(capacity=1 << 16)
    a = m.alloc(1000)
    m.write(a, b"\xff" * 1000)
    m.free(a)
    b = m.alloc(1000)
    assert b == a and m.read(b, 1000) == bytes(1000)  # the same block, zeroed
    size = len(m.arena)
    for n in range(1, 2000):  # allocate and free per "launch": the arena does not grow
        m.free(m.alloc(n * 37 % 5000 + 1))
    assert len(m.arena) == size and len(m.allocs) == 1


def test_free_neighbours_merge_and_the_arena_shrinks():
    m = Memory(capacity=4096)
    a, b, c = (m.alloc(10_000) for _ in range(3))
    m.free(a)
    m.free(b)
    d = m.alloc(20_000)  # fits only in a and b merged
    assert d < c
    m.free(d)
    m.free(c)
    assert m.used == 0 and not m.allocs
    big = m.alloc(64 << 20)
    m.free(big)
    assert len(m.arena) <= 4096 * 4  # not kept at 64 MiB once nothing is in use


def test_random_alloc_free_keeps_blocks_apart_aligned_and_intact():
    """Against a model of what the caller holds: live allocations never overlap, keep a guard
    gap of unmapped bytes between them, are aligned as asked, and keep their contents through
    other allocations and frees."""
    rng = np.random.default_rng(7)
    m = Memory(capacity=4096)
    live: dict[int, tuple[int, bytes]] = {}
    for step in range(600):
        if live and rng.random() < 0.45:
            addr = int(rng.choice(list(live)))
            n, data = live.pop(addr)
            assert m.read(addr, n) == data
            m.free(addr)
            continue
        n, align = int(rng.integers(0, 3000)), 1 << int(rng.integers(2, 13))
        addr = m.alloc(n, align=align)
        assert addr % align == 0 and m.read(addr, n) == bytes(n)
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        m.write(addr, data)
        live[addr] = (n, data)
        spans = sorted((a, a + mapped_size(k)) for a, (k, _) in live.items())
        for (_, end), (nxt, _) in zip(spans, spans[1:]):
            assert nxt - end >= GUARD
        assert not m.check(np.array([addr + mapped_size(n)], np.uint64), 1)[0]  # the byte past its extent
        assert not m.check(np.array([addr + max(n, 1)], np.uint64), 1, exact=True)[0]
    for addr, (n, data) in live.items():
        assert m.read(addr, n) == data

"""Device memory: distinct allocations above 4 GiB with unmapped gaps, host copies, and
the vectorized access primitives the instructions use."""

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator.memory import GLOBAL_BASE, Memory


def test_allocations_are_distinct_aligned_and_above_4gib():
    m = Memory(capacity=4096)
    addrs = [m.alloc(n, align=a) for n, a in [(10, 256), (1, 256), (5000, 4096), (0, 64)]]
    assert all(a >= GLOBAL_BASE for a in addrs)
    assert addrs[0] % 256 == 0 and addrs[2] % 4096 == 0
    for a, b in zip(addrs, addrs[1:]):
        assert b > a
    # the byte just past an allocation is unmapped (guard gap)
    assert not m.check(np.array([addrs[0] + 10], np.uint64), 1)[0]
    assert m.check(np.array([addrs[0] + 9], np.uint64), 1)[0]


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
    addrs = np.array([a, a + 60, a + 62, 0x10], np.uint64)
    got = m.gather(addrs, 4)
    assert got[0].tolist() == [0, 1, 2, 3] and got[1].tolist() == [60, 61, 62, 63]
    assert got[2].tolist() == [0, 0, 0, 0] and got[3].tolist() == [0, 0, 0, 0]  # straddles end / unmapped
    m.scatter(np.array([a + 4, 0x10], np.uint64), np.array([[9, 9], [7, 7]], np.uint8), np.array([True, True]))
    assert m.read(a + 4, 2) == b"\x09\x09"

"""The memory hierarchy's behaviour against the data-sheet capacities it models (perfmodel.memory /
timing): a read set larger than the 256 MiB Infinity Cache gets no cache reuse, the 4 MiB
L2 per XCD evicts its least recently used 128-byte line, device-scope atomics complete at
the memory side, and the reuse a sample shows. (The far-bandwidth share itself is the
model's formula, held to measurements by test_timing_mode's streaming copy and by
benchmarks/bench_timing_model.py, not restated here.)"""

from __future__ import annotations

import pytest

from gcnforge.perfmodel import profiles
from gcnforge.perfmodel.memory import MemoryModel
from gcnforge.perfmodel.timing import _reuse

P = profiles.get("mi300x")


def test_buffers_larger_than_the_infinity_cache_get_no_reuse():
    # 256 MiB Infinity Cache (data sheet): a 300 MiB read set is served by HBM alone
    m = MemoryModel(P, 304, 100.0, footprint_bytes=300 << 20)
    assert m.lat_far == P.lat_hbm
    m = MemoryModel(P, 304, 100.0, footprint_bytes=200 << 20)
    assert m.lat_far < P.lat_hbm


def test_l2_capacity_evicts():
    # 4 MiB of L2 per XCD in 128-byte lines (CDNA 3 white paper) = 32768 lines; one active CU per
    # XCD: its private lines fill the L2 alone
    m = MemoryModel(P, 8, 1.0)
    lines = 32768
    for ln in range(lines + 1):
        m.load(0.0, (ln,), 128)
    m.l1_lines.clear()
    m.load(0.0, (lines,), 128)  # the most recent line: still in L2
    assert m.hits["l2"] == 1
    m.load(0.0, (0,), 128)  # the first one was evicted (LRU)
    assert m.hits["hbm"] == lines + 2
    # 38 CUs per XCD busy: a private line of the sampled CU stands for 38, so ~862 fit
    m = MemoryModel(P, 304, 1.0)
    for ln in range(900):
        m.load(0.0, (ln,), 128)
    m.l1_lines.clear()
    m.load(0.0, (0,), 128)
    assert m.hits["l2"] == 0


def test_atomic_completes_at_the_memory_side():
    m = MemoryModel(P, 1, 1.0)
    done = m.store(0.0, (5,), 128, atomic=True)
    assert done >= P.lat_mall and 5 not in m.l2_lines


def test_reuse_of_a_sample():
    # two sampled work-groups read the same 10 lines; the grid has 100 of them and the
    # buffers read hold 10 lines: each byte is read 100 times
    st = [[(0, ("load", tuple(range(10)), 4))], [(4, ("store", (50,), 4))]]
    sample = {0: st, 304: st}
    assert _reuse(sample, 100, 128, 10 * 128) == pytest.approx(100)
    # disjoint data (footprint = everything the grid reads): 1; no footprint known: 1
    assert _reuse(sample, 100, 128, 100 * 10 * 128) == pytest.approx(1)
    assert _reuse(sample, 100, 128, None) == 1.0

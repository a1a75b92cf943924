"""The far-memory bandwidth a modelled CU gets (perfmodel.memory / timing): HBM's share when
the work-groups read disjoint data, a multiple of it when they re-read shared buffers (a
GEMM's operand panels), never more than the Infinity Cache's. Figures: the MI300X profile's
cited measured values (4.017 TB/s HBM: AMD's compute-memory-modes blog; 11.9 TB/s Infinity
Cache: Chips and Cheese) at the 2.1 GHz data-sheet clock."""

from __future__ import annotations

import pytest

from gcnforge.perfmodel import profiles
from gcnforge.perfmodel.memory import MemoryModel
from gcnforge.perfmodel.timing import _reuse

P = profiles.get("mi300x")
HBM_PER_CLK = 4.017e12 / 2.1e9
MALL_PER_CLK = 11.9e12 / 2.1e9


@pytest.mark.parametrize("reuse,per_clk", [(1.0, HBM_PER_CLK), (2.0, 2 * HBM_PER_CLK), (100.0, MALL_PER_CLK)])
def test_far_bandwidth_share(reuse, per_clk):
    m = MemoryModel(P, 304, reuse)
    assert m.hbm.rate == pytest.approx(per_clk / 304)


def test_buffers_larger_than_the_infinity_cache_get_no_reuse():
    # 256 MiB Infinity Cache (data sheet): a 300 MiB read set is served by HBM alone
    m = MemoryModel(P, 304, 100.0, footprint_bytes=300 << 20)
    assert m.hbm.rate == pytest.approx(HBM_PER_CLK / 304) and m.lat_far == P.lat_hbm
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

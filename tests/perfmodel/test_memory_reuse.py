"""The far-memory bandwidth a modelled CU gets (perfmodel.memory / timing): HBM's share when
the work-groups read disjoint data, a multiple of it when they re-read shared buffers (a
GEMM's operand panels), never more than the Infinity Cache's peak. Figures: the MI300X
profile's data-sheet values (5.3 TB/s HBM, 17.2 TB/s Infinity Cache, 2.1 GHz)."""

from __future__ import annotations

import pytest

from gcnforge.perfmodel import profiles
from gcnforge.perfmodel.memory import MemoryModel
from gcnforge.perfmodel.timing import _reuse

P = profiles.get("mi300x")
HBM_PER_CLK = 5.3e12 / 2.1e9
MALL_PER_CLK = 17.2e12 / 2.1e9


@pytest.mark.parametrize("reuse,per_clk", [(1.0, HBM_PER_CLK), (2.0, 2 * HBM_PER_CLK), (100.0, MALL_PER_CLK)])
def test_far_bandwidth_share(reuse, per_clk):
    m = MemoryModel(P, 304, reuse)
    assert m.hbm.rate == pytest.approx(per_clk / 304)


def test_reuse_of_a_sample():
    # two sampled work-groups read the same 10 lines; the grid has 100 of them and the
    # buffers read hold 10 lines: each byte is read 100 times
    st = [[(0, ("load", tuple(range(10)), 4))], [(4, ("store", (50,), 4))]]
    sample = {0: st, 304: st}
    assert _reuse(sample, 100, 128, 10 * 128) == pytest.approx(100)
    # disjoint data (footprint = everything the grid reads): 1; no footprint known: 1
    assert _reuse(sample, 100, 128, 100 * 10 * 128) == pytest.approx(1)
    assert _reuse(sample, 100, 128, None) == 1.0

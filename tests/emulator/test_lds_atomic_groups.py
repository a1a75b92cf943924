"""LDS atomics of several work-groups emulated in one batch: an LDS offset names one location
per work-group (ISA guide "LDS": each work-group has its own), so lanes of different
work-groups at the same offset must not be combined. The emulator once grouped colliding
lanes by offset alone: every work-group but one lost its own count (the fused-MoE sorting's
histograms came out wrong once its grid had more than one work-group)."""

from __future__ import annotations

import numpy as np
import pytest

from gcnforge.builder import Arg, Module
from gcnforge.lib import masked
from tests.gcnforge_lib.helpers import run


def _counter(waves: int) -> Module:
    """Each lane adds its work-group's id + 1 to LDS dword 0 (``ds_add_u32``), lane 0 of wave 0
    stores the sum to out[group]."""
    m = Module("m")
    with m.kernel("count", [Arg.ptr("out", np.uint32, access="write_only")], workgroup_size=(64 * waves, 1, 1)) as k:
        (out,) = k.args()
        wg, tid = k.block_id("x"), k.thread_id("x")
        lds = k.lds(4)
        zero = k.v_mov_b32(0)
        with masked(k, k.v_cmp_eq_u32_e64(0, tid)):
            k.ds_write_b32(k.v_add_u32(lds, zero), zero)
        k.s_waitcnt(lgkmcnt=0)
        k.s_barrier()
        k.ds_add_u32(k.v_add_u32(lds, zero), k.v_mov_b32(k.s_add_u32(wg, 1)))
        k.s_waitcnt(lgkmcnt=0)
        k.s_barrier()
        with masked(k, k.v_cmp_eq_u32_e64(0, tid)):
            v, t = k.ds_read_b32(k.v_add_u32(lds, zero))
            k.wait(t)
            k.global_store_dword(k.v_mov_b32(k.s_lshl_b32(wg, 2)), v, out)
    return m


@pytest.mark.parametrize("waves,groups", [(1, 3), (4, 5)])
def test_lds_atomic_per_work_group(waves, groups):
    out = np.zeros(groups, np.uint32)
    run(_counter(waves), "count", out, grid=(groups, 1, 1), block=(64 * waves, 1, 1))
    np.testing.assert_array_equal(out, 64 * waves * (np.arange(groups) + 1))

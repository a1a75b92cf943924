"""amdgcn-lower-loops end to end: pipelined reductions compiled and run on the emulator."""

from __future__ import annotations

import numpy as np
import pytest

from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.builder.scheduled import sched_for
from gcnforge.schedule.lower_loops import lower_loops
from gcnforge.schedule.passes import schedule_loops


def column_sum(n: int, stages: tuple[int, int], kernel_unroll: int = 1) -> Module:
    """c[tid] = sum over i < n of a[i * 64 + tid]; the load is stage ``stages[0]``, the add
    ``stages[1]``; the running address is a VGPR and the trip counter an SGPR iteration value."""
    m = Module("colsum")
    with m.kernel("colsum", [Arg.ptr("a", access="read_only"), Arg.ptr("c", access="write_only")],
                  workgroup_size=(64, 1, 1)) as k:
        a, c = k.args()
        off = k.v_lshlrev_b32(2, k.thread_id("x"))
        for L in sched_for(k, count=n, iter=[off, k.v_mov_b32(0.0), k.s_mov_b32(0)], kernel_unroll=kernel_unroll):
            addr, acc, cnt = L.values
            with L.stage(stages[0]):
                x, t = k.global_load_dword(addr, a)
                nxt = k.v_add_u32(256, addr)
                cnt2 = k.s_add_u32(cnt, 1)
            with L.stage(stages[1]):
                k.wait(t)
                acc = k.v_add_f32(acc, x)
            L.yield_(nxt, acc, cnt2)
        _, total, _ = L.results
        k.global_store_dword(off, total, c)
        k.s_endpgm()
    m.verify()
    return m


@pytest.mark.parametrize("n,stages,ku", [(7, (0, 1), 1), (9, (0, 2), 1), (10, (0, 1), 2), (3, (0, 0), 1)])
def test_pipelined_reduction_runs(n, stages, ku):
    import gcnforge.runtime as rt
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline as pl
    from gcnforge.translate import to_assembly

    m = column_sum(n, stages, ku)
    schedule_loops(m.top)
    assert lower_loops(m.top) <= 1
    m.top.verify()
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    kern = rt.load(assemble(text))["colsum"]
    a = np.arange(64 * n, dtype=np.float32) * 0.5
    c = np.zeros(64, np.float32)
    kern(a, c, grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(c, a.reshape(n, 64).sum(axis=0))


def test_scheduled_loop_must_be_expanded_first():
    m = column_sum(4, (0, 1))
    with pytest.raises(Diagnostic, match="run amdgcn-schedule first"):
        lower_loops(m.top)

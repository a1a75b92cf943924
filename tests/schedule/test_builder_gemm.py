"""The authoring API and the GEMM main loop written with it: legality, modeled MFMA
utilization naive vs scheduled, and the scheduled kernel on the emulator vs NumPy."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.loop_ops import LoopOp
from gcnforge.cli.model_input import analyze_ir
from gcnforge.builder.scheduled import sched_for
from gcnforge.schedule.expr import explicit_sched
from gcnforge.schedule.passes import schedule_loops

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))  # the kernel lives in examples/
from gemm_scheduled import NAIVE, SCHEDULED, build  # noqa: E402


def test_contexts_record_schedules():
    m = Module("t")
    with m.kernel("k", [Arg.ptr("a")], workgroup_size=(64, 1, 1)) as k:
        (a,) = k.args()
        tid = k.thread_id()
        for L in sched_for(k, count=6, dims=[3, 2], perm=[1, 0], iter=[k.v_mov_b32(0)]):
            (i, j), (acc,) = L.indices, L.values
            with L.stage(1):
                with L.at(delay=2, rate=3):
                    v, t = k.global_load_dword(tid, a)
                k.wait(t)
                acc = k.v_add_f32(v, acc)
            L.yield_(acc)
        k.global_store_dword(tid, L.results[0], a)
        k.s_endpgm()
    m.verify()
    loop = next(o for o in m.top.walk() if isinstance(o, LoopOp))
    assert loop.unroll_dims == (3, 2) and loop.order == (1, 0)
    got = [(o.name, explicit_sched(o)) for o in loop.block.ops if "sched" in o.attributes]
    assert [(s.delay, s.rate, s.stage) for _, s in got] == [(2, 3, 1), (0, 1, 1), (0, 1, 1)]


def test_yield_count_is_checked():
    m = Module("t")
    with pytest.raises(Diagnostic, match="1 iteration value") as e:
        with m.kernel("k", [], workgroup_size=(64, 1, 1)) as k:
            for L in sched_for(k, count=2, iter=[k.v_mov_b32(0)]):
                pass
    assert e.value.loc.file == __file__  # points at the author's line


def _modeled(delays, k_dim=128):
    m = build(k_dim, 64, delays)
    schedule_loops(m.top)
    assert not any(isinstance(o, LoopOp) for o in m.top.walk())
    (r,) = analyze_ir(m.top)
    return r


def test_gemm_scheduled_beats_naive_in_the_model():
    naive, sched = _modeled(NAIVE), _modeled(SCHEDULED)
    assert naive.busy["mfma"] == sched.busy["mfma"] == 16 * 32  # same work: 16 MFMAs of 32 cycles
    assert sched.cycles < 0.6 * naive.cycles
    assert sched.mfma_utilization > 1.6 * naive.mfma_utilization


def test_gemm_single_buffer_reorder_is_rejected():
    """Without the bufs statement the LDS store of step j+1 may not pass the read of j."""
    m = build(64, 64, SCHEDULED)
    for op in m.top.walk():
        op.attributes.pop("bufs", None)
    with pytest.raises(Diagnostic, match="reorders memory operations that may alias"):
        schedule_loops(m.top)


def _run(m, k_dim: int) -> str:
    import gcnforge.runtime as rt
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline as pl
    from gcnforge.schedule.lower_loops import lower_loops
    from gcnforge.translate import to_assembly

    schedule_loops(m.top)
    lower_loops(m.top)
    m.top.verify()
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    k = rt.load(assemble(text))["gemm_lds_f16"]
    rng = np.random.default_rng(k_dim)
    A = rng.standard_normal((64, k_dim)).astype(np.float16)
    B = rng.standard_normal((k_dim, 64)).astype(np.float16)
    C = np.zeros((64, 64), np.float32)
    k(A, np.ascontiguousarray(B.T), C, grid=(2, 2, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_allclose(C, A.astype(np.float32) @ B.astype(np.float32), rtol=1e-3, atol=1e-3)
    return text


@pytest.mark.parametrize("delays", [NAIVE, SCHEDULED])
def test_gemm_runs_on_emulator(delays):
    text = _run(build(64, 64, delays), 64)
    if delays == SCHEDULED:  # loads really are in flight across steps
        assert "s_waitcnt vmcnt(4)" in text


@pytest.mark.parametrize("k_dim,stages", [(128, (0, 1, 2)), (136, (0, 1, 2)), (136, (0, 3, 4))])
def test_gemm_software_pipelined_loop_runs_on_emulator(k_dim, stages):
    """Stages: prologue, a real loop (kernel_unroll k steps per iteration so nothing is
    copied at the back edge), epilogue; loads of later steps stay in flight across it.
    16 / 17 k steps: even and odd remainders."""
    text = _run(build(k_dim, 64, stages=stages), k_dim)
    ku = {(0, 1, 2): 2, (0, 3, 4): 4}[stages]
    body = text[text.index(".LBB0_1:"):text.index("s_cbranch_scc1")]
    assert body.count("v_mfma") == ku and body.count("global_load_dwordx2") == 2 * ku
    assert "vmcnt(0)" not in body and re.search(r"vmcnt\([1-9]", body)
    assert "v_mov_b32" not in body and "v_lshlrev_b64" not in body  # written in place
    trips = (k_dim // 8 - stages[2]) // ku
    assert re.search(rf"s_cmp_lt_u32 s\d+, {trips}\n", body)

"""Software pipelining (stages) of loops with run-time bounds (issue 24 item 2,
``gcnforge.schedule.expand_pipelined``): a trip-count guard (``amdgcn.if``) around prologue,
steady-state loop and epilogue, the remainder at run time. Each kernel runs on the emulator
against NumPy for trip counts 0, 1, S*P - 1, S*P, S*P + 1 (S stages, P the unroll nest), around
a whole period, a large count and an empty range, for several (stages, unroll, kernel_unroll,
delay, step) shapes. The recurrence ``acc = 3 acc + (x[i] ^ i)`` (wrapping u32) changes if any
iteration is dropped, repeated or run out of order, and reads the induction value at every
stage."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.builder import Arg, Module
from gcnforge.builder.scheduled import sched_for
from gcnforge.diagnostics import Diagnostic
from gcnforge.passes import pipeline as pl
from gcnforge.translate import to_code_object

WAVE = 64


def build(dims, stages: int, kernel_unroll: int = 1, delay: int = 1, step: int = 1) -> Module:
    """Per lane: acc over i in range(lb, ub, step) of acc = 3 acc + (x[i, lane] ^ i). The load
    is stage 0, the xor with the induction value stage ``stages // 2`` (delay ``delay``), the
    multiply-add stage ``stages``."""
    m = Module("pipe")
    args = [Arg.ptr("out", np.uint32), Arg.ptr("x", np.uint32, access="read_only"), Arg.value("lb", np.int32),
            Arg.value("ub", np.int32)]
    with m.kernel("pipe", args, workgroup_size=(WAVE, 1, 1)) as k:
        out, x, lb, ub = k.args()
        lane4 = k.v_lshlrev_b32(2, k.thread_id("x"))
        for L in sched_for(k, (lb, ub, step), dims=dims, iter=[k.v_mov_b32(0)], kernel_unroll=kernel_unroll):
            (acc,) = L.values
            with L.at(delay=0), L.stage(0):
                v, t = k.global_load_dword(k.v_add_u32(k.s_lshl_b32(L.iv, 8), lane4), x)
            with L.at(delay=delay), L.stage(stages // 2):
                k.wait(t)
                w = k.v_xor_b32(L.iv, v)
            with L.at(delay=delay), L.stage(stages):
                acc = k.v_add_u32(k.v_mul_lo_u32(acc, 3), w)
            L.yield_(acc)
        k.global_store_dword(lane4, L.results[0], out)
    return m


def reference(x: np.ndarray, lb: int, ub: int, step: int) -> np.ndarray:
    acc = np.zeros(WAVE, np.uint64)
    for i in range(lb, ub, step):
        acc = (acc * 3 + (x[i].astype(np.uint64) ^ i)) & 0xFFFFFFFF
    return acc.astype(np.uint32)


def trip_counts(S: int, P: int, L: int) -> list[int]:
    return sorted({0, 1, S * P - 1, S * P, S * P + 1, S * P + L - 1, S * P + L, S * P + 2 * L + 1, 37})


SHAPES = [  # (dims, stages, kernel_unroll, delay, step)
    ([1], 1, 1, 0, 1),
    ([1], 2, 1, 1, 1),
    ([1], 3, 2, 0, 1),
    ([2], 1, 1, 1, 1),
    ([2], 2, 2, 1, 3),
    ([3], 1, 1, 1, 2),
    ([2, 2], 1, 1, 1, 1),
]


@pytest.mark.parametrize("dims,stages,ku,delay,step", SHAPES)
def test_pipelined_runtime_loop_matches_numpy(dims, stages, ku, delay, step):
    m = build(dims, stages, ku, delay, step)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    kern = rt.load(to_code_object(m.top))["pipe"]
    P = int(np.prod(dims))
    period = int(np.lcm(P, P * ku))
    lb = 2
    for n in trip_counts(stages, P, period):
        ub = lb + (n - 1) * step + 1 if n else lb - 3  # ragged upper bound; an empty range when n = 0
        assert len(range(lb, ub, step)) == n
        x = np.random.default_rng(n).integers(0, 1 << 32, (max(ub, lb) + 1, WAVE), dtype=np.uint64).astype(np.uint32)
        out = np.zeros(WAVE, np.uint32)
        kern(out, x, lb, ub, grid=1, block=WAVE, device="emulator", sanitize=True)
        np.testing.assert_array_equal(out, reference(x, lb, ub, step), err_msg=f"trip count {n}")


def test_pipelined_structure_has_a_guard_and_a_steady_state_loop():
    """After amdgcn-schedule: the guard (amdgcn.if on s_cmp_lt_i32 with the trip count) holds the
    prologue, one run-time loop and the epilogue; the remainder loops follow it."""
    from gcnforge.dialect import IfOp, LoopOp
    from gcnforge.schedule.passes import schedule_loops

    m = build([2], 2)
    schedule_loops(m.top)
    ifs = [o for o in m.top.walk() if isinstance(o, IfOp)]
    assert len(ifs) == 1 and ifs[0].compare == "s_cmp_lt_i32"
    inner = [o for o in ifs[0].then_block.ops if isinstance(o, LoopOp)]
    assert len(inner) == 1 and inner[0].is_runtime
    loads = [o for o in ifs[0].then_block.ops if getattr(o, "mnemonic", "") == "global_load_dword"]
    assert len(loads) == 2 * 2  # the prologue: stages x nest iterations of stage 0
    after = [o for o in ifs[0].parent_block().ops if isinstance(o, LoopOp)]
    assert len(after) == 1 + (2 - 1)  # whole nests, then nest - 1 single iterations


def test_rates_above_one_still_a_located_diagnostic():
    m = Module("r")
    args = [Arg.ptr("x", np.uint32), Arg.value("n", np.int32)]
    with m.kernel("r", args, workgroup_size=(WAVE, 1, 1)) as k:
        x, n = k.args()
        line = inspect.currentframe().f_lineno + 1
        for L in sched_for(k, (0, n, 1), dims=[2], iter=[k.v_mov_b32(0)]):
            (acc,) = L.values
            with L.at(delay=0, rate=2), L.stage(1):
                acc = k.v_add_u32(acc, k.v_mov_b32(L.iv))
            L.yield_(acc)
    with pytest.raises(Diagnostic, match="rates above 1 in a loop with run-time bounds") as e:
        pl.run(m.top, pl.parse(pl.DEFAULT))
    assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


def test_legality_still_checked_at_the_authors_line():
    """A use scheduled in an earlier stage than its definition is refused as before."""
    m = Module("l")
    args = [Arg.ptr("x", np.uint32), Arg.value("n", np.int32)]
    with m.kernel("l", args, workgroup_size=(WAVE, 1, 1)) as k:
        x, n = k.args()
        for L in sched_for(k, (0, n, 1), iter=[k.v_mov_b32(0)]):
            (acc,) = L.values
            with L.stage(1):
                a = k.v_mov_b32(L.iv)
            with L.stage(0):
                line = inspect.currentframe().f_lineno + 1
                acc = k.v_add_u32(acc, a)
            L.yield_(acc)
    with pytest.raises(Diagnostic) as e:
        pl.run(m.top, pl.parse(pl.DEFAULT))
    assert e.value.loc.file == __file__ and e.value.loc.line in (line, line - 3)


@pytest.mark.parametrize("pipelined", [False, True])
def test_four_dword_iteration_value_merged_and_carried(pipelined):
    """A 4-VGPR iteration value built by k.concat (no instruction to write the storage in
    place): the loop lowering and the guard's merge copy it one dword at a time (they
    reported it before). acc += x[i] (dwordx4 per lane), trip counts around the stages."""
    m = Module("w")
    args = [Arg.ptr("out", np.uint32), Arg.ptr("x", np.uint32, access="read_only"), Arg.value("n", np.int32)]
    with m.kernel("w", args, workgroup_size=(WAVE, 1, 1)) as k:
        out, x, n = k.args()
        lane16 = k.v_lshlrev_b32(4, k.thread_id("x"))
        acc0 = k.concat(*[k.v_mov_b32(0) for _ in range(4)])
        for L in sched_for(k, (0, n, 1), iter=[acc0]):
            (acc,) = L.values
            with L.stage(0):
                v, t = k.global_load_dwordx4(k.v_add_u32(k.s_lshl_b32(L.iv, 10), lane16), x)
            with L.stage(1 if pipelined else 0):
                k.wait(t)
                acc = k.concat(*[k.v_add_u32(p, q) for p, q in zip(acc.split(), v.split())])
            L.yield_(acc)
        k.global_store_dwordx4(lane16, L.results[0], out)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    kern = rt.load(to_code_object(m.top))["w"]
    for n in (0, 1, 2, 3, 9):
        x = np.random.default_rng(n).integers(0, 1 << 32, (max(n, 1), WAVE, 4), dtype=np.uint64).astype(np.uint32)
        o = np.zeros((WAVE, 4), np.uint32)
        kern(o, x, n, grid=1, block=WAVE, device="emulator", sanitize=True)
        np.testing.assert_array_equal(o, x[:n].sum(axis=0, dtype=np.uint32), err_msg=f"trip count {n}")

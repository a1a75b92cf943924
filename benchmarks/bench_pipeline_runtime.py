"""Software pipelining of a loop with run-time bounds, under the timing model (issue 24).

``examples/runtime_bounds.py``'s row sum two ways, the same binary module: ``row_sum`` (a
plain run-time loop: each chunk's buffer load is waited for before its add) and
``row_sum_pipelined`` (the same loop scheduled with the add one stage after the load, nest 2,
``kernel_unroll=2``: ``gcnforge.schedule.expand_pipelined``), and between them
``row_sum_unrolled`` (the pipelined loop without its stage: same unroll and delays, built
here), so the pipelining's own share shows. All run on the emulator's timing
mode (MI300X profile) over ``--rows`` rows of ``--cols`` f32 columns (a run-time argument);
every work-group the timing mode ran is checked against NumPy. Printed: each kernel's modeled
microseconds and its ratio to the plain loop's (the anchor, in the same run).

    python benchmarks/bench_pipeline_runtime.py [--rows 1216] [--cols 16384]
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np

import gcnforge.runtime as rt
from gcnforge.passes import pipeline as pl
from gcnforge.translate import to_code_object

ROOT = Path(__file__).resolve().parents[1]


def build() -> bytes:
    spec = importlib.util.spec_from_file_location("runtime_bounds", ROOT / "examples" / "runtime_bounds.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = mod.build()
    unrolled(m, mod)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    return to_code_object(m.top)


def unrolled(m, ex) -> None:
    """``row_sum_pipelined`` without its stage: the same nest 2 and kernel_unroll 2, each add
    one nest step after its load (delays), so only the pipelining differs."""
    from gcnforge.builder import Arg
    from gcnforge.builder.scheduled import sched_for
    from gcnforge.lib import buffer_load, wave_reduce

    args = [Arg.ptr("out", np.float32), Arg.ptr("a", np.float32, access="read_only"), Arg.value("cols", np.int32)]
    with m.kernel("row_sum_unrolled", args, workgroup_size=(64, 1, 1)) as k:
        out, a, cols = k.args()
        rsrc, lane = ex._row(k, a, cols)
        for L in sched_for(k, (0, cols, 64), dims=[2], iter=[k.v_mov_b32(0)], kernel_unroll=2):
            (acc,) = L.values
            with L.at(delay=0):
                v, t = buffer_load(k, rsrc, k.v_add_u32(k.s_lshl_b32(L.iv, 2), lane))
            with L.at(delay=1):
                k.wait(t)
                acc = k.v_add_f32(acc, v)
            L.yield_(acc)
        k.global_store_dword(k.v_mov_b32(k.s_lshl_b32(k.block_id("x"), 2)), wave_reduce(k, L.results[0], "add"), out)


def run(kern, a: np.ndarray, profile: str) -> float:
    rows, cols = a.shape
    out = np.full(rows, np.nan, np.float32)
    res = kern(out, a, cols, grid=rows, block=64, device="emulator", timing=profile)
    ids = list(res.timing.sampled_ids)
    np.testing.assert_allclose(out[ids], a[ids].sum(axis=1), rtol=1e-4, atol=1e-3)
    return res.timing.us


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1216)
    ap.add_argument("--cols", type=int, default=16384)
    ap.add_argument("--profile", default="MI300X")
    a = ap.parse_args(argv)
    mod = rt.load(build())
    x = np.random.default_rng(0).standard_normal((a.rows, a.cols)).astype(np.float32)
    plain = run(mod["row_sum"], x, a.profile)
    unroll = run(mod["row_sum_unrolled"], x, a.profile)
    piped = run(mod["row_sum_pipelined"], x, a.profile)
    print(f"row sum {a.rows} x {a.cols} f32, {a.profile} timing model, sampled work-groups checked vs NumPy")
    print(f"  row_sum (plain run-time loop)                 {plain:10.2f} us   1.00")
    print(f"  row_sum_unrolled (nest 2, delays, no stage)   {unroll:10.2f} us   {unroll / plain:.2f}")
    print(f"  row_sum_pipelined (the same with stage 1)     {piped:10.2f} us   {piped / plain:.2f}")


if __name__ == "__main__":
    main()

"""Kernels whose sizes are run-time arguments (issue 24): loops with run-time bounds
(``k.loop(lb, ub, step)`` over SGPR values, zero trips when ``lb >= ub``), typed arguments
(an f32 ``alpha`` given on the command line), and buffer loads and stores whose ragged tails
the hardware clamps (``gcnforge.lib``).

* ``saxpy``: ``y[i] = alpha * x[i] + y[i]`` for ``i < n``: one work-group walks the vector
  in chunks of 64 (a run-time trip count of ceil(n / 64)); the last chunk's lanes past ``n``
  are clamped by the buffer resource (loads read 0, stores are dropped).
* ``row_sum``: ``out[r] = sum(a[r, :cols])``: one work-group per row, a loop over the row's
  ``cols`` columns (run time) in steps of 64, then a wave reduction.
* ``row_sum_pipelined``: the same loop software-pipelined on its run-time bounds: each chunk's
  load is issued a stage (two unrolled chunks) before the add that consumes it, so loads stay
  in flight across the loop's back edge. ``amdgcn-schedule`` guards the prologue / steady
  state / epilogue with the trip count (an ``amdgcn.if``) and runs the rest (and rows shorter
  than the pipeline) as a plain remainder, so any ``cols`` is right.

::

    gcnforge compile examples/runtime_bounds.py -o rb.hsaco
    gcnforge run rb.hsaco saxpy --grid 1 --block 64 -a y=ones:1000:f32 -a x=arange:1000:f32 -a alpha=2.0 -a n=1000
    gcnforge run rb.hsaco row_sum_pipelined --grid 3 --block 64 -a out=zeros:3:f32 -a a=arange:3000:f32 -a cols=1000
"""

import numpy as np

from gcnforge.builder import Arg, Module
from gcnforge.builder.scheduled import sched_for
from gcnforge.lib import buffer_load, buffer_store, make_buffer_rsrc, wave_reduce

WAVE = 64
f32 = np.float32


def build() -> Module:
    m = Module("runtime_bounds")
    saxpy(m)
    row_sum(m)
    row_sum_pipelined(m)
    return m


def saxpy(m: Module) -> None:
    args = [Arg.ptr("y", f32), Arg.ptr("x", f32, access="read_only"), Arg.value("alpha", f32),
            Arg.value("n", np.int32)]
    with m.kernel("saxpy", args, workgroup_size=(WAVE, 1, 1)) as k:
        y, x, alpha, n = k.args()
        nbytes = k.s_lshl_b32(n, 2)
        ry, rx = make_buffer_rsrc(k, y, nbytes), make_buffer_rsrc(k, x, nbytes)
        lane = k.v_lshlrev_b32(2, k.thread_id("x"))
        with k.loop(0, n, WAVE) as body:  # chunk = body.iv: 0, 64, ... < n (zero trips when n <= 0)
            off = k.v_add_u32(k.s_lshl_b32(body.iv, 2), lane)
            xv, tx = buffer_load(k, rx, off)
            yv, ty = buffer_load(k, ry, off)
            k.wait(tx, ty)
            buffer_store(k, k.v_fma_f32(alpha, xv, yv), ry, off)


def _row(k, a, cols):
    """This work-group's row of ``a`` as a buffer resource (lanes past ``cols`` read 0) and
    each lane's byte offset in a chunk."""
    row_bytes = k.s_lshl_b32(cols, 2)
    start = k.s_mul_i32(k.block_id("x"), row_bytes)  # this row's byte offset in a
    lo, hi = a.split()
    row = k.concat(k.s_add_u32(lo, start), k.s_addc_u32(hi, 0))  # the row's address
    return make_buffer_rsrc(k, row, row_bytes), k.v_lshlrev_b32(2, k.thread_id("x"))


def row_sum(m: Module) -> None:
    args = [Arg.ptr("out", f32), Arg.ptr("a", f32, access="read_only"), Arg.value("cols", np.int32)]
    with m.kernel("row_sum", args, workgroup_size=(WAVE, 1, 1)) as k:
        out, a, cols = k.args()
        rsrc, lane = _row(k, a, cols)
        acc0 = k.v_mov_b32(0)
        with k.loop(0, cols, WAVE, [acc0]) as body:
            (acc,) = body.args
            v, t = buffer_load(k, rsrc, k.v_add_u32(k.s_lshl_b32(body.iv, 2), lane))
            k.wait(t)
            body.next(k.v_add_f32(acc, v))
        total = wave_reduce(k, body.results[0], "add")
        k.global_store_dword(k.v_mov_b32(k.s_lshl_b32(k.block_id("x"), 2)), total, out)


def row_sum_pipelined(m: Module) -> None:
    args = [Arg.ptr("out", f32), Arg.ptr("a", f32, access="read_only"), Arg.value("cols", np.int32)]
    with m.kernel("row_sum_pipelined", args, workgroup_size=(WAVE, 1, 1)) as k:
        out, a, cols = k.args()
        rsrc, lane = _row(k, a, cols)
        # two chunks per unrolled body; the add (stage 1) runs one body after its load (stage 0);
        # kernel_unroll=2: two bodies per steady-state iteration, so the loaded values need no
        # copies at the back edge
        for L in sched_for(k, (0, cols, WAVE), dims=[2], iter=[k.v_mov_b32(0)], kernel_unroll=2):
            (acc,) = L.values
            with L.at(delay=0), L.stage(0):
                v, t = buffer_load(k, rsrc, k.v_add_u32(k.s_lshl_b32(L.iv, 2), lane))
            with L.at(delay=1), L.stage(1):
                k.wait(t)
                acc = k.v_add_f32(acc, v)
            L.yield_(acc)
        total = wave_reduce(k, L.results[0], "add")
        k.global_store_dword(k.v_mov_b32(k.s_lshl_b32(k.block_id("x"), 2)), total, out)


if __name__ == "__main__":
    print(build())

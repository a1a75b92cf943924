"""A GEMM main loop written once with the scheduling constructs, rescheduled by numbers.

C[M, N] (f32) = A[M, K] (f16) @ B[K, N] (f16), one wave per 32 x 32 tile, B passed
transposed (``bt``: N x K). Lane ``l`` owns row ``l % 32`` of the A tile (column of the B
tile) and k values ``4 * (l // 32) .. +3`` of each 8-deep step: the operand layout of
``v_mfma_f32_32x32x8_f16`` (AMD Matrix Instruction Calculator, CDNA3; the same layout as
``examples/gemm_mfma_f16.py``). Each k step is one loop iteration:

1. **global**: ``global_load_dwordx2`` of the lane's A and B pieces (offsets advance as
   iteration values);
2. **LDS**: wait, ``ds_write_b64`` into LDS buffer ``j mod 2`` (double buffering: the two
   buffer addresses are iteration values that swap every iteration), wait, ``s_barrier``;
3. **MFMA**: ``ds_read_b64`` back from buffer ``j mod 2``, wait, ``v_mfma_f32_32x32x8_f16``
   accumulating in place.

(Every lane reads back what it wrote, so the LDS round trip is an identity: the point is
the global -> LDS -> MFMA pipeline a real kernel has, with its waits, barrier and buffers.)

``build(k_dim, n_dim, delays=(0, 0, 0))`` is the naive order (each step completes before
the next); ``delays=(0, 2, 3)`` issues global loads two steps and LDS reads one step
ahead of the MFMA that needs them. The schedule is the three numbers; the body is the same.
The ``bufs`` attributes tell the legality check which LDS buffer each op touches.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import DenseArrayBase, i64

from gcnforge.builder import Arg, Module
from gcnforge.builder.scheduled import sched_for
from gcnforge.lib import store_result_tile

TILE = 32
KSTEP = 8
NAIVE = (0, 0, 0)
SCHEDULED = (0, 2, 3)


def _double_buffered(*ops_results) -> None:
    for r in ops_results:
        op = r.value.owner if hasattr(r, "value") else r
        op.attributes["bufs"] = DenseArrayBase.from_list(i64, [2, 0])


def build(k_dim: int = 64, n_dim: int = 64, delays: tuple[int, int, int] = NAIVE,
          name: str = "gemm_lds_f16", stages: tuple[int, int, int] | None = None) -> Module:
    """``delays``: interleave inside the fully unrolled nest (straight-line code).
    ``stages``: software-pipeline instead (prologue, a kernel ``amdgcn.loop``, epilogue;
    the loop is not unrolled, ``amdgcn-lower-loops`` turns the kernel into a real loop)."""
    if k_dim % KSTEP or n_dim % TILE:
        raise ValueError(f"K must be a multiple of {KSTEP} and N of {TILE}")
    steps = k_dim // KSTEP
    d_glob, d_lds, d_mfma = delays
    m = Module(name)
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("bt", access="read_only"), Arg.ptr("c", access="write_only")]
    with m.kernel(name, args, workgroup_size=(64, 1, 1)) as k:
        a, bt, c = k.args()
        lds = k.lds(2 * 1024)  # two buffers of (A 512 B + B 512 B)
        lane = k.thread_id("x")
        row = k.v_and_b32(TILE - 1, lane)
        half = k.v_lshrrev_b32(5, lane)
        tile_n = k.s_lshl_b32(k.block_id("x"), 5)
        tile_m = k.s_lshl_b32(k.block_id("y"), 5)
        k_sgpr = k.s_mov_b32(k_dim)
        kofs = k.v_lshlrev_b32(3, half)
        a_off0 = k.v_add_u32(k.v_lshlrev_b32(1, k.v_mul_lo_u32(k.v_add_u32(tile_m, row), k_sgpr)), kofs)
        b_off0 = k.v_add_u32(k.v_lshlrev_b32(1, k.v_mul_lo_u32(k.v_add_u32(tile_n, row), k_sgpr)), kofs)
        buf0 = k.v_add_u32(lds, k.v_lshlrev_b32(3, lane))
        buf1 = k.v_add_u32(1024, buf0)
        zero = k.v_mov_b32(0)
        if stages:
            # the accumulator crosses a real loop: an instruction must produce it (so the
            # loop's storage can be written in place): 0 * 0 + 0 with one MFMA
            acc0 = k.v_mfma_f32_32x32x8_f16(k.concat(zero, zero), k.concat(zero, zero), 0)
        else:
            acc0 = k.concat(*[zero] * 16)  # the accumulator tile starts at 0

        nest = [] if stages else [steps]
        s_glob, s_lds, s_mfma = stages or (0, 0, 0)
        # pipelined: enough k steps per kernel iteration that loaded tiles (alive for
        # s_lds - s_glob steps) and the two LDS buffer addresses rotate through registers
        # instead of being copied at the back edge (modulo variable expansion)
        ku = math.lcm(2, s_lds - s_glob + 1) if stages else 1
        for L in sched_for(k, count=steps, dims=nest, iter=[a_off0, b_off0, buf0, buf1, acc0], kernel_unroll=ku):
            a_off, b_off, cur, nxt, acc = L.values
            with L.at(delay=d_glob), L.stage(s_glob):
                av, ta = k.global_load_dwordx2(a_off, a)
                bv, tb = k.global_load_dwordx2(b_off, bt)
                a_next = k.v_add_u32(2 * KSTEP, a_off)
                b_next = k.v_add_u32(2 * KSTEP, b_off)
            with L.at(delay=d_lds), L.stage(s_lds):
                k.wait(ta, tb)
                wa = k.ds_write_b64(cur, av)
                wb = k.ds_write_b64(cur, bv, offset=512)
                k.wait(wa, wb)
                k.s_barrier()
                bar = k.block.last_op
            with L.at(delay=d_mfma), L.stage(s_mfma):
                ra, tra = k.ds_read_b64(cur)
                rb, trb = k.ds_read_b64(cur, offset=512)
                k.wait(tra, trb)
                acc = k.v_mfma_f32_32x32x8_f16(ra, rb, acc)
            _double_buffered(wa, wb, bar, tra, trb)
            L.yield_(a_next, b_next, nxt, cur, acc)
        (_, _, _, _, acc) = L.results

        # C: the MFMA's result layout (register j of lane l: row 8 * (j // 4) + 4 * (l // 32) + j % 4,
        # column l % 32), applied by gcnforge.lib
        store_result_tile(k, acc, c, tile_m, tile_n, n_dim, "v_mfma_f32_32x32x8_f16")
        k.s_endpgm()
    m.verify()
    return m

"""The LDS-staged MFMA GEMM of ``gemm_lds`` with its main loop written once with the
scheduling constructs (``gcnforge.schedule.sched_for``) and software-pipelined into a real
loop by the ``amdgcn-schedule`` + ``amdgcn-lower-loops`` passes.

One loop iteration handles one K tile of ``tk`` bytes (the byte view of ``gemm_lds``: f16,
bf16 or fp8 inputs, f32 accumulation and output; work-group of ``wm x wn`` waves, 32 x 32
C block per wave; A row-major, B transposed). The body has two pipeline stages:

* stage 0: ``global_load_dwordx4`` of the work-item's 16-byte chunks of the A and B tiles
  (their offsets are iteration values advancing by ``tk``);
* stage 1: wait for them, ``ds_write_b128`` into LDS buffer ``t mod 2`` (the buffer's byte
  offset is an iteration value swapped every iteration; ``bufs`` tells the legality check),
  ``s_barrier``, ``ds_read_b64`` of the wave's MFMA operands, ``v_mfma`` accumulating in
  place.

``amdgcn-schedule`` puts stage 0 of tile t+1 before stage 1 of tile t (the next tile's
global loads are in flight while the matrix core works on this one) and emits a prologue,
a loop kernel (two tiles per trip, so the double buffer rotates without copies) and an
epilogue. One barrier per tile is enough with two buffers (a buffer is rewritten only after
every wave passed the barrier that follows its previous reads).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, i64

from gcnforge.builder import Arg, Module
from gcnforge.builder.scheduled import sched_for
from gcnforge.lib import store_result_tile
from gemm_lds import ESIZE, KSTEP_BYTES, MFMA


def _bufs(*results) -> None:
    for r in results:
        op = r.value.owner if hasattr(r, "value") else r
        op.attributes["bufs"] = DenseArrayBase.from_list(i64, [2, 0])


def kernel_name(dtype: str, wm: int, wn: int, tk: int) -> str:
    return f"gemm_pipe_{dtype}_f32_{32 * wm}x{32 * wn}x{tk // ESIZE[dtype]}"


def build(k_dim: int = 128, n_dim: int = 64, dtype: str = "f16", wm: int = 2, wn: int = 2, tk: int = 64,
          name: str | None = None) -> Module:
    es = ESIZE[dtype]
    kb = k_dim * es
    if kb % tk or n_dim % (32 * wn) or tk % KSTEP_BYTES or kb // tk < 2:
        raise ValueError(f"K*{es} must be a multiple of tk={tk} (at least two tiles), N of {32 * wn}")
    threads, tm, tn = 64 * wm * wn, 32 * wm, 32 * wn
    if (tm * tk // 16) % threads or (tn * tk // 16) % threads:
        raise ValueError("tile too small for the work-group's 16-byte loads")
    a_bytes, buf_bytes = tm * tk, (tm + tn) * tk
    name = name or kernel_name(dtype, wm, wn, tk)
    m = Module(name)
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("bt", access="read_only"), Arg.ptr("c", access="write_only")]
    with m.kernel(name, args, workgroup_size=(threads, 1, 1)) as k:
        a, bt, c = k.args()
        lds = k.lds(2 * buf_bytes)
        tid = k.thread_id("x")
        bx, by = k.block_id("x"), k.block_id("y")
        row0_m = k.s_mul_i32(by, k.s_mov_b32(tm))
        col0_n = k.s_mul_i32(bx, k.s_mov_b32(tn))
        kb_s = k.s_mov_b32(kb)
        cpr = tk // 16

        def stage_offsets(nchunks, row0, lds_base):
            g, l = [], []
            for i in range(nchunks // threads):
                ch = k.v_add_u32(k.s_mov_b32(i * threads), tid) if i else tid
                r = k.v_lshrrev_b32(cpr.bit_length() - 1, ch)
                cb = k.v_lshlrev_b32(4, k.v_and_b32(cpr - 1, ch))
                g.append(k.v_add_u32(k.v_mul_lo_u32(k.v_add_u32(row0, r), kb_s), cb))
                l.append(k.v_add_u32(lds_base, k.v_add_u32(k.v_mul_u32_u24(tk, r), cb)))
            return g, l

        ga, la = stage_offsets(tm * tk // 16, row0_m, k.v_mov_b32(lds))
        gb, lb = stage_offsets(tn * tk // 16, col0_n, k.v_add_u32(k.s_mov_b32(a_bytes), k.v_mov_b32(lds)))

        wave = k.v_readfirstlane_b32(k.v_lshrrev_b32(6, tid))
        wave_m = k.s_lshr_b32(wave, wn.bit_length() - 1)
        wave_n = k.s_and_b32(wn - 1, wave)
        lane = k.v_and_b32(63, tid)
        r32 = k.v_and_b32(31, lane)
        half8 = k.v_lshlrev_b32(3, k.v_lshrrev_b32(5, lane))
        rd_a = k.v_add_u32(lds, k.v_add_u32(half8, k.v_mul_u32_u24(tk, k.v_add_u32(k.s_lshl_b32(wave_m, 5), r32))))
        rd_b = k.v_add_u32(k.s_mov_b32(a_bytes), k.v_add_u32(lds, k.v_add_u32(
            half8, k.v_mul_u32_u24(tk, k.v_add_u32(k.s_lshl_b32(wave_n, 5), r32)))))

        zero = k.v_mov_b32(0)
        # the accumulator crosses a real loop, so an instruction must produce it (its loop
        # storage is then written in place): one MFMA of zeros
        acc0 = k.inst(MFMA[dtype], k.concat(zero, zero), k.concat(zero, zero), 0)
        buf0, buf1 = k.v_mov_b32(0), k.v_mov_b32(k.s_mov_b32(buf_bytes))
        nga = len(ga)
        offs0 = ga + gb
        for L in sched_for(k, count=kb // tk, iter=[*offs0, buf0, buf1, acc0], kernel_unroll=2):
            *offs, cur, nxt, acc = L.values
            with L.stage(0):
                loads = [k.global_load_dwordx4(o, a if i < nga else bt) for i, o in enumerate(offs)]
                nexts = [k.v_add_u32(tk, o) for o in offs]
            with L.stage(1):
                k.wait(*[t for _, t in loads])
                ws = [k.ds_write_b128(k.v_add_u32(cur, addr), v) for addr, (v, _) in zip(la + lb, loads)]
                k.wait(*ws)
                k.s_barrier()
                bar = k.block.last_op
                ra, rb = k.v_add_u32(cur, rd_a), k.v_add_u32(cur, rd_b)
                reads = [(k.ds_read_b64(ra, offset=s * KSTEP_BYTES), k.ds_read_b64(rb, offset=s * KSTEP_BYTES))
                         for s in range(tk // KSTEP_BYTES)]
                for (av, ta), (bv, tb) in reads:
                    k.wait(ta, tb)
                    acc = k.inst(MFMA[dtype], av, bv, acc)
            _bufs(*ws, bar, *[t for pair in reads for _, t in pair])
            L.yield_(*nexts, nxt, cur, acc)
        acc = L.results[-1]

        # the wave's 32x32 tile of C, in the MFMA's result layout (gcnforge.lib)
        store_result_tile(k, acc, c, k.s_add_u32(row0_m, k.s_lshl_b32(wave_m, 5)),
                          k.s_add_u32(col0_n, k.s_lshl_b32(wave_n, 5)), n_dim, MFMA[dtype])
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

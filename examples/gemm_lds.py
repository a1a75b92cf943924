"""GEMM with MFMA, tiles staged through LDS with double buffering.

``C[M, N] = scale * A[M, K] @ B[K, N]`` with A row-major and B passed transposed (``bt``,
N x K row-major), so both operands are read along K. Input types and their MFMA
(AMD Matrix Instruction Calculator, CDNA3):

=======  ===============================  =====================  ==========================
dtype    instruction                      k per MFMA             A/B element of lane l
=======  ===============================  =====================  ==========================
f16      v_mfma_f32_32x32x8_f16           8 (4 per lane)         row l%32, k 4*(l//32)+0..3
bf16     v_mfma_f32_32x32x8_bf16 (1k)     8 (4 per lane)         same
fp8      v_mfma_f32_32x32x16_fp8_fp8      16 (8 per lane)        row l%32, k 8*(l//32)+0..7
=======  ===============================  =====================  ==========================

In bytes the three are the same: each MFMA consumes 16 bytes of every A row and B column,
lane ``l`` holding bytes ``8 * (l // 32) .. +7``. The kernel is therefore written in bytes
of K and works for all three (``tk`` = bytes of K per main-loop iteration, default 64: 32
f16/bf16 or 64 fp8 values).

Work-group: ``wm x wn`` waves, each computing a 32 x 32 block of the ``32 wm x 32 wn`` C
tile (16 f32 accumulators per lane; result register j of lane l is row
``8 * (j // 4) + 4 * (l // 32) + j % 4``, column ``l % 32``). Per K tile:

1. every work-item loads 16-byte chunks of the A and B tiles with ``global_load_dwordx4``
   (the next tile's loads are issued before this tile's MFMAs, so they are in flight
   while the matrix core works: software pipelining by one stage);
2. the MFMA phase reads its operands from LDS buffer ``t % 2`` (all ``ds_read_b64`` of the
   tile issued first, each MFMA waiting only for its own two: the wait pass turns the token
   waits into decreasing ``lgkmcnt``);
3. the staged registers go to the other LDS buffer with ``ds_write_b128``, then one
   ``s_barrier``: with two buffers one barrier per tile suffices (a buffer is rewritten
   only after every wave passed the barrier that follows its last reads).

The interleaving is written explicitly at Python level (the loop over K tiles unrolls), not
with ``gcnforge.schedule``: K and N are compile-time parameters of ``build``.

Variants: ``out="bf16"`` rounds the f32 result to bfloat16 (round to nearest even; NaN not
preserved) and stores the high halves with ``global_store_short_d16_hi``; ``splitk=s``
gives work-group z of the grid the K range ``[z K / s, (z + 1) K / s)`` and accumulates into
C (which must hold zeros) with ``buffer_atomic_add_f32`` (no return; ``atomic="global"``:
``global_atomic_add_f32``); ``dtype="fp8"`` (e4m3, the gfx942
"fnuz" format: bias 8, no infinities, 0x80 = NaN) takes per-tensor f32 scales ``scale_a``,
``scale_b`` and multiplies the accumulators by their product.

grid = (N / (32 wn), M / (32 wm), splitk), block = 64 wm wn.
"""

from __future__ import annotations

from pathlib import Path

from gcnforge.builder import Arg, Module
from gcnforge.lib import make_buffer_rsrc

MFMA = {"f16": "v_mfma_f32_32x32x8_f16", "bf16": "v_mfma_f32_32x32x8_bf16", "fp8": "v_mfma_f32_32x32x16_fp8_fp8"}
ESIZE = {"f16": 2, "bf16": 2, "fp8": 1}
KSTEP_BYTES = 16  # bytes of K per MFMA per row/column


def kernel_name(dtype: str, out: str, wm: int, wn: int, tk: int, splitk: int = 1) -> str:
    tkel = tk // ESIZE[dtype]
    sk = f"_splitk{splitk}" if splitk > 1 else ""
    return f"gemm_lds_{dtype}_{out}_{32 * wm}x{32 * wn}x{tkel}{sk}"


def _add64(k, ptr, sofs):
    lo, hi = ptr.split()
    return k.concat(k.s_add_u32(lo, sofs), k.s_addc_u32(hi, 0))


def build(k_dim: int = 64, n_dim: int = 64, dtype: str = "f16", out: str = "f32", wm: int = 2, wn: int = 2,
          tk: int = 64, splitk: int = 1, name: str | None = None, atomic: str = "buffer") -> Module:
    es = ESIZE[dtype]
    kb = k_dim * es  # bytes of one A row / B column
    if kb % (tk * splitk) or n_dim % (32 * wn) or tk % KSTEP_BYTES:
        raise ValueError(f"K*{es} must be a multiple of tk*splitk={tk * splitk}, N of {32 * wn}")
    if out not in ("f32", "bf16") or (splitk > 1 and out != "f32"):
        raise ValueError("out is f32 or bf16; split-K accumulates with f32 atomics")
    threads = 64 * wm * wn
    tm, tn = 32 * wm, 32 * wn
    chunks_a, chunks_b = tm * tk // 16, tn * tk // 16
    if chunks_a % threads or chunks_b % threads:
        raise ValueError("tile too small for the work-group's 16-byte loads")
    a_bytes, b_bytes = tm * tk, tn * tk
    buf_bytes = a_bytes + b_bytes
    tiles = kb // (tk * splitk)
    if atomic not in ("buffer", "global"):
        raise ValueError("atomic is buffer or global")
    name = name or kernel_name(dtype, out, wm, wn, tk, splitk) + ("_global" if splitk > 1 and atomic == "global" else "")

    m = Module(name)
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("bt", access="read_only"), Arg.ptr("c")]
    if dtype == "fp8":
        args += [Arg.value("scale_a"), Arg.value("scale_b")]
    with m.kernel(name, args, workgroup_size=(threads, 1, 1)) as k:
        if dtype == "fp8":
            a, bt, c, sa, sb = k.args()
        else:
            a, bt, c = k.args()
        lds = k.lds(2 * buf_bytes)
        tid = k.thread_id("x")
        bx, by = k.block_id("x"), k.block_id("y")
        row0_m = k.s_mul_i32(by, k.s_mov_b32(tm))  # first row of the C tile
        col0_n = k.s_mul_i32(bx, k.s_mov_b32(tn))
        kb_s = k.s_mov_b32(kb)
        if splitk > 1:  # this work-group's K range starts kb / splitk bytes further per z
            kofs = k.s_mul_i32(k.block_id("z"), k.s_mov_b32(kb // splitk))
            a, bt = _add64(k, a, kofs), _add64(k, bt, kofs)

        # -- global -> register staging: chunk ch = tid + i * threads of each tile
        cpr = tk // 16  # 16-byte chunks per tile row

        def stage_offsets(nchunks, row0):
            g, l = [], []
            for i in range(nchunks // threads):
                ch = k.v_add_u32(k.s_mov_b32(i * threads), tid) if i else tid
                r = k.v_lshrrev_b32((cpr).bit_length() - 1, ch)
                cb = k.v_lshlrev_b32(4, k.v_and_b32(cpr - 1, ch))
                g.append(k.v_add_u32(k.v_mul_lo_u32(k.v_add_u32(row0, r), kb_s), cb))
                l.append(k.v_add_u32(k.v_mul_u32_u24(tk, r), cb))
            return g, l

        ga, la = stage_offsets(chunks_a, row0_m)
        gb, lb = stage_offsets(chunks_b, col0_n)
        la = [k.v_add_u32(lds, x) for x in la]
        lb = [k.v_add_u32(lds, k.v_add_u32(k.s_mov_b32(a_bytes), x)) for x in lb]

        def load_tile(t):
            byte = t * tk
            loads = []
            for offs, ptr in ((ga, a), (gb, bt)):
                for o in offs:
                    if byte < 4096:
                        loads.append(k.global_load_dwordx4(o, ptr, offset=byte))
                    else:
                        loads.append(k.global_load_dwordx4(k.v_add_u32(k.s_mov_b32(byte), o), ptr))
            return loads

        def store_tile(loads, buf):
            k.wait(*[t for _, t in loads])
            ws = [k.ds_write_b128(addr, v, offset=buf * buf_bytes)
                  for addr, (v, _) in zip(la + lb, loads)]
            k.wait(*ws)
            k.s_barrier()

        # -- LDS -> MFMA operands: this wave's 32 rows of A and 32 columns of B
        wave = k.v_readfirstlane_b32(k.v_lshrrev_b32(6, tid))
        wave_m = k.s_lshr_b32(wave, (wn).bit_length() - 1)
        wave_n = k.s_and_b32(wn - 1, wave)
        lane = k.v_and_b32(63, tid)
        r32 = k.v_and_b32(31, lane)
        half8 = k.v_lshlrev_b32(3, k.v_lshrrev_b32(5, lane))  # 8 bytes per lane half
        rd_a = k.v_add_u32(lds, k.v_add_u32(half8, k.v_mul_u32_u24(tk, k.v_add_u32(k.s_lshl_b32(wave_m, 5), r32))))
        rd_b = k.v_add_u32(k.s_mov_b32(a_bytes), k.v_add_u32(lds, k.v_add_u32(
            half8, k.v_mul_u32_u24(tk, k.v_add_u32(k.s_lshl_b32(wave_n, 5), r32)))))

        acc = None
        pending = load_tile(0)
        store_tile(pending, 0)
        for t in range(tiles):
            buf = t % 2
            nxt = load_tile(t + 1) if t + 1 < tiles else None  # in flight during the MFMAs
            reads = [(k.ds_read_b64(rd_a, offset=buf * buf_bytes + s * KSTEP_BYTES),
                      k.ds_read_b64(rd_b, offset=buf * buf_bytes + s * KSTEP_BYTES))
                     for s in range(tk // KSTEP_BYTES)]
            for (av, ta), (bv, tb) in reads:
                k.wait(ta, tb)
                acc = k.inst(MFMA[dtype], av, bv, 0 if acc is None else acc)
            if nxt is not None:
                store_tile(nxt, 1 - buf)

        # -- epilogue
        vals = acc.split()
        if dtype == "fp8":
            scale = k.v_mul_f32(sa, k.v_mov_b32(sb))
            vals = [k.v_mul_f32(v, scale) for v in vals]
        # scalar parts add in SALU (a VALU op may read one SGPR: the constant bus limit)
        row = k.v_add_u32(k.s_add_u32(row0_m, k.s_lshl_b32(wave_m, 5)),
                          k.v_lshlrev_b32(2, k.v_lshrrev_b32(5, lane)))
        col = k.v_add_u32(k.s_add_u32(col0_n, k.s_lshl_b32(wave_n, 5)), r32)
        ob = 4 if out == "f32" else 2
        c_off = k.v_mul_u32_u24(ob, k.v_add_u32(k.v_mul_lo_u32(row, k.s_mov_b32(n_dim)), col))
        if out == "bf16":
            bias = k.s_mov_b32(0x7FFF)
        if splitk > 1 and atomic == "buffer":
            # The MUBUF atomic without sc0 returns nothing (vdata is read in place): C
            # through a V# with no effective bound.
            c_rsrc = make_buffer_rsrc(k, c, 0xFFFFFFFF)
        returns = []
        bases = {0: c_off}  # C addresses per 4 KiB window: the rest is the 13-bit offset field
        for j, v in enumerate(vals):
            step = (8 * (j // 4) + j % 4) * n_dim * ob
            win, rest = divmod(step, 4096)
            if win not in bases:
                bases[win] = k.v_add_u32(k.s_mov_b32(4096 * win), c_off)
            off = bases[win]
            if out == "bf16":
                # round to nearest even: add 0x7fff + the lowest kept bit, keep the high half
                v = k.v_add3_u32(v, bias, k.v_bfe_u32(v, 16, 1))
                k.global_store_short_d16_hi(off, v, c, offset=rest)
            elif splitk > 1 and atomic == "buffer":
                k.buffer_atomic_add_f32(v, off, c_rsrc, 0, offen=True, offset=rest)
            elif splitk > 1:
                # The builder makes global atomics in their returning form only (a fresh
                # vdst, which needs sc0). Each return keeps its own register until one wait
                # covers them all (see below), so the atomics issue back to back.
                returns.append(k.global_atomic_add_f32(off, v, c, sc0=True, offset=rest))
            else:
                k.global_store_dword(off, v, c, offset=rest)
        if returns:
            k.wait(*[t for _, t in returns])
            # Read each returned value once after the wait (an OR chain; plain copies would
            # be coalesced away): that keeps the registers the returns land in live and
            # distinct until then, instead of letting the allocator reuse one register for
            # several in-flight returns (a write-after-write the sanitizer reports, though
            # same-type VMEM returns land in order).
            x = returns[0][0]
            for r, _ in returns[1:]:
                x = k.v_or_b32(r, x)
        k.s_endpgm()
    m.verify()
    return m


CONFIGS = Path(__file__).resolve().parent / "configs" / "gemm.csv"


def emit_configs(out_dir, k_dim: int, n_dim: int, table=CONFIGS) -> Path:
    """Compile every row of the tile table for this K and N into ``out_dir`` and copy the
    table there; returns the copied CSV (``Registry.from_csv`` it to dispatch)."""
    import shutil

    from gcnforge.runtime.registry import Registry
    from lib.compile import compile_module

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for e in Registry.from_csv(table).entries:
        mod = build(k_dim, n_dim, e.dtype, "f32", e.tile_m // 32, e.tile_n // 32, e.tile_k * ESIZE[e.dtype], 1,
                    e.kernel)
        (out_dir / e.code_object.relative_to(Path(table).parent)).write_bytes(compile_module(mod).blob)
    dst = out_dir / Path(table).name
    shutil.copy(table, dst)
    return dst


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser(description="print the f16 GEMM's IR, or --emit the tile table's code objects")
    p.add_argument("--emit", metavar="DIR")
    p.add_argument("--k", type=int, default=64)
    p.add_argument("--n", type=int, default=64)
    a = p.parse_args()
    print(emit_configs(a.emit, a.k, a.n) if a.emit else build(a.k, a.n))

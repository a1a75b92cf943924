"""bf16/f16 GEMM with a large macro tile: the structure of a production CDNA3 GEMM.

``C[M, N] = A[M, K] @ B[K, N]`` with A row-major and B passed transposed (``bt``: N x K
row-major), f32 accumulation, f32 or bf16 output. ``dtype="fp8"`` (e4m3 "fnuz",
``v_mfma_f32_32x32x16_fp8_fp8``) takes a per-token scale (f32 per row of A) and a
per-channel scale (f32 per row of bt) and multiplies each result by both. M, N and K are kernel
arguments: one binary per tile variant serves every shape (the buffers' bounds clamp the M and N
tails; the K tail is masked, below). What makes it fast, and why:

* **macro tile** ``tm x tn`` per work-group (default 256 x 256) of ``wm x wn`` waves (2 x 2),
  each wave a ``tm/wm x tn/wn`` block of 32 x 32 ``v_mfma_f32_32x32x8_{bf16,f16}`` tiles:
  every A and B element brought into LDS feeds ``tn/32`` (``tm/32``) MFMAs;
* **accumulators in AGPRs** (16 per 32 x 32 tile, 256 for a 128 x 128 wave block): the
  VGPRs stay free for operands and staged loads;
* **wide loads**: ``buffer_load_dwordx4`` (16 bytes per lane) through buffer resources whose
  ``num_records`` bounds A, B and C: rows past M (or N) read as 0 and stores there are
  dropped (MI300 ISA guide, "Buffer Instructions", range checking);
* **XOR-swizzled LDS**: a K tile of ``TK = 64`` bytes per row is four 16-byte chunks; chunk
  ``c`` of row ``r`` is stored at chunk ``c ^ ((r >> 1) & 3)``. The MFMA operand reads are
  ``ds_read_b128`` (lane ``l`` reads row ``l % 32``, 16 bytes = two k steps) and the staging
  writes ``ds_write_b128``; a 128-bit access is served 8 lanes per pass, and with the swizzle
  those 8 lanes hit 8 different 16-byte bank groups (32 banks of 4 bytes, CDNA3 ISA guide
  "LDS") in both directions, with no padding (256 x 256 double-buffered is exactly 64 KiB);
* **double-buffered LDS, one barrier per K tile**: while the MFMAs of tile ``t`` read buffer
  ``t % 2``, the staged registers of tile ``t + 1`` are written to the other buffer and the
  loads of tile ``t + 2`` are issued, all interleaved between the MFMAs; a real loop of two
  tiles per trip (buffers in the ``ds_*`` offset field, no address arithmetic in the loop);
* **deeper global prefetch** (``depth = d``, for short K loops): tile ``t``'s loads are issued
  ``d`` tiles ahead, into ``d`` staging slots (the loop then holds ``lcm(2, d)`` tiles per trip,
  so every slot is reloaded in place);
* **k permutation**: a ``ds_read_b128`` gives lane ``l`` the 8 consecutive k values
  ``8 * (l // 32) .. +7`` of a 16-value step; the first MFMA takes the low four as its
  ``4 * (l // 32) .. +3`` and the second the high four. A and B use the same permutation of
  k, so the sum over k is unchanged (the MFMA layouts: AMD Matrix Instruction Calculator).

Run-time K (a loop over an SGPR trip count, zero trips when there is nothing to add). A row
of K bytes is cut into ``T = ceil(K esize / TK)`` tiles aligned to the row's *end*, so only the
first tile is partial. A work-group runs its tiles in whole loop trips of ``unroll`` tiles (2, or
``depth`` when that is even); the few tiles that round its count up go in *front* of its range
(a window ``[ws, ws + trips * unroll * TK)`` of the row). Everything in front of the work-group's
own range (the padding and, in the first tile, the end of the previous row or, for row 0,
positions before the buffer) is less than ``unroll`` tiles, so it lies in the tiles the prologue
loads, before the loop. The prologue addresses those tiles through the VGPR offset, and a
16-byte chunk in front of the range gets an offset past every buffer (one ``v_cndmask_b32`` per
chunk and tile), which the range check reads as zeros, in both operands (so an Inf or NaN
elsewhere in A or B never meets a zero). With K a multiple of 16 bytes a chunk is wholly in or
wholly out. The loop's loads start ``unroll`` tiles into the window, where every offset is
non-negative, and step the SGPR offset: the loop is the compile-time-K loop unchanged (a K that
is a multiple of ``unroll * TK / esize`` pays only the prologue's selects).

Split-K (``splitk = s``, for skinny problems): work-group z of the grid takes tiles
``[floor(z T / s), floor((z + 1) T / s))`` (the divisions by the constant ``s`` as a multiply
by ``ceil(2^32 / s)`` and the high half, exact while ``s^2 T < 2^32``) and adds its f32 partial
tile into C (which must hold zeros) with ``buffer_atomic_add_f32``; a work-group with no tiles
adds zeros.

Any K (``anyk=True``, kernel names end ``_anyk``): a row of A and B^T then starts anywhere (2-byte
or 1-byte aligned). A chunk starting ``r = start % 4`` bytes past a dword is loaded as the
``buffer_load_dwordx4`` at ``start - r`` (naturally aligned) plus the ``r`` bytes it misses, one
``buffer_load_ushort`` (bf16/f16: r is 0 or 2) or three ``buffer_load_ubyte`` (fp8) ending at
the chunk's end, and realigned by four ``v_alignbyte_b32`` before the ``ds_write_b128``. Rows
past M or N get an offset past every buffer (a dword starting up to 3 bytes before a buffer's
end would read past it), and with a one-trip window the look-ahead re-reads its last tile. The
front tiles load one element per instruction (each offset in its VGPR: a position before the
buffer must not come back into range through the offset field), masked per element, and are put
in the same staged form (``v_perm_b32``; a staging slot through LDS buffer 1, since each loop
iteration value must come from one instruction).

Preconditions (``check_shape``; ``launch`` refuses a violating launch before it starts): K is a
multiple of 16 bytes, 8 bf16/f16 or 16 fp8 elements, except for ``anyk`` (the 16-byte loads:
every row of A and B^T starts on a 16-byte boundary of the K tiles, so the K tail is whole
chunks); ``M K esize``,
``N K esize`` and ``M N`` times the output's size below 2^31 (32-bit offsets); ``s^2 T < 2^32``.
M, N and K may be 0. ``depth`` is 1 or a power of two (the prologue must hold the padding).

grid = (ceil(N / tn), ceil(M / tm), s), block = 64 wm wn.
"""

from __future__ import annotations

from gcnforge.builder import Arg, Module
from gcnforge.lib import make_buffer_rsrc

# every one consumes 16 bytes of K per A row / B column, lane l holding bytes 8 (l // 32) .. +7
# (AMD Matrix Instruction Calculator, CDNA3): the kernel is written in bytes of K
MFMA = {"f16": "v_mfma_f32_32x32x8_f16", "bf16": "v_mfma_f32_32x32x8_bf16", "fp8": "v_mfma_f32_32x32x16_fp8_fp8"}
ESIZE = 2  # bytes per f16 / bf16 element
ESIZES = {"f16": 2, "bf16": 2, "fp8": 1}
TK = 64  # bytes of K per tile and row (four 16-byte chunks; the swizzle is written for four)
CHUNK = 16
OOB = 0x80000000  # a byte offset past every buffer: stores there are dropped


def kernel_name(dtype: str, out: str, tm: int, tn: int, wm: int = 2, wn: int = 2, splitk: int = 1,
                depth: int = 1, anyk: bool = False) -> str:
    waves = "" if (wm, wn) == (2, 2) else f"_w{wm}x{wn}"
    sk = f"_splitk{splitk}" if splitk > 1 else ""
    pf = f"_pf{depth}" if depth > 1 else ""
    return f"gemm_macro_{dtype}_{out}_{tm}x{tn}x{TK // ESIZES[dtype]}{waves}{sk}{pf}" + ("_anyk" if anyk else "")


def lds_bytes(tm: int, tn: int) -> int:
    return 2 * (tm + tn) * TK


def grid(m: int, n: int, tm: int, tn: int, splitk: int = 1) -> tuple[int, int, int]:
    return (-(-n // tn), -(-m // tm), splitk)


def check_shape(esize: int, m: int, n: int, k: int, out: str = "f32", splitk: int = 1, anyk: bool = False) -> None:
    """Raise ValueError naming the precondition a launch at M x N x K would violate (module doc)."""
    per = CHUNK // esize  # elements per 16-byte load
    if min(m, n, k) < 0:
        raise ValueError(f"gemm_macro: negative size {m}x{n}x{k}")
    if k % per and not anyk:
        raise ValueError(f"gemm_macro: K = {k} is not a multiple of {per}: every row of A and B^T "
                         f"({esize}-byte elements) must be whole 16-byte chunks for the 16-byte loads "
                         f"(pad K with zeros to {-(-k // per) * per}, or build the anyk variant)")
    ob = 4 if out == "f32" else 2
    for what, x in (("M K", m * k * esize), ("N K", n * k * esize), ("M N", m * n * ob)):
        if x >= 1 << 31:
            raise ValueError(f"gemm_macro: {what} is {x} bytes, not below 2^31 (32-bit offsets)")
    tiles = -(-k * esize // TK)
    if splitk > 1 and splitk * splitk * tiles >= 1 << 32:
        raise ValueError(f"gemm_macro: split-K {splitk} over {tiles} K tiles: s^2 T must stay below 2^32")


def launch(kern, a, bt, c, scales=(), *, tm: int = 256, tn: int = 256, wm: int = 2, wn: int = 2,
           splitk: int = 1, anyk: bool = False, **kw):
    """Launch a built kernel on ``a`` (M x K), ``bt`` (N x K), ``c`` (M x N; zeros for split-K)
    and, for fp8, ``scales`` = (per-row-of-A, per-row-of-bt) f32 arrays; M, N, K from the shapes.
    The preconditions are checked first (ValueError, nothing launched)."""
    import numpy as np

    m, k = a.shape
    n = bt.shape[0]
    if bt.shape[1] != k or c.shape != (m, n):
        raise ValueError(f"gemm_macro: a {a.shape}, bt {bt.shape}, c {c.shape} are not M x K, N x K, M x N")
    check_shape(a.itemsize, m, n, k, "f32" if c.itemsize == 4 else "bf16", splitk, anyk)
    return kern(a, bt, c, np.uint32(m), np.uint32(n), np.uint32(k), *scales, grid=grid(m, n, tm, tn, splitk),
                block=(64 * wm * wn,), **kw)


def build(dtype: str = "bf16", out: str = "f32", tm: int = 256, tn: int = 256, wm: int = 2, wn: int = 2,
          splitk: int = 1, depth: int = 1, name: str | None = None, anyk: bool = False) -> Module:
    """The kernel; arguments a, bt, c, m, n, k (+ scale_a, scale_b for fp8), every size run-time.
    ``anyk``: element loads, so K need not be a multiple of 16 bytes (module doc)."""
    if dtype not in MFMA or out not in ("f32", "bf16"):
        raise ValueError("dtype is bf16, f16 or fp8, out f32 or bf16")
    if splitk > 1 and out != "f32":
        raise ValueError("split-K accumulates with f32 atomics: out must be f32")
    wtm, wtn = tm // wm, tn // wn  # the wave's block of C
    if tm % (32 * wm) or tn % (32 * wn):
        raise ValueError("tm / wm and tn / wn must be multiples of 32")
    threads = 64 * wm * wn
    rows_per_pass = threads * CHUNK // TK  # tile rows one 16-byte load per work-item covers
    for r in (tm, tn):
        rest = r % rows_per_pass
        if rest & (rest - 1) or (rest and rest < 8):
            raise ValueError(f"tm and tn must be multiples of {rows_per_pass} plus a power of two >= 8")
    bm, bn = wtm // 32, wtn // 32
    a_bytes, buf = tm * TK, (tm + tn) * TK
    if 2 * buf > 65536:
        raise ValueError("the two LDS buffers exceed 64 KiB")
    unroll = depth if depth % 2 == 0 else 2 * depth  # tiles per loop trip: both buffers, every staging slot
    if depth < 1 or unroll & (unroll - 1) or unroll > depth + 1:
        raise ValueError(f"depth {depth}: 1 or a power of two (the prologue's tiles must hold the K padding)")
    if not 1 <= splitk < 1 << 16:
        raise ValueError(f"splitk {splitk}: 1 .. 65535")
    lg_tk, lg_un = TK.bit_length() - 1, unroll.bit_length() - 1
    ob = 4 if out == "f32" else 2
    name = name or kernel_name(dtype, out, tm, tn, wm, wn, splitk, depth, anyk)
    mfma = MFMA[dtype]

    m = Module(name)
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("bt", access="read_only"), Arg.ptr("c", access="write_only"),
            Arg.value("m"), Arg.value("n"), Arg.value("k")]
    if dtype == "fp8":  # e4m3 "fnuz" inputs with f32 scales per row of A and per row of bt
        args += [Arg.ptr("scale_a", access="read_only"), Arg.ptr("scale_b", access="read_only")]
    with m.kernel(name, args, workgroup_size=(threads, 1, 1)) as k:
        if dtype == "fp8":
            a, bt, c, m_rows, n_s, k_s, sa, sb = k.args()
        else:
            a, bt, c, m_rows, n_s, k_s = k.args()
        lds = k.lds(2 * buf)
        tid = k.thread_id("x")
        row0_m = k.s_mul_i32(k.block_id("y"), k.s_mov_b32(tm))
        col0_n = k.s_mul_i32(k.block_id("x"), k.s_mov_b32(tn))
        esh = ESIZES[dtype].bit_length() - 1
        kb_s = k.s_lshl_b32(k_s, esh) if esh else k_s  # bytes of a row of A and of bt
        n_t = k.s_lshr_b32(k.s_add_u32(kb_s, TK - 1), lg_tk)  # K tiles of a row, aligned to its end
        if splitk > 1:  # this work-group's tiles [j0, j1): floor(z T / s) by a multiply-high
            z = k.block_id("z")
            magic = k.s_mov_b32(-(-(1 << 32) // splitk))
            j0 = k.s_mul_hi_u32(k.s_mul_i32(z, n_t), magic)
            j1 = k.s_mul_hi_u32(k.s_mul_i32(k.s_add_u32(z, 1), n_t), magic)
            n_mine = k.s_sub_u32(j1, j0)
            end = k.s_sub_u32(kb_s, k.s_lshl_b32(k.s_sub_u32(n_t, j1), lg_tk))  # the range's end byte
            lo = k.s_max_i32(k.s_sub_u32(kb_s, k.s_lshl_b32(k.s_sub_u32(n_t, j0), lg_tk)), 0)
        else:
            n_mine, end, lo = n_t, kb_s, k.s_mov_b32(0)
        trips = k.s_lshr_b32(k.s_add_u32(n_mine, unroll - 1), lg_un)
        window = k.s_lshl_b32(trips, lg_un + lg_tk)  # bytes of K the loop runs over
        ws = k.s_sub_u32(end, window)  # the window's first byte (negative: before the row)
        pad = k.s_sub_u32(lo, ws)  # bytes at the window's front that are not this range's
        g_base = k.s_add_u32(ws, unroll * TK)  # the loop's loads start unroll tiles in: >= 0
        rs_a = make_buffer_rsrc(k, a, k.s_mul_i32(m_rows, kb_s))
        rs_b = make_buffer_rsrc(k, bt, k.s_mul_i32(n_s, kb_s))
        n_ob = k.s_lshl_b32(n_s, ob.bit_length() - 1)  # the C row stride in bytes
        rs_c = make_buffer_rsrc(k, c, k.s_mul_i32(m_rows, n_ob))

        # -- staging: work-item t loads chunk t % 4 of row t // 4 (+ rows_per_pass i) of each
        # tile. A last pass of fewer rows (a power of two) wraps the row index: several
        # work-items then load and write the same chunk (same bytes, same LDS address).
        r_st = k.v_lshrrev_b32(2, tid)
        c_st = k.v_and_b32(3, tid)
        cb = k.v_lshlrev_b32(4, c_st)
        cb_g = k.v_add_u32(g_base, cb)
        stage = []  # per chunk: (global offset, resource, LDS write address, LDS offset)

        rows_of = []  # anyk: per chunk, (its first row's VGPR, the pass's extra rows, M or N)

        def passes(rows, row0, rs, lds_off, lim):
            full = None
            for i in range(-(-rows // rows_per_pass)):
                here = min(rows_per_pass, rows - i * rows_per_pass)
                if here < rows_per_pass or full is None:
                    r = r_st if here == rows_per_pass else k.v_and_b32(here - 1, r_st)
                    sw = k.v_xor_b32(c_st, k.v_and_b32(3, k.v_lshrrev_b32(1, r)))  # the swizzle of row r
                    wr = k.v_add_u32(lds, k.v_lshl_add_u32(r, 6, k.v_lshlrev_b32(4, sw)))
                    row = k.v_add_u32(row0, r)
                    g0 = k.v_add_u32(k.v_mul_lo_u32(row, kb_s), cb_g)
                    if here == rows_per_pass:
                        full = (g0, wr, row)
                g0_, wr_, row_ = full if here == rows_per_pass else (g0, wr, row)
                rows_of.append((row_, i * rows_per_pass, lim))
                g = k.v_add_u32(k.s_mul_i32(kb_s, k.s_mov_b32(i * rows_per_pass)), g0_) if i else g0_
                stage.append((g, rs, wr_, lds_off + i * rows_per_pass * TK))

        passes(tm, row0_m, rs_a, 0, m_rows)
        passes(tn, col0_n, rs_b, a_bytes, n_s)
        wr_offs = [x[3] for x in stage]
        # the last tile's SGPR offset: the look-ahead loads of the last trips re-read it
        last = k.s_max_i32(k.s_sub_u32(window, (unroll + 1) * TK), 0)
        g_all = [(g, rs) for g, rs, _, _ in stage]
        oob_v = k.v_mov_b32(k.s_mov_b32(OOB))
        zero1 = k.v_mov_b32(0) if anyk else None

        def clamp(koff):
            """The K tile at SGPR byte offset ``koff`` (from the loop's start), clamped to the
            window's last tile so the pipeline's look-ahead never reads past it."""
            return k.s_min_u32(koff, last)

        # a chunk's staged registers (loop iteration values: each from one instruction): one
        # dwordx4; anyk: the dwordx4 at the chunk's start rounded down to a dword (r = start % 4
        # bytes early) and the r bytes it misses, one ushort (bf16/f16: r is 0 or 2) or three
        # ubytes (fp8) ending at the chunk's end, realigned by v_alignbyte_b32 before the write
        esz = ESIZES[dtype]
        if anyk:
            # a dword that starts up to 3 bytes before the buffer's end would read past it: rows
            # past M / N are entirely out of range, and with one loop trip (a window of unroll
            # tiles) the loop's look-ahead loads start at the window's last tile, not after it
            back = k.s_sub_u32(unroll * TK, k.s_min_u32(k.s_max_i32(k.s_sub_u32(window, TK), 0), unroll * TK))
            g_loop, g_al, r_al = [], [], []
            for (g, _), (row, extra, lim) in zip(g_all, rows_of):
                row = k.v_add_u32(extra, row) if extra else row
                gl = k.v_cndmask_b32_e64(oob_v, k.v_subrev_u32(back, g), k.v_cmp_gt_u32_e64(lim, row))
                g_loop.append(gl)
                g_al.append(k.v_and_b32(-4, gl))
                r_al.append(k.v_and_b32(3, gl))
        tail = (14,) if esz == 2 else (13, 14, 15)  # byte offsets of the tail loads in the chunk
        load_tail = k.buffer_load_ushort if esz == 2 else k.buffer_load_ubyte  # one element
        nw = 1 + len(tail) if anyk else 1  # staged registers per chunk

        def load_one(q, so):
            """Chunk ``q`` (A rows, then B rows) of the K tile at clamped byte offset ``so``."""
            g, rs = g_all[q]
            if not anyk:
                return [k.buffer_load_dwordx4(g, rs, so, offen=True)[0]]
            return [k.buffer_load_dwordx4(g_al[q], rs, so, offen=True)[0],
                    *[load_tail(g_loop[q], rs, so, offen=True, offset=o)[0] for o in tail]]

        def to_lds(q, regs, offset):
            """``ds_write_b128`` of chunk ``q``'s staged registers at LDS ``offset`` (+ its own)."""
            if anyk:
                d = regs[0].split()
                u = regs[1]
                if esz == 1:  # bytes 13..15 of the chunk, then the r of them after the dwordx4
                    u = k.v_lshl_or_b32(regs[3], 16, k.v_lshl_or_b32(regs[2], 8, u))
                    u = k.v_lshrrev_b32(k.v_sub_u32(24, k.v_lshlrev_b32(3, r_al[q])), u)
                d = d + [u]
                regs = [k.concat(*[k.v_alignbyte_b32(d[j + 1], d[j], r_al[q]) for j in range(4)])]
            return k.ds_write_b128(stage[q][2], regs[0], offset=offset + wr_offs[q])

        def load_front(t):
            """Tile ``t`` < unroll, through the VGPR offset: a chunk (anyk: an element) in front
            of the range gets an offset past every buffer, so it reads as zeros (K a multiple
            of 16 bytes: a chunk is all in or all out)."""
            out = []
            if not anyk:
                keep = k.v_cmp_le_i32_e64(pad, k.v_add_u32(t * TK, cb) if t else cb)
                for g, rs in g_all:
                    off = k.v_cndmask_b32_e64(oob_v, k.v_subrev_u32((unroll - t) * TK, g), keep)
                    out.append([k.buffer_load_dwordx4(off, rs, 0, offen=True)[0]])
                return out
            # anyk: one load per element, its offset in a VGPR (the instruction's offset field
            # would carry a position before the buffer back into range: the check adds without
            # wrapping), packed, then put in the staged form load_one gives
            nel = CHUNK // esz
            keep = [k.v_cmp_le_i32_e64(pad, k.v_add_u32(t * TK + esz * e, cb) if t or e else cb) for e in range(nel)]
            for q, (g, rs) in enumerate(g_all):
                base = k.v_subrev_u32((unroll - t) * TK, g)
                el = [load_tail(k.v_cndmask_b32_e64(oob_v, k.v_add_u32(esz * e, base) if e else base, keep[e]),
                                rs, 0, offen=True)[0] for e in range(nel)]
                per = nel // 4
                want = []
                for j in range(4):
                    x = el[per * j]
                    for e in range(1, per):
                        x = k.v_lshl_or_b32(el[per * j + e], 32 // per * e, x)
                    want.append(x)
                # the dwordx4 load_one would give: the chunk shifted r bytes later (v_perm_b32
                # byte i <- byte 4 - r + i of {want[j], want[j - 1]}), and the tail registers
                sel = k.v_sub_u32(k.s_mov_b32(0x07060504), k.v_mul_lo_u32(r_al[q], k.s_mov_b32(0x01010101)))
                dv = k.concat(*[k.v_perm_b32(want[j], want[j - 1] if j else zero1, sel) for j in range(4)])
                if t:  # a staging slot: one instruction must produce it: through LDS buffer 1
                    # (free until the loop's first step), each lane reading back its own 16 bytes
                    k.ds_write_b128(stage[q][2], dv, offset=buf + wr_offs[q])
                    dv = k.ds_read_b128(stage[q][2], offset=buf + wr_offs[q])[0]
                if esz == 2:
                    tl = [k.v_lshrrev_b32(16, want[3])]
                else:
                    tl = [k.v_bfe_u32(want[3], 8 * b, 8) for b in (1, 2, 3)]
                out.append([dv, *tl])
            return out

        def load_tile(t):
            if t < unroll:
                return load_front(t)
            so = k.s_mov_b32((t - unroll) * TK)
            return [load_one(q, so) for q in range(len(g_all))]

        # -- operand reads: lane l, row l % 32 of each 32-row block, chunk (2 kp + l // 32) ^ swz
        wave = k.v_readfirstlane_b32(k.v_lshrrev_b32(6, tid))
        wave_m = k.s_lshr_b32(wave, (wn).bit_length() - 1)
        wave_n = k.s_and_b32(wn - 1, wave)
        lane = k.v_and_b32(63, tid)
        r32 = k.v_and_b32(31, lane)
        h = k.v_lshrrev_b32(5, lane)
        swz = k.v_and_b32(3, k.v_lshrrev_b32(1, r32))
        base_a = k.v_add_u32(lds, k.v_lshlrev_b32(6, k.v_add_u32(k.s_mul_i32(wave_m, k.s_mov_b32(wtm)), r32)))
        base_b = k.v_add_u32(k.s_mov_b32(a_bytes), k.v_add_u32(lds, k.v_lshlrev_b32(
            6, k.v_add_u32(k.s_mul_i32(wave_n, k.s_mov_b32(wtn)), r32))))
        rd = []
        for kp in range(2):
            ch = k.v_lshlrev_b32(4, k.v_xor_b32(swz, h if kp == 0 else k.v_or_b32(2, h)))
            rd.append((k.v_add_u32(base_a, ch), k.v_add_u32(base_b, ch)))

        def read_ops(kp, bufi):
            """The ``ds_read_b128`` of operand half ``kp`` of the tile in buffer ``bufi``,
            ordered A0, B0..B(bn-1), A1.. so the first MFMAs can start after two reads."""
            ra, rb = rd[kp]
            bo = bufi * buf
            av, bv = [None] * bm, [None] * bn
            av[0] = k.ds_read_b128(ra, offset=bo)
            for j in range(bn):
                bv[j] = k.ds_read_b128(rb, offset=bo + 32 * TK * j)
            for i in range(1, bm):
                av[i] = k.ds_read_b128(ra, offset=bo + 32 * TK * i)
            return av, bv

        n_mf = 4 * bm * bn  # MFMAs per tile: 2 operand halves x 2 k steps x blocks
        n_ld = len(wr_offs)
        # where, among a tile's MFMAs, the other work goes: each wave's loads and LDS writes
        # spread evenly (the CU's vector-memory and LDS pipes are shared by its waves); the
        # barrier some MFMAs before the end, then the next tile's first operand reads, so
        # their latency hides under the last MFMAs
        bar_at = n_mf - min(max(4, bm + bn), n_mf // 2)
        lo = min(4, n_mf // 4)
        hi = max(lo, bar_at - 4)
        w_at, l_at = {}, {}
        for q in range(n_ld):
            w_at.setdefault(q * (n_mf // 2) // n_ld, []).append(q)
            l_at.setdefault(lo + q * (hi - lo) // n_ld, []).append(q)

        def tile_step(bufi, accs, kp0, staged, koff_next):
            """MFMAs of the tile in LDS buffer ``bufi`` into ``accs`` (its first operand half
            ``kp0`` already read); meanwhile ``staged`` (the next tile) goes to the other
            buffer and the tile after it is loaded. Returns (next tile's kp0 reads, loads)."""
            other = (1 - bufi) * buf
            ops = {0: kp0, 1: read_ops(1, bufi)}
            order = [(kp, e, i, j) for kp in range(2) for e in range(2) for i in range(bm) for j in range(bn)]
            writes, new, nxt = [], [None] * n_ld, None
            so = clamp(koff_next)
            for idx, (kp, e, i, j) in enumerate(order):
                (av, ta), (bv, tb) = ops[kp][0][i], ops[kp][1][j]
                k.wait(*[t for t in (ta, tb) if t is not None])  # loop-carried reads: the wait pass
                acc = accs[i * bn + j]
                k.inst(mfma, acc, av[2 * e: 2 * e + 2], bv[2 * e: 2 * e + 2], acc)  # in place
                for q in w_at.get(idx, ()):
                    writes.append(to_lds(q, staged[q], other))
                for q in l_at.get(idx, ()):
                    new[q] = load_one(q, so)
                if idx == bar_at:
                    # every wave's writes into the other buffer and reads of this one are done
                    k.wait(*writes)
                    k.s_barrier()
                    nxt = read_ops(0, 1 - bufi)
            return nxt, new

        # -- prologue: tile 0 into buffer 0, tiles 1 .. depth staged in registers (slot p % depth
        # holds tile p until the step before p writes it to LDS and loads tile p + depth in place)
        first = load_tile(0)
        ws_ = [to_lds(q, v, 0) for q, v in enumerate(first)]
        k.wait(*ws_)
        k.s_barrier()
        slots = [None] * depth
        for p_ in range(1, depth + 1):
            slots[p_ % depth] = load_tile(p_)
        kp0 = read_ops(0, 0)
        zero2 = k.concat(k.v_mov_b32(0), k.v_mov_b32(0))
        # the accumulators are AGPR storage written in place by every MFMA (not loop
        # iteration values: a chain of fresh MFMA results would need a second set of AGPRs)
        accs = [k.agpr(None, 16) for _ in range(bm * bn)]
        for acc in accs:
            k.inst(mfma, acc, zero2, zero2, 0)
        koff = k.s_mov_b32(TK * (depth + 1 - unroll))  # the SGPR offset of the next tile to load

        def flat(kp):
            return [v for v, _ in kp[0]] + [v for v, _ in kp[1]]

        def unflat(vals):
            return ([(v, None) for v in vals[:bm]], [(v, None) for v in vals[bm:]])

        nk = bm + bn
        def flat_slots(slots):
            return [r for sl in slots for ch in sl for r in ch]

        with k.loop(trips, [*flat(kp0), *flat_slots(slots), koff]) as body:
            kp0, koff = unflat(body.args[:nk]), body.args[-1]
            fs = body.args[nk:-1]
            slots = [[fs[(i * n_ld + q) * nw:(i * n_ld + q + 1) * nw] for q in range(n_ld)] for i in range(depth)]
            for u in range(unroll):
                si = (u + 1) % depth
                kp0, slots[si] = tile_step(u % 2, accs, kp0, slots[si], k.s_add_u32(u * TK, koff) if u else koff)
            body.next(*flat(kp0), *flat_slots(slots), k.s_add_u32(unroll * TK, koff))

        # -- epilogue: lane l holds rows 8 (j // 4) + 4 (l // 32) + j % 4, column l % 32
        row_l = k.v_add_u32(k.s_add_u32(row0_m, k.s_mul_i32(wave_m, k.s_mov_b32(wtm))), k.v_lshlrev_b32(2, h))
        col_l = k.v_add_u32(k.s_add_u32(col0_n, k.s_mul_i32(wave_n, k.s_mov_b32(wtn))), r32)
        if out == "bf16":
            bias = k.s_mov_b32(0x7FFF)
        oob = k.v_mov_b32(k.s_mov_b32(OOB))
        if dtype == "fp8":
            # per-token (row) and per-channel (column) f32 scales: lane l needs rows
            # 32 i + 8 q + 4 (l // 32) + 0..3 (one dwordx4 per i, q) and column l % 32 (+ 32 j)
            rs_sa = make_buffer_rsrc(k, sa, k.s_lshl_b32(m_rows, 2))
            rs_sb = make_buffer_rsrc(k, sb, k.s_lshl_b32(n_s, 2))
            ra = k.v_lshlrev_b32(2, row_l)
            sa_v = {(i, q): k.buffer_load_dwordx4(ra, rs_sa, 0, offen=True, offset=4 * (32 * i + 8 * q))
                    for i in range(bm) for q in range(4)}
            cb4 = k.v_lshlrev_b32(2, col_l)
            sb_v = [k.buffer_load_dword(cb4, rs_sb, 0, offen=True, offset=128 * j) for j in range(bn)]
            k.wait(*[t for _, t in sa_v.values()], *[t for _, t in sb_v])
        for j in range(bn):
            col = k.v_add_u32(32 * j, col_l) if j else col_l
            # a shift, not v_mul_u32_u24: the element index passes 2^24 once M N does (8192^2)
            off = k.v_lshlrev_b32(ob.bit_length() - 1, k.v_add_u32(k.v_mul_lo_u32(row_l, n_s), col))
            off = k.v_cndmask_b32_e64(oob, off, k.v_cmp_gt_u32_e64(n_s, col))  # columns past N: dropped
            for i in range(bm):
                for r, v in enumerate(accs[i * bn + j].split()):
                    step = 32 * i + 8 * (r // 4) + r % 4  # rows below the lane's first
                    o = k.v_add_u32(k.s_mul_i32(n_ob, k.s_mov_b32(step)), off) if step else off
                    if dtype == "fp8":
                        v = k.v_mul_f32(k.v_mul_f32(k.v_accvgpr_read_b32(v), sa_v[(i, r // 4)][0].split()[r % 4]),
                                        sb_v[j][0])
                    if splitk > 1:  # C must hold zeros; no return (vdata is read in place)
                        k.buffer_atomic_add_f32(v, o, rs_c, 0, offen=True)  # data straight from the AGPRs
                    elif out == "f32":
                        k.buffer_store_dword(v, o, rs_c, 0, offen=True)
                    else:
                        x = v if dtype == "fp8" else k.v_accvgpr_read_b32(v)
                        x = k.v_add3_u32(x, bias, k.v_bfe_u32(x, 16, 1))  # round to nearest even
                        k.buffer_store_short_d16_hi(x, o, rs_c, 0, offen=True)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

"""int8 GEMM with per-token and per-channel scales, bf16 out, in aiter's
``I8gemm_bf16_perTokenI8_BpreShuffle`` layout: the same kernel arguments launch either.

``C[m, n] = bf16((A @ B^T)[m, n] (int32) * sa[m] * sb[n] + bias[n])`` with A int8 [M, K]
row-major, B int8 [N, K] pre-shuffled (below), sa f32 [M] (per token), sb f32 [N] (per
channel), bias f32 [N], C bf16 [M, N]. M, N, K, the strides and the split-K count are run-time
arguments. The argument block is aiter's (``csrc/py_itfs_cu/asm_gemm_a8w8.cu``, struct
``KernelArgs``): 16-byte slots holding C, A, B, A-scale, B-scale, bias, then the u32s m, n, k,
lda, ldb (bytes of a row of A / of unshuffled B), ldc (bytes of a row of C) and ks.

**B pre-shuffled** as aiter's ``shuffle_weight(B, layout=(32, 16))`` (``aiter/ops/shuffle.py``;
the launcher's comment "B:[N, K] i8 -> shuffle layout(32,16)"): B is cut into blocks of 32 rows
x 32 bytes of K; a block holds its two 16-byte halves one after the other, each as 32 rows of
16 bytes. ``preshuffle`` below is that order in NumPy. So one ``buffer_load_dwordx4`` of a wave
(lane l at byte 16 l of a block) gives lane l row l % 32 and bytes 16 (l // 32) .. +15 of the
block's K: exactly the B operand of two ``v_mfma_i32_32x32x16_i8`` (AMD Matrix Instruction
Calculator, CDNA3: lane l holds column l % 32, k = 8 (l // 32) .. +7; the first MFMA takes the
low eight bytes, the second the high eight, and A is read with the same permutation of k, so
the sum over k is unchanged). B goes straight from memory into registers: no LDS, no barrier.

**A** goes through LDS as in ``gemm_macro``: a K tile of ``TK = 64`` bytes per row, four
16-byte chunks, chunk ``c`` of row ``r`` stored at chunk ``c ^ ((r >> 1) & 3)`` (the 8 lanes of
one ``ds_read_b128`` pass hit 8 different bank groups), two buffers, one barrier per tile; the
staged loads of tile ``t + 1`` are written while tile ``t``'s MFMAs run.

**Prefetch**: tile ``t``'s A chunks and B operands are loaded ``depth + 1`` tiles ahead (in the
step of tile ``t - 1 - depth``) into a ring of ``depth + 1`` register slots; the loop holds
``lcm(2, depth + 1)`` tiles per trip so every slot is reloaded in place. Loads past the
work-group's last tile go through a V# with ``num_records = 0`` (they read zeros, MI300 ISA
guide "Buffer Instructions", range checking), so the trip count is ``ceil(tiles / trip)`` with
no remainder code and the extra tiles add nothing.

**Split-K** (``ks > 1``) as aiter's launcher lays it out: grid x is ``ceil(N / tn) * ks``,
work-group x takes N tile ``x // ks`` and K range ``[s kps, min(K, (s + 1) kps))`` with
``s = x % ks`` and ``kps = ceil(ceil(K / ks) / 128) * 128``; each split adds its bf16 partial
into C with ``global_atomic_pk_add_bf16`` (two columns per lane; gfx942 has no buffer form of
it, so rows past M are masked by EXEC) and only split 0 adds the bias (the others read it
through a zero-sized V#). C need not hold zeros: split 0 zeroes its tile (write-through stores,
``sc1 nt``) before its K loop, the other splits add at the end of theirs. Like aiter's object
(which zeroes from every split), this relies on the splits of a tile, consecutive work-group
ids, being dispatched in order: split 0 starts before any other split of its tile can finish
(the emulator runs a batch's waves lowest-PC-first and the batches in order: it holds there).
With ``ks = 1`` the pairs are stored (``buffer_store_dword``, rows past M dropped by the buffer
bounds).

**Epilogue** per element: ``v_cvt_f32_i32``, times sa, times sb, plus bias (three f32
roundings, the order of the NumPy reference), round to bf16 (nearest even); lanes 2i and 2i+1
swap one value with DPP ``quad_perm [1, 0, 3, 2]`` so each holds two adjacent columns of one
row and packs them with ``v_perm_b32``.

Limits: K a multiple of 64 (A is read in 16-byte chunks per row; K tails inside a row are not
masked), N a multiple of 32 (the pre-shuffle's block; aiter's launcher needs N % 128), rows of
A and C past M and columns past N are clamped. grid = (ceil(N / tn) ks, ceil(M / tm)),
block = 64 wm wn.
"""

from __future__ import annotations

import math

import numpy as np

from gcnforge.builder import Arg, Module
from gcnforge.builder.values import arg_type
from gcnforge.lib import make_buffer_rsrc, masked

MFMA = "v_mfma_i32_32x32x16_i8"  # 16 bytes of K per A row / B column
TK = 64  # bytes of K per tile and row (four 16-byte chunks; the swizzle is written for four)
CHUNK = 16
KALIGN = 128  # each split's K range is a multiple of this (asm_gemm_a8w8.cu: k_per_split_aligned)
OOB = 0x80000000  # a byte offset past every buffer: stores there are dropped
SLOT = 16  # aiter's kernel-argument slot (void* + p2 padding, u32 + p3 padding)
# aiter's KernelArgs in order: (name, pointee type or value type, access)
ARGS = (("c", "bf16", "read_write"), ("a", np.int8, "read_only"), ("b", np.int8, "read_only"),
        ("sa", np.float32, "read_only"), ("sb", np.float32, "read_only"), ("bias", np.float32, "read_only"))
VALUES = ("m", "n", "k", "lda", "ldb", "ldc", "ks")


def kernel_args() -> list[Arg]:
    """aiter's argument block: every argument in a 16-byte slot (offsets 0x00 .. 0xC0)."""
    ptrs = [Arg(n, "global_buffer", 8, SLOT, "global", acc, arg_type(t)) for n, t, acc in ARGS]
    return ptrs + [Arg.value(n, np.uint32, align=SLOT) for n in VALUES]


def kernel_name(tm: int, tn: int, wm: int = 2, wn: int = 2, depth: int = 1) -> str:
    waves = "" if (wm, wn) == (2, 2) else f"_w{wm}x{wn}"
    pf = f"_pf{depth}" if depth > 1 else ""
    return f"gemm_i8_bf16_{tm}x{tn}{waves}{pf}"


def grid(m: int, n: int, tm: int, tn: int, ks: int = 1) -> tuple[int, int, int]:
    return (-(-n // tn) * ks, -(-m // tm), 1)


def k_per_split(k: int, ks: int) -> int:
    """The K range of one split, as the kernel (and aiter's launcher) computes it."""
    return -(-(-(-k // ks)) // KALIGN) * KALIGN


def preshuffle(b: np.ndarray) -> np.ndarray:
    """B [N, K] in aiter's ``shuffle_weight(B, layout=(32, 16))`` order (aiter/ops/shuffle.py:
    view (N/32, 32, K/32, 2, 16), axes (0, 2, 3, 1, 4))."""
    n, k = b.shape
    if n % 32 or k % 32:
        raise ValueError(f"the pre-shuffle needs N and K multiples of 32, got {n} x {k}")
    return np.ascontiguousarray(b.reshape(n // 32, 32, k // 32, 2, 16).transpose(0, 2, 3, 1, 4)).reshape(n, k)


def reference(a: np.ndarray, b: np.ndarray, sa: np.ndarray, sb: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """NumPy: exact int32 products, then f32 (acc * sa) * sb + bias, rounded to bf16 (nearest
    even); returned as bf16 bit patterns (uint16). ``b`` unshuffled [N, K]."""
    acc = a.astype(np.int32) @ b.astype(np.int32).T
    v = acc.astype(np.float32) * sa.astype(np.float32)[:, None] * sb.astype(np.float32)[None, :] + \
        bias.astype(np.float32)[None, :]
    u = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _udiv(k, x, d):
    """``x // d`` of two SGPR values (x < 2^24): a float reciprocal estimate, corrected by one
    in either direction (its error is below one for such x)."""
    q = k.v_cvt_u32_f32(k.v_mul_f32(k.v_cvt_f32_u32(x), k.v_rcp_f32(k.v_cvt_f32_u32(d))))
    q = k.v_readfirstlane_b32(q)
    # (every operand of an s_cselect is computed before the s_cmp: SALU arithmetic writes SCC)
    r, qm = k.s_sub_i32(x, k.s_mul_i32(q, d)), k.s_sub_u32(q, 1)
    k.s_cmp_lt_i32(r, 0)
    q = k.s_cselect_b32(qm, q)
    r, qp = k.s_sub_i32(x, k.s_mul_i32(q, d)), k.s_add_u32(q, 1)
    k.s_cmp_ge_u32(r, d)
    return k.s_cselect_b32(qp, q)


def _with_records(k, rsrc, n):
    """The V# ``rsrc`` with ``num_records = n`` (an SGPR value)."""
    w = rsrc.split()
    return k.concat(k.s_mov_b32(w[0]), k.s_mov_b32(w[1]), n, k.s_mov_b32(w[3]))


def _check(tm, tn, wm, wn, depth) -> None:
    if tm % (32 * wm) or tn % (32 * wn):
        raise ValueError("tm / wm and tn / wn must be multiples of 32")
    rows_per_pass = 64 * wm * wn * CHUNK // TK
    rest = tm % rows_per_pass
    if rest & (rest - 1) or (rest and rest < 8):
        raise ValueError(f"tm must be a multiple of {rows_per_pass} plus a power of two >= 8")
    if 2 * tm * TK > 65536:
        raise ValueError("the two LDS buffers of A exceed 64 KiB")
    if depth < 1:
        raise ValueError("depth >= 1")


def build(tm: int = 128, tn: int = 128, wm: int = 2, wn: int = 2, depth: int = 1, name: str | None = None) -> Module:
    """The kernel for tile ``tm x tn`` of ``wm x wn`` waves, loads ``depth + 1`` tiles ahead."""
    _check(tm, tn, wm, wn, depth)
    name = name or kernel_name(tm, tn, wm, wn, depth)
    m = Module(name)
    with m.kernel(name, kernel_args(), workgroup_size=(64 * wm * wn, 1, 1)) as k:
        _body(k, tm, tn, wm, wn, depth)
    m.verify()
    return m


class _Ctx:
    """What the kernel's parts share (registers and compile-time sizes)."""


def _body(k, tm, tn, wm, wn, depth) -> None:
    x = _Ctx()
    x.tm, x.tn, x.wm, x.wn, x.depth = tm, tn, wm, wn, depth
    x.bm, x.bn = tm // wm // 32, tn // wn // 32
    c, a, b, sa, sb, bias, m_s, n_s, k_s, lda, ldb, ldc, ks = k.args()
    x.lds = k.lds(2 * tm * TK)
    x.tid = k.thread_id("x")
    tile_n = _udiv(k, k.block_id("x"), ks)
    split = k.s_sub_u32(k.block_id("x"), k.s_mul_i32(tile_n, ks))
    x.row0 = k.s_mul_i32(k.block_id("y"), k.s_mov_b32(tm))
    x.col0 = k.s_mul_i32(tile_n, k.s_mov_b32(tn))
    # this split's K range: kbeg, klen bytes (klen may be 0 for a split past K)
    kps = _udiv(k, k.s_add_u32(k_s, k.s_sub_u32(ks, 1)), ks)
    kps = k.s_and_b32(k.s_add_u32(kps, KALIGN - 1), -KALIGN)
    x.kbeg = k.s_mul_i32(split, kps)
    rest = k.s_max_i32(k.s_sub_i32(k_s, x.kbeg), 0)
    x.klen = k.s_min_u32(rest, kps)
    x.lda, x.ldb = lda, ldb
    x.rs_a = make_buffer_rsrc(k, a, k.s_mul_i32(m_s, lda))
    x.num_b = k.s_mul_i32(n_s, ldb)
    x.rs_b = make_buffer_rsrc(k, b, x.num_b)
    x.num_a = k.s_mul_i32(m_s, lda)
    _setup_loads(k, x)
    zeroed = _zero_tile(k, x, c, m_s, n_s, ldc, split, ks)
    accs = _main_loop(k, x)
    k.wait(*zeroed)  # split 0's own atomics land after its zeros
    n4 = k.s_lshl_b32(n_s, 2)
    k.s_cmp_eq_u32(split, 0)
    bias_bytes = k.s_cselect_b32(n4, 0)  # only split 0 adds the bias
    p = dict(c=c, sa=sa, sb=sb, bias=bias, m=m_s, n=n_s, ldc=ldc, bias_bytes=bias_bytes)
    # ks = 1: store; ks > 1: add into C (the same accumulators, one branch)
    split_k = k.new_block()
    k.s_cmp_gt_u32(ks, 1)
    store = k.new_block()
    k.branch("s_cbranch_scc1", split_k, store)
    k.set_block(store)
    _epilogue(k, x, accs, p, atomic=False)
    k.s_endpgm()
    k.set_block(split_k)
    _epilogue(k, x, accs, p, atomic=True)
    k.s_endpgm()


def _zero_tile(k, x, c, m_s, n_s, ldc, split, ks) -> list:
    """Split-K: split 0 zeroes the work-group's tile of C before its K loop (the other splits
    add into it at the end of theirs; the dispatch order, split 0 first, makes that safe, as
    aiter's object relies on it zeroing C from its splits). Everyone else's stores go through a
    V# of zero records (dropped). Returns the stores' tokens."""
    per_row = x.tn * 2 // CHUNK  # work-items per row of the tile (16 bytes each)
    rows = 64 * x.wm * x.wn // per_row
    nbytes, one = k.s_mul_i32(m_s, ldc), k.s_mov_b32(1)
    k.s_cmp_gt_u32(ks, 1)
    who = k.s_cselect_b32(split, one)  # 0 only for split 0 of a split-K launch
    k.s_cmp_eq_u32(who, 0)
    rs = make_buffer_rsrc(k, c, k.s_cselect_b32(nbytes, 0))
    col = k.v_add_u32(x.col0, k.v_lshlrev_b32(3, k.v_and_b32(per_row - 1, x.tid)))  # 8 columns each
    row = k.v_add_u32(x.row0, k.v_lshrrev_b32(per_row.bit_length() - 1, x.tid))
    off = k.v_lshl_add_u32(col, 1, k.v_mul_lo_u32(row, ldc))
    off = k.v_cndmask_b32_e64(k.v_mov_b32(k.s_mov_b32(OOB)), off, k.v_cmp_gt_u32_e64(n_s, col))
    zero = k.v_mov_b32(0)
    z4 = k.concat(zero, zero, zero, zero)
    toks = []
    for p in range(-(-x.tm // rows)):
        so = k.s_mul_i32(ldc, k.s_mov_b32(p * rows)) if p else 0
        toks.append(k.buffer_store_dwordx4(z4, off, rs, so, offen=True, sc1=True, nt=True))
    return [t for t in toks if t is not None]


def _setup_loads(k, x) -> None:
    """Per work-item load offsets: A staging chunks (global offset, LDS write address) and the
    wave's B operand offsets; LDS read addresses of the A operands."""
    threads = 64 * x.wm * x.wn
    rows_per_pass = threads * CHUNK // TK
    r_st = k.v_lshrrev_b32(2, x.tid)
    c_st = k.v_and_b32(3, x.tid)
    cb = k.v_lshlrev_b32(4, c_st)
    x.stage = []  # (global offset, LDS write address, LDS offset)
    full = None
    for i in range(-(-x.tm // rows_per_pass)):
        here = min(rows_per_pass, x.tm - i * rows_per_pass)
        if here < rows_per_pass or full is None:
            r = r_st if here == rows_per_pass else k.v_and_b32(here - 1, r_st)
            sw = k.v_xor_b32(c_st, k.v_and_b32(3, k.v_lshrrev_b32(1, r)))  # the swizzle of row r
            wr = k.v_add_u32(x.lds, k.v_lshl_add_u32(r, 6, k.v_lshlrev_b32(4, sw)))
            g0 = k.v_add_u32(k.v_mul_lo_u32(k.v_add_u32(x.row0, r), x.lda), cb)
            if here == rows_per_pass:
                full = (g0, wr)
        g0_, wr_ = full if here == rows_per_pass else (g0, wr)
        g = k.v_add_u32(k.s_mul_i32(x.lda, k.s_mov_b32(i * rows_per_pass)), g0_) if i else g0_
        x.stage.append((g, wr_, i * rows_per_pass * TK))
    wave = k.v_readfirstlane_b32(k.v_lshrrev_b32(6, x.tid))
    x.wave_m = k.s_lshr_b32(wave, x.wn.bit_length() - 1)
    x.wave_n = k.s_and_b32(x.wn - 1, wave)
    lane = k.v_and_b32(63, x.tid)
    x.r32 = k.v_and_b32(31, lane)
    x.h = k.v_lshrrev_b32(5, lane)
    # B: the wave's column blocks j start at column col0 + wave_n wtn + 32 j; its 32-row block
    # of the pre-shuffled B starts at byte column * ldb; lane l reads 16 bytes at 16 l
    colw = k.s_add_u32(x.col0, k.s_mul_i32(x.wave_n, k.s_mov_b32(x.tn // x.wn)))
    lane16 = k.v_lshlrev_b32(4, lane)
    x.vb = [k.v_add_u32(k.s_mul_i32(k.s_add_u32(colw, 32 * j) if j else colw, x.ldb), lane16)
            for j in range(x.bn)]
    swz = k.v_and_b32(3, k.v_lshrrev_b32(1, x.r32))
    base_a = k.v_add_u32(x.lds, k.v_lshlrev_b32(6, k.v_add_u32(k.s_mul_i32(x.wave_m, k.s_mov_b32(x.tm // x.wm)),
                                                               x.r32)))
    x.rd = [k.v_add_u32(base_a, k.v_lshlrev_b32(4, k.v_xor_b32(swz, x.h if kp == 0 else k.v_or_b32(2, x.h))))
            for kp in range(2)]


def _tile_rsrcs(k, x, koff):
    """(A V#, B V#, A soffset, B soffset) of the K tile at byte ``koff`` of this split: V#s of
    zero records (loads read 0) once ``koff`` is at or past the split's end."""
    k.s_cmp_lt_u32(koff, x.klen)
    na = k.s_cselect_b32(x.num_a, 0)
    nb = k.s_cselect_b32(x.num_b, 0)
    so_a = k.s_add_u32(x.kbeg, koff)
    return _with_records(k, x.rs_a, na), _with_records(k, x.rs_b, nb), so_a, k.s_lshl_b32(so_a, 5)


def _load_a(k, x, ra, so_a):
    return [k.buffer_load_dwordx4(g, ra, so_a, offen=True)[0] for g, _, _ in x.stage]


def _load_b(k, x, rb, so_b, kp):
    """B operands [j] of operand half ``kp`` (pre-shuffled: K byte kk of a block at 32 kk)."""
    return [k.buffer_load_dwordx4(x.vb[j], rb, so_b, offen=True, offset=1024 * kp)[0] for j in range(x.bn)]


def _loads(k, x, koff):
    """The loads of the K tile at ``koff``: (A staging chunks, B operands [kp][j])."""
    ra, rb, so_a, so_b = _tile_rsrcs(k, x, koff)
    return _load_a(k, x, ra, so_a), _load_b(k, x, rb, so_b, 0) + _load_b(k, x, rb, so_b, 1)


def _main_loop(k, x):
    bm, bn = x.bm, x.bn
    buf = x.tm * TK
    slots_n = x.depth + 1
    unroll = math.lcm(2, slots_n)
    n_mf = 4 * bm * bn

    def read_a(kp, bufi):
        return [k.ds_read_b128(x.rd[kp], offset=bufi * buf + 32 * TK * i) for i in range(bm)]

    bar_at = n_mf - min(max(4, bm), n_mf // 2)
    n_ld = len(x.stage)
    w_at = {}
    for q in range(n_ld):
        w_at.setdefault(q * (n_mf // 2) // n_ld, []).append(q)
    order = [(kp, e, i, j) for kp in range(2) for e in range(2) for i in range(bm) for j in range(bn)]
    last_b = {kp: max(ix for ix, o in enumerate(order) if o[0] == kp) for kp in range(2)}

    def tile_step(bufi, accs, a0, bregs, staged, koff_load):
        """MFMAs of the tile in LDS buffer ``bufi`` (operand half 0 of A already read: ``a0``;
        its B operands ``bregs``); ``staged`` (the next tile's A) goes to the other buffer; the
        tile at ``koff_load`` is loaded (its B after the last MFMA reading ``bregs``' half, so
        it can take the same registers). Returns (next tile's a0, (A staging, B) loaded)."""
        other = (1 - bufi) * buf
        a_ops = {0: a0, 1: read_a(1, bufi)}
        writes, nxt, new_a, new_b = [], None, None, []
        ra, rb, so_a, so_b = _tile_rsrcs(k, x, koff_load)
        for idx, (kp, e, i, j) in enumerate(order):
            av, ta = a_ops[kp][i]
            if ta is not None:
                k.wait(ta)
            acc = accs[i * bn + j]
            bv = bregs[kp * bn + j]
            k.inst(MFMA, acc, av[2 * e: 2 * e + 2], bv[2 * e: 2 * e + 2], acc)  # in place
            for q in w_at.get(idx, ()):
                _, wr, lo = x.stage[q]
                writes.append(k.ds_write_b128(wr, staged[q], offset=other + lo))
            if idx == min(1, n_mf - 1):
                new_a = _load_a(k, x, ra, so_a)
            if idx == last_b[0]:
                new_b += _load_b(k, x, rb, so_b, 0)
            if idx == bar_at:
                k.wait(*writes)
                k.s_barrier()
                nxt = read_a(0, 1 - bufi)
        new_b += _load_b(k, x, rb, so_b, 1)
        return nxt, (new_a, new_b)

    # prologue: tile 0's A into LDS buffer 0 and its B into slot 0; tiles 1..depth into slots
    # 1..depth (slot 0's A part, tile 0's chunks, is a placeholder: step 0 replaces it unread)
    first_a, b0 = _loads(k, x, k.s_mov_b32(0))
    ws = [k.ds_write_b128(wr, v, offset=lo) for v, (_, wr, lo) in zip(first_a, x.stage)]
    k.wait(*ws)
    k.s_barrier()
    slots = [(first_a, b0)] + [_loads(k, x, k.s_mov_b32(TK * t)) for t in range(1, slots_n)]
    a0 = read_a(0, 0)
    zero2 = k.concat(k.v_mov_b32(0), k.v_mov_b32(0))
    accs = [k.agpr(None, 16) for _ in range(bm * bn)]
    for acc in accs:
        k.inst(MFMA, acc, zero2, zero2, 0)
    n_b = 2 * bn

    def flat(a0, slots):
        return [v for v, _ in a0] + [v for s_a, s_b in slots for v in (*s_a, *s_b)]

    # trips: ceil(klen / (unroll TK)) (the loop variable counts bytes of K); koff: the next
    # tile to load
    with k.loop(0, x.klen, unroll * TK, [*flat(a0, slots), k.s_mov_b32(TK * slots_n)]) as body:
        vals, koff = body.args[:-1], body.args[-1]
        a0 = [(v, None) for v in vals[:bm]]
        per = n_ld + n_b
        slots = [(vals[bm + s * per: bm + s * per + n_ld], vals[bm + s * per + n_ld: bm + (s + 1) * per])
                 for s in range(slots_n)]
        for u in range(unroll):
            cur = u % slots_n  # step u computes tile u (mod the ring) with its slot's B
            a0, slots[cur] = tile_step(u % 2, accs, a0, slots[cur][1], slots[(u + 1) % slots_n][0],
                                       k.s_add_u32(u * TK, koff) if u else koff)
        body.next(*flat(a0, slots), k.s_add_u32(unroll * TK, koff))
    return accs


def _epilogue(k, x, accs, p, atomic: bool) -> None:
    """Scales, bias, bf16 rounding and the pairs of columns out: stored (rows past M dropped by
    the buffer bounds) or, ``atomic``, added with ``global_atomic_pk_add_bf16`` (EXEC masks rows
    past M). Columns past N: an offset past the buffer / masked."""
    bm, bn = x.bm, x.bn
    wtm, wtn = x.tm // x.wm, x.tn // x.wn
    row_l = k.v_add_u32(k.s_add_u32(x.row0, k.s_mul_i32(x.wave_m, k.s_mov_b32(wtm))), k.v_lshlrev_b32(2, x.h))
    col_l = k.v_add_u32(k.s_add_u32(x.col0, k.s_mul_i32(x.wave_n, k.s_mov_b32(wtn))), x.r32)
    rs_sa = make_buffer_rsrc(k, p["sa"], k.s_lshl_b32(p["m"], 2))
    rs_sb = make_buffer_rsrc(k, p["sb"], k.s_lshl_b32(p["n"], 2))
    rs_bias = make_buffer_rsrc(k, p["bias"], p["bias_bytes"])
    ldc = p["ldc"]
    ra = k.v_lshlrev_b32(2, row_l)
    sa_v = {(i, q): k.buffer_load_dwordx4(ra, rs_sa, 0, offen=True, offset=4 * (32 * i + 8 * q))
            for i in range(bm) for q in range(4)}
    cb4 = k.v_lshlrev_b32(2, col_l)
    sb_v = [k.buffer_load_dword(cb4, rs_sb, 0, offen=True, offset=128 * j) for j in range(bn)]
    bi_v = [k.buffer_load_dword(cb4, rs_bias, 0, offen=True, offset=128 * j) for j in range(bn)]
    k.wait(*[t for _, t in sa_v.values()], *[t for _, t in sb_v], *[t for _, t in bi_v])
    odd = k.v_cmp_ne_u32_e64(0, k.v_and_b32(1, x.r32))
    # v_perm_b32 selectors: even lanes pack (own, partner)'s bf16 halves, odd (partner, own)
    sel = k.v_cndmask_b32_e64(k.v_mov_b32(k.s_mov_b32(0x07060302)), k.v_mov_b32(k.s_mov_b32(0x03020706)), odd)
    rnd = k.s_mov_b32(0x7FFF)
    pair_col = k.v_and_b32(-2, col_l)  # the even column of the lane's pair
    my_row = k.v_add_u32(row_l, k.v_cndmask_b32_e64(k.v_mov_b32(0), k.v_mov_b32(1), odd))  # odd lanes: row + 1
    if atomic:
        rs_c = None
    else:
        rs_c = make_buffer_rsrc(k, p["c"], k.s_mul_i32(p["m"], ldc))
        oob = k.v_mov_b32(k.s_mov_b32(OOB))
    for j in range(bn):
        col = k.v_add_u32(32 * j, pair_col) if j else pair_col
        off = k.v_lshl_add_u32(col, 1, k.v_mul_lo_u32(my_row, ldc))
        col_ok = k.v_cmp_gt_u32_e64(p["n"], col)
        if not atomic:
            off = k.v_cndmask_b32_e64(oob, off, col_ok)  # columns past N: dropped
        for i in range(bm):
            vals = []
            for r, v in enumerate(accs[i * bn + j].split()):
                f = k.v_cvt_f32_i32(k.v_accvgpr_read_b32(v))
                f = k.v_mul_f32(f, sa_v[(i, r // 4)][0].split()[r % 4])
                f = k.v_add_f32(k.v_mul_f32(f, sb_v[j][0]), bi_v[j][0])
                vals.append(k.v_add3_u32(f, rnd, k.v_bfe_u32(f, 16, 1)))  # round to nearest even
            for r in range(0, 16, 2):
                # rows r, r + 1 of the lane's column: even lanes keep row r and give row r + 1
                give = k.v_cndmask_b32_e64(vals[r + 1], vals[r], odd)
                keep = k.v_cndmask_b32_e64(vals[r], vals[r + 1], odd)
                got = k.inst("v_mov_b32", give, quad_perm=[1, 0, 3, 2])
                packed = k.v_perm_b32(got, keep, sel)
                step = 32 * i + 8 * (r // 4) + r % 4  # the pair's first row below the lane's first
                so = k.s_mul_i32(ldc, k.s_mov_b32(step)) if step else 0
                if not atomic:
                    k.buffer_store_dword(packed, off, rs_c, so, offen=True)
                    continue
                ok = k.s_and_b64(col_ok, k.v_cmp_gt_u32_e64(p["m"], k.v_add_u32(step, my_row) if step else my_row))
                with masked(k, ok):
                    k.global_atomic_pk_add_bf16(k.v_add_u32(so, off) if step else off, packed, p["c"])


if __name__ == "__main__":
    print(build())

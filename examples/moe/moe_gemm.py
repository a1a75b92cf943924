"""The main loop both fused-MoE GEMM stages share: one block of ``m_blk`` sorted token slots
of one expert times that expert's fp8 weight matrix, rows gathered by token id.

The data format is aiter's (``aiter/fused_moe.py``, ``csrc/py_itfs_cu/asm_moe_2stage.cu``):

* ``sorted_ids`` (i32): per expert, the (token, top-k slot) pairs routed to it, each packed
  ``token | (slot << 24)``, padded to a multiple of the block size with ``tokens | (topk << 24)``
  (ck_tile's ``MOE_SORTING_MOCK_ID(tokens, topk)``); ``sorted_expert_ids`` (i32): the expert of
  each block; ``num_valid_ids[0]``: how many entries of ``sorted_ids`` are in use (blocks at or
  past it are skipped: the grid covers the allocation's upper bound, as aiter's launcher does).
* Weights in aiter's pre-shuffled order, ``shuffle_weight(w, layout=(16, 16))`` for fp8
  (``aiter/ops/shuffle.py``; ``shuffle`` below): per expert, blocks of 16 rows x 32 bytes of K,
  each stored as two runs of 16 bytes for each of its 16 rows. A ``buffer_load_dwordx4`` then
  reads, for lane ``l``, row ``l % 32`` and bytes ``16 (l // 32) .. +15`` of a 32-byte K step in
  two contiguous 512-byte runs.

Operands come straight from global memory (no LDS): lane ``l`` of ``v_mfma_f32_32x32x16_fp8_fp8``
holds row ``l % 32`` and 8 bytes of K, ``8 (l // 32) .. +7`` (AMD Matrix Instruction Calculator,
CDNA3); a 16-byte load feeds two MFMAs, the first with its low 8 bytes, the second with its high
8, for A and B alike, so both see the same permutation of K and the sum is unchanged. A padded
slot's token id is ``tokens``, past the end of the activations, so its row reads 0 (buffer range
checking, MI300 ISA guide "Buffer Instructions") and its stores are dropped: no branch per slot.

K (bytes) is a run-time SGPR; it must be a multiple of ``32 unroll depth`` (a loop trip is ``depth``
chunks of ``unroll`` 32-byte K steps, each loaded ``depth`` chunks ahead into its register slot).
"""

from __future__ import annotations

import numpy as np

from gcnforge.isa.target import target
from gcnforge.lib import make_buffer_rsrc

MFMA = "v_mfma_f32_32x32x16_fp8_fp8"
ROWS = 32  # rows (and columns) of one MFMA tile
WAVES = 4  # per work-group
KSTEP = 32  # bytes of K per dwordx4 operand load: two MFMAs of 16
SHUF_N, SHUF_K = 16, 32  # aiter shuffle_weight(layout=(16, 16)) blocks for 1-byte elements
PAD_SHIFT = 24  # sorted id = token | (slot << 24)


def shuffle(w: np.ndarray) -> np.ndarray:
    """``w`` [..., N, K] (1-byte elements) in aiter's ``shuffle_weight(w, layout=(16, 16))`` order."""
    *lead, n, kk = w.shape
    if n % SHUF_N or kk % SHUF_K:
        raise ValueError(f"shuffle: N must be a multiple of {SHUF_N} and K of {SHUF_K}, got {n} x {kk}")
    return (w.reshape(-1, n // SHUF_N, SHUF_N, kk // SHUF_K, 2, 16).transpose(0, 1, 3, 4, 2, 5)
            .reshape(w.shape))


def offset_rsrc(k, ptr, index, stride, nbytes):
    """The V# of the slice ``ptr + index * stride`` (SGPRs, the product 64-bit) of ``nbytes``."""
    lo, hi = ptr.split()
    plo, phi = k.s_mul_i32(index, stride), k.s_mul_hi_u32(index, stride)
    return make_buffer_rsrc(k, k.concat(k.s_add_u32(lo, plo), k.s_addc_u32(hi, phi)), nbytes)


def block_or_exit(k, xc, sep, m_blk: int):
    """This work-group's block (``block_id("y")``): ends the kernel when the block starts at or
    past ``num_valid_ids[0]``; returns (block, first sorted slot, num_valid, expert)."""
    blk = k.block_id("y")
    nv, t0 = k.s_load_dword(xc, 0)
    e, t1 = k.s_load_dword(sep, k.s_lshl_b32(blk, 2))
    first = k.s_mul_i32(blk, k.s_mov_b32(m_blk))
    k.wait(t0, t1)
    k.s_cmp_ge_u32(first, nv)
    done, work = k.new_block(), k.new_block()
    k.branch("s_cbranch_scc1", done, work)
    k.set_block(done)
    k.s_endpgm()
    k.set_block(work)
    return blk, first, nv, e


class Lane:
    """Per-lane indices of the 32 x 32 MFMA tiles: ``r`` = l % 32 (operand row), ``h`` = l // 32."""

    def __init__(self, k):
        tid = k.thread_id("x")
        self.wave = k.v_readfirstlane_b32(k.v_lshrrev_b32(6, tid))
        lane = k.v_and_b32(63, tid)
        self.r = k.v_and_b32(31, lane)
        self.h = k.v_lshrrev_b32(5, lane)


def b_lane_offset(k, ln: Lane, kb):
    """Byte offset of lane ``l``'s first 16 bytes in a shuffled matrix with rows of ``kb`` bytes
    (SGPR), relative to the fragment's first row (a multiple of 32): row ``r`` lies in 16-row
    block ``r // 16`` (16 kb bytes each), run ``h`` (256 bytes each), at ``16 (r % 16)``."""
    blk16 = k.v_mul_u32_u24(k.v_lshrrev_b32(4, ln.r), k.s_lshl_b32(kb, 4))
    return k.v_add_u32(blk16, k.v_lshl_or_b32(ln.h, 8, k.v_lshlrev_b32(4, k.v_and_b32(15, ln.r))))


def main_loop(k, rs_a, na: int, rows_fn, rs_b, b_offs, kb, unroll: int, k0=None, depth: int = 2, hook=None):
    """``accs[i][f]`` (16 AGPRs each): the ``na`` A row blocks ``rows_fn()[i]`` (lane byte offsets,
    K byte 16 h included; called once the first chunks of B are loading: it may wait for the
    sorted ids) times B fragments ``b_offs[f]`` (lane byte offsets from ``b_lane_offset`` plus
    the fragment's first row times the row length), over ``kb`` bytes of K (SGPR, a
    multiple of ``KSTEP unroll depth``) from byte ``k0`` (SGPR; None: 0). K goes in chunks of
    ``unroll`` 32-byte steps through ``depth`` register slots: chunk ``c`` is loaded ``depth``
    chunks ahead, into slot ``c % depth`` in place right after the MFMAs of chunk ``c - depth``
    read it (the last loads are clamped to the last chunk); a loop trip is ``depth`` chunks.
    ``hook()`` runs after the first chunks' loads are issued (loads the epilogue needs)."""
    chunk = KSTEP * unroll
    last = k.s_sub_u32(kb, chunk)

    def load(koff, parts="ab"):
        if k0 is not None:
            koff = k.s_add_u32(koff, k0)
        bko = k.s_lshl_b32(koff, 4)  # 32 bytes of K are 512 bytes of a shuffled 16-row block
        a = [k.buffer_load_dwordx4(o, rs_a, koff, offen=True, offset=KSTEP * u)[0]
             for u in range(unroll) for o in a_offs] if "a" in parts else []
        b = [k.buffer_load_dwordx4(o, rs_b, bko, offen=True, offset=SHUF_N * KSTEP * u)[0]
             for u in range(unroll) for o in b_offs] if "b" in parts else []
        return a + b

    nb = len(b_offs)
    per = unroll * (na + nb)

    def mfmas(regs):
        for u in range(unroll):
            a, b = regs[u * na:(u + 1) * na], regs[unroll * na + u * nb: unroll * na + (u + 1) * nb]
            for half in range(2):
                for i in range(na):
                    for f in range(nb):
                        acc = accs[i][f]
                        k.inst(MFMA, acc, a[i].split(2, 2)[half], b[f].split(2, 2)[half], acc)

    zero2 = k.concat(k.v_mov_b32(0), k.v_mov_b32(0))
    accs = [[k.agpr(None, 16) for _ in range(nb)] for _ in range(na)]
    for row in accs:
        for acc in row:
            k.inst(MFMA, acc, zero2, zero2, 0)
    # the weights' first chunks go out before the rows' sorted ids are waited for
    b_first = [load(k.s_mov_b32(chunk * d), "b") for d in range(depth)]
    a_offs = rows_fn()
    first = [r for d in range(depth) for r in load(k.s_mov_b32(chunk * d), "a") + b_first[d]]
    if hook is not None:
        hook()
    with k.loop(0, kb, depth * chunk, first) as body:
        slots = [list(body.args[d * per:(d + 1) * per]) for d in range(depth)]
        for d in range(depth):
            mfmas(slots[d])
            slots[d] = load(k.s_min_u32(k.s_add_u32(body.iv, (d + depth) * chunk), last))
        body.next(*[r for sl in slots for r in sl])
    return accs


GROUP = 4 * 64 * 4  # LDS bytes of one register group (4 registers, 64 lanes, f32)


def tile_shape(m_blk: int, tn: int, unroll: int, wk: int, depth: int, halves: int = 1) -> tuple[int, int, int]:
    """(waves along the columns, MFMA tiles per wave along rows and columns) of a stage's
    ``m_blk x tn`` work-group tile with K split over ``wk`` waves; refuses a tile the loop cannot
    serve or whose K-split reduction (``halves`` accumulator sets: stage 1 keeps gate and up)
    does not fit the LDS of a work-group (``isa.target``)."""
    wn = WAVES // wk
    if m_blk % ROWS or wk not in (1, 2, 4) or tn % (wn * ROWS) or unroll < 1 or depth < 1:
        raise ValueError(f"m_blk a multiple of {ROWS}, wk 1, 2 or 4, tn a multiple of {wn * ROWS}")
    bm, bn = m_blk // ROWS, tn // (wn * ROWS)
    need, have = lds_bytes(wk, halves * bm * bn), target("gfx942").lds_bytes
    if need > have:
        raise ValueError(f"the K-split reduction needs {need} bytes of LDS (a work-group has {have})")
    return wn, bm, bn


def lds_bytes(wk: int, n_tiles: int) -> int:
    """LDS of the K-split reduction: every wave's tiles, 4 groups each."""
    return 0 if wk == 1 else WAVES * n_tiles * 4 * GROUP


def my_groups(k, wk: int, kw) -> list:
    """The register groups ``q`` (rows ``8 q + 4 h + 0..3``) this wave finishes: all four when
    ``wk`` = 1 (ints), else ``kw 4 / wk ..`` (SGPRs)."""
    if wk == 1:
        return [0, 1, 2, 3]
    per = 4 // wk
    q0 = k.s_mul_i32(kw, k.s_mov_b32(per))
    return [q0] + [k.s_add_u32(q0, qq) for qq in range(1, per)]


def reduce_k(k, accs, wk: int, kw, wn_i, qs: list, lazy: bool = False):
    """The wave's share of the finished tiles: ``{(i, f): [(q, r, f32 VGPR)]}``, register
    ``4 q + r`` (row ``8 q + 4 h + r``; ``q`` an int or an SGPR). With ``wk`` waves along K, wave
    ``kw`` of the ``wk`` waves with column index ``wn_i`` finishes register groups
    ``qs`` (``my_groups``) by summing the ``wk`` partial tiles through LDS (every wave writes
    all its registers, one barrier, each reads its groups of the others); ``wk`` = 1: every
    register, read from the AGPRs (``lazy``: the AGPRs themselves, read at their use by
    ``value``, so a tile of many registers is not all live in VGPRs at once)."""
    flat = [(i, f) for i in range(len(accs)) for f in range(len(accs[0]))]
    if wk == 1:
        return {(i, f): [(j // 4, j % 4, v if lazy else k.v_accvgpr_read_b32(v))
                         for j, v in enumerate(accs[i][f].split())] for i, f in flat}
    nt = len(flat)
    wave_bytes = nt * 4 * GROUP
    lds = k.lds(lds_bytes(wk, nt))
    lane16 = k.v_lshlrev_b32(4, k.v_and_b32(63, k.thread_id("x")))
    first_wave = k.s_mul_i32(wn_i, k.s_mov_b32(wk))  # of the waves sharing these columns
    mine = k.v_add_u32(k.s_mul_i32(k.s_add_u32(first_wave, kw), k.s_mov_b32(wave_bytes)), k.v_add_u32(lds, lane16))
    ws = []
    for a, (i, f) in enumerate(flat):
        regs = accs[i][f].split()
        for q in range(4):
            v = k.concat(*[k.v_accvgpr_read_b32(regs[4 * q + r]) for r in range(4)])
            ws.append(k.ds_write_b128(mine, v, offset=(4 * a + q) * GROUP))
    k.wait(*ws)
    k.s_barrier()
    base = k.v_add_u32(k.s_mul_i32(first_wave, k.s_mov_b32(wave_bytes)), k.v_add_u32(lds, lane16))
    out = {}
    for a, (i, f) in enumerate(flat):
        out[(i, f)] = []
        for q in qs:
            addr = k.v_add_u32(k.s_mul_i32(k.s_add_u32(q, 4 * a), k.s_mov_b32(GROUP)), base)
            parts = [k.ds_read_b128(addr, offset=w * wave_bytes) for w in range(wk)]
            k.wait(*[t for _, t in parts])
            sums = parts[0][0].split()
            for w in range(1, wk):
                sums = [k.v_add_f32(x, y) for x, y in zip(sums, parts[w][0].split())]
            out[(i, f)] += [(q, r, sums[r]) for r in range(4)]
    return out


def value(k, x):
    """A ``reduce_k`` result as a VALU operand: an AGPR (``lazy``) is read into a VGPR here."""
    return k.v_accvgpr_read_b32(x) if x.file == "a" else x


def ids_group(k, rs, ln: Lane, i: int, q):
    """The 4 sorted entries (dwordx4) of rows ``32 i + 8 q + 4 h + 0..3`` (``q`` int or SGPR)."""
    base = k.v_lshlrev_b32(4, ln.h)  # 4 h rows of 4 bytes
    if isinstance(q, int):
        return k.buffer_load_dwordx4(base, rs, 0, offen=True, offset=4 * (ROWS * i + 8 * q))
    return k.buffer_load_dwordx4(base, rs, k.s_lshl_b32(q, 5), offen=True, offset=4 * ROWS * i)


def bf16_round(k, x):
    """f32 bits -> bf16 in the high half, round to nearest even (a finite ``x``)."""
    return k.v_add3_u32(x, k.s_mov_b32(0x7FFF), k.v_bfe_u32(x, 16, 1))

"""MoE token sorting as aiter's ``moe_sorting`` produces it (format: ``moe/reference.py``).

``topk_ids[T, k]`` (i32), ``topk_weights[T, k]`` (f32) -> ``sorted_ids``, ``sorted_weights``,
``sorted_expert_ids``, ``num_valid_ids`` for a run-time token count T (a kernel argument);
E experts, k and the block size M are compile-time.

Many work-groups (``grid(T, E, k, M)``, 256 work-items each), none waiting for another: work-group
``w`` sorts the pairs of tokens ``[16 w, 16 w + 16)`` and writes blocks ``[16 w, 16 w + 16)`` of
``sorted_expert_ids`` with the padding of those blocks. To know where its tokens go it counts
every pair itself (each work-group reads all ``T k`` expert ids: O(T) each, in parallel across
the CUs, where one work-group writing every scattered pair alone was bound by its CU's
vector-memory pipe). Phases:

1. **count** (4 waves): per expert, the pairs of all tokens and those of the tokens before
   ``16 w``: ``ds_add_u32`` into two LDS histograms, the ids read as one flat array (coalesced).
2. **offsets** (wave 0 from here on): lane ``l`` holds experts ``l + 64 j``; each count padded
   to a multiple of M (0 stays 0: an expert no token picked gets no block), an exclusive prefix
   sum over experts (``gcnforge.lib.wave_scan`` per register, each register's total carried to
   the next) gives each expert's first position; its first free position for this work-group's
   tokens adds the count of the tokens before them. Work-group 0 writes ``num_valid_ids`` =
   [the padded total, T].
3. **scatter**: the order inside an expert is by token. Every lane (a token) ``ds_or_b32``'s its
   bit into a 64-bit LDS mask per picked expert (order-free), then reads it back: its rank among
   the work-group's tokens with that expert is ``v_mbcnt_lo/hi`` of the mask (the set bits below
   the lane), its position the expert's first free position + rank.
4. **blocks and padding**: the expert of each of the work-group's blocks is the largest expert
   whose first block is at or before it (each expert with a block in the range writes its id at
   the first such block of an LDS table, then a ``umax`` prefix scan fills the rest); each
   expert's last block records how many of its M entries are valid. Every entry past that gets
   the padding id (``T | k << 24``) and weight 0; the scatter writes the others (of any work-group:
   the addresses are disjoint, so no ordering between work-groups is needed).
"""

from __future__ import annotations

import contextlib

import numpy as np

from gcnforge.builder import Arg, Module
from gcnforge.lib import masked, wave_scan

from moe import reference as ref

WAVE = 64  # lanes of one wave: experts lane + 64 j in the offsets phase
WAVES = 4  # per work-group in the count phase
TOKENS_PER_WG = 16  # tokens a work-group scatters: a lane each (fewer lines per scattered store)
BLOCKS_PER_WG = 16  # blocks of sorted_expert_ids (and their padding) a work-group writes
LOADS = 8  # dword loads of expert ids in flight per lane in the count phase
SLOT_SHIFT = 24  # token | slot << 24 (reference.SLOT_SHIFT, CK MOE_SORTING_MOCK_ID)


def kernel_name(experts: int, topk: int, block_m: int) -> str:
    return f"moe_sorting_e{experts}_k{topk}_m{block_m}"


def grid(tokens: int, experts: int, topk: int, block_m: int) -> tuple[int, int, int]:
    """Enough work-groups for every token and every block of the allocation's bound."""
    blocks = ref.max_blocks(tokens, topk, experts, block_m)
    return (max(1, -(-tokens // TOKENS_PER_WG), -(-blocks // BLOCKS_PER_WG)), 1, 1)


BLOCK = (WAVE * WAVES, 1, 1)


def build(experts: int = 8, topk: int = 2, block_m: int = 32, name: str | None = None) -> Module:
    if not 1 <= topk <= 8 or not 1 <= experts <= 1024 or block_m not in (16, 32, 64, 128, 256):
        raise ValueError("moe sorting: experts 1..1024, top-k 1..8, block_m a power of two 16..256")
    name = name or kernel_name(experts, topk, block_m)
    m = Module(name)
    i32, f32 = np.int32, np.float32
    args = [Arg.ptr("topk_ids", i32, access="read_only"), Arg.ptr("topk_weights", f32, access="read_only"),
            Arg.ptr("sorted_ids", i32, access="write_only"), Arg.ptr("sorted_weights", f32, access="write_only"),
            Arg.ptr("sorted_expert_ids", i32, access="write_only"), Arg.ptr("num_valid_ids", i32, access="write_only"),
            Arg.value("tokens", i32)]
    regs = -(-experts // WAVE)
    with m.kernel(name, args, workgroup_size=BLOCK) as k:
        ids, wts, s_ids, s_wts, s_eids, nvalid, tokens = k.args()
        wg, tid = k.block_id("x"), k.thread_id("x")
        lds = dict(tot=k.lds(4 * WAVE * regs), pos=k.lds(4 * WAVE * regs), mask=k.lds(8 * WAVE * regs),
                   ex=k.lds(4 * WAVE), val=k.lds(4 * WAVE))
        first_tok = k.s_mul_i32(wg, k.s_mov_b32(TOKENS_PER_WG))
        _clear(k, lds, experts, tid)
        _count(k, ids, tokens, lds, topk, tid, k.s_mul_i32(first_tok, k.s_mov_b32(topk)))
        _wave0_only(k, tid)
        lane = k.v_and_b32(WAVE - 1, tid)
        lane4 = k.v_lshlrev_b32(2, lane)
        live = [None if experts >= WAVE * (j + 1) else k.v_cmp_gt_u32_e64(_c(k, experts - WAVE * j), lane)
                for j in range(regs)]
        start, cnt, padded, total = _offsets(k, lds, regs, lane4, block_m, live)
        with masked(k, k.v_cmp_eq_u32_e64(0, k.v_or_b32(wg, lane))):  # work-group 0, lane 0
            k.global_store_dwordx2(k.v_mov_b32(0), k.concat(k.v_mov_b32(total), k.v_mov_b32(tokens)), nvalid)
        _scatter(k, ids, wts, s_ids, s_wts, tokens, first_tok, lds, topk, lane)
        b0 = k.s_mul_i32(wg, k.s_mov_b32(BLOCKS_PER_WG))
        _tables(k, lds, start, cnt, padded, b0, lane, lane4, block_m, live)
        pad = k.s_or_b32(tokens, topk << SLOT_SHIFT)
        _blocks(k, lds, s_ids, s_wts, s_eids, b0, k.s_lshr_b32(total, block_m.bit_length() - 1), pad, lane, lane4,
                block_m)
        k.s_endpgm()
    m.verify()
    return m


def _c(k, x: int):
    """``x`` as a VOP3 operand: an inline constant, or an SGPR (VOP3 takes no literal on gfx942)."""
    return x if -16 <= x <= 64 else k.s_mov_b32(x)


def _clear(k, lds, experts: int, tid):
    """Zero both histograms (all work-items), then a barrier."""
    zero = k.v_mov_b32(0)
    off = k.v_lshlrev_b32(2, tid)
    for u in range(-(-experts // (WAVE * WAVES))):
        cond = None if experts >= WAVE * WAVES * (u + 1) else k.v_cmp_gt_u32_e64(_c(k, experts - WAVE * WAVES * u), tid)
        with masked(k, cond) if cond is not None else contextlib.nullcontext():
            for a in (lds["tot"], lds["pos"]):
                k.ds_write_b32(k.v_add_u32(a, off), zero, offset=4 * WAVE * WAVES * u)
    k.s_waitcnt(lgkmcnt=0)
    k.s_barrier()


def _count(k, ids, tokens, lds, topk: int, tid, before):
    """Both histograms over the flat ``T k`` ids (``ds_add_u32``, order-free): ``tot`` all of
    them, ``pos`` those before flat index ``before`` (this work-group's first token's): one loop
    over ``[0, before)`` adding to both, one over ``[before, T k)`` adding to ``tot`` (an atomic
    of no lane still takes its LDS pass). The 4 waves take ``LOADS`` dwords per lane per trip;
    then a barrier (after every wave's LDS atomics are done)."""
    n = k.s_mul_i32(tokens, k.s_mov_b32(topk))
    lim = k.s_min_u32(before, n)
    one = k.v_mov_b32(1)
    step = WAVE * WAVES
    for lo, hi, hists in ((k.s_mov_b32(0), lim, ("tot", "pos")), (lim, n, ("tot",))):
        with k.loop(lo, hi, step * LOADS) as body:
            idx = [k.v_add_u32(k.s_add_u32(body.iv, step * u) if u else body.iv, tid) for u in range(LOADS)]
            inside = [k.v_cmp_gt_u32_e64(hi, i) for i in idx]
            loads = []
            for i, c in zip(idx, inside, strict=True):
                with masked(k, c):
                    loads.append(k.global_load_dword(k.v_lshlrev_b32(2, i), ids))
            k.wait(*[t for _, t in loads])
            for c, (e, _) in zip(inside, loads, strict=True):
                e4 = k.v_lshlrev_b32(2, e)
                with masked(k, c):
                    for h in hists:
                        k.ds_add_u32(k.v_add_u32(lds[h], e4), one)
    k.s_waitcnt(lgkmcnt=0)
    k.s_barrier()


def _wave0_only(k, tid):
    """Waves 1..3 end here."""
    wave = k.v_readfirstlane_b32(k.v_lshrrev_b32(6, tid))
    k.s_cmp_lg_u32(wave, 0)
    done, work = k.new_block(), k.new_block()
    k.branch("s_cbranch_scc1", done, work)
    k.set_block(done)
    k.s_endpgm()
    k.set_block(work)


def _offsets(k, lds, regs, lane4, block_m, live):
    """Per register j: (first position, count, padded count) of expert lane + 64 j, and the
    padded total; the first free position of this work-group's tokens (first position + the
    count before them) replaces the ``pos`` histogram."""
    sh = block_m.bit_length() - 1
    tot_a, pos_a = k.v_add_u32(lds["tot"], lane4), k.v_add_u32(lds["pos"], lane4)
    reads = [k.ds_read_b32(tot_a, offset=4 * WAVE * j) for j in range(regs)]
    befs = [k.ds_read_b32(pos_a, offset=4 * WAVE * j) for j in range(regs)]
    k.wait(*[t for _, t in reads + befs])
    carry = k.s_mov_b32(0)
    starts, cnts, padded = [], [], []
    for j, (c, _) in enumerate(reads):
        if live[j] is not None:
            c = k.v_cndmask_b32_e64(0, c, live[j])
        p = k.v_lshlrev_b32(sh, k.v_lshrrev_b32(sh, k.v_add_u32(block_m - 1, c)))
        incl = wave_scan(k, p, "iadd")
        starts.append(k.v_add_u32(carry, k.v_sub_u32(incl, p)))
        carry = k.s_add_u32(carry, k.v_readlane_b32(incl, WAVE - 1))
        cnts.append(c)
        padded.append(p)
    toks = [k.ds_write_b32(pos_a, k.v_add_u32(s, b), offset=4 * WAVE * j)
            for j, (s, (b, _)) in enumerate(zip(starts, befs, strict=True))]
    k.wait(*toks)
    return starts, cnts, padded, carry


def _scatter(k, ids, wts, s_ids, s_wts, tokens, first_tok, lds, topk, lane):
    """This work-group's tokens (a lane each, in order): mark, rank, store. No waits between
    the LDS operations: one wave's are performed in order."""
    t = k.v_add_u32(first_tok, lane)
    cond = k.s_and_b64(k.v_cmp_gt_u32_e64(tokens, t), k.v_cmp_gt_u32_e64(TOKENS_PER_WG, lane))
    zero = k.v_mov_b32(0)
    bit = k.v_lshlrev_b32(k.v_and_b32(31, lane), 1)  # this lane's bit in its half of the mask
    half = k.v_lshlrev_b32(2, k.v_lshrrev_b32(5, lane))  # +4 bytes for lanes 32..63
    with masked(k, cond):
        row = k.v_mul_u32_u24(4 * topk, t)
        loads = [k.global_load_dword(row, p, offset=4 * s) for p in (ids, wts) for s in range(topk)]
        k.wait(*[tk for _, tk in loads])
        es, ws = [v for v, _ in loads[:topk]], [v for v, _ in loads[topk:]]
        maddr = [k.v_add_u32(lds["mask"], k.v_lshlrev_b32(3, e)) for e in es]
        paddr = [k.v_add_u32(lds["pos"], k.v_lshlrev_b32(2, e)) for e in es]
        for a in maddr:  # masks of the picked experts cleared (another lane's expert may be cleared twice: order-free)
            k.ds_write_b64(a, k.concat(zero, zero))
        for a in maddr:
            k.ds_or_b32(k.v_add_u32(a, half), bit)
        masks = [k.ds_read_b64(a) for a in maddr]
        bases = [k.ds_read_b32(a) for a in paddr]
        k.wait(*[tk for _, tk in masks + bases])
        for s in range(topk):
            lo, hi = masks[s][0].split()
            rank = k.v_mbcnt_hi_u32_b32(hi, k.v_mbcnt_lo_u32_b32(lo, 0))
            p = k.v_lshlrev_b32(2, k.v_add_u32(bases[s][0], rank))
            k.global_store_dword(p, k.v_or_b32(s << SLOT_SHIFT, t), s_ids)
            k.global_store_dword(p, ws[s], s_wts)


def _tables(k, lds, start, cnt, padded, b0, lane, lane4, block_m, live):
    """LDS tables of this work-group's blocks b0 + i: ``ex[i]`` the id of each expert whose
    blocks reach into the range, at its first block in it (0 elsewhere); ``val[i]`` the valid
    entries of block i (M, or fewer at an expert's last block)."""
    sh = block_m.bit_length() - 1
    k.ds_write_b32(k.v_add_u32(lds["ex"], lane4), k.v_mov_b32(0))
    k.ds_write_b32(k.v_add_u32(lds["val"], lane4), k.v_mov_b32(_c(k, block_m)))
    for j, (s, c, p) in enumerate(zip(start, cnt, padded, strict=True)):
        e = k.v_add_u32(WAVE * j, lane)
        f, nb = k.v_lshrrev_b32(sh, s), k.v_lshrrev_b32(sh, p)
        end = k.v_add_u32(f, nb)
        has = k.v_cmp_ne_u32_e64(0, nb)
        if live[j] is not None:
            has = k.s_and_b64(has, live[j])
        # blocks [f, end) meet [b0, b0 + BLOCKS_PER_WG): end > b0 and f < b0 + BLOCKS_PER_WG
        meets = k.s_and_b64(k.s_and_b64(has, k.v_cmp_lt_u32_e64(b0, end)),
                            k.v_cmp_gt_u32_e64(k.s_add_u32(b0, BLOCKS_PER_WG), f))
        with masked(k, meets):
            at = k.v_sub_u32(k.v_max_u32(b0, f), b0)
            k.ds_write_b32(k.v_add_u32(lds["ex"], k.v_lshlrev_b32(2, at)), e)
        last = k.v_sub_u32(k.v_sub_u32(end, 1), b0)  # wraps below b0: out of range unsigned
        rem = k.v_sub_u32(c, k.v_lshlrev_b32(sh, k.v_sub_u32(nb, 1)))
        short = k.s_and_b64(k.s_and_b64(has, k.v_cmp_gt_u32_e64(BLOCKS_PER_WG, last)),
                            k.v_cmp_gt_u32_e64(_c(k, block_m), rem))
        with masked(k, short):
            k.ds_write_b32(k.v_add_u32(lds["val"], k.v_lshlrev_b32(2, last)), rem)


def _blocks(k, lds, s_ids, s_wts, s_eids, b0, nblk, pad, lane, lane4, block_m):
    """``sorted_expert_ids`` of this work-group's blocks below ``nblk`` and the padding of
    their entries past ``val`` (lane i: block b0 + i; then per block, lanes over its M entries)."""
    ex, t0 = k.ds_read_b32(k.v_add_u32(lds["ex"], lane4))
    val, t1 = k.ds_read_b32(k.v_add_u32(lds["val"], lane4))
    k.wait(t0, t1)
    ex = wave_scan(k, ex, "umax")
    b = k.v_add_u32(b0, lane)
    inb = k.s_and_b64(k.v_cmp_gt_u32_e64(BLOCKS_PER_WG, lane), k.v_cmp_gt_u32_e64(nblk, b))
    with masked(k, inb):
        k.global_store_dword(k.v_lshlrev_b32(2, b), ex, s_eids)
    val = k.v_cndmask_b32_e64(k.v_mov_b32(block_m), val, inb)  # blocks past the total: nothing to pad
    padv, zero = k.v_mov_b32(pad), k.v_mov_b32(0)
    for i in range(BLOCKS_PER_WG):
        v = k.v_readlane_b32(val, i)
        base = k.s_mul_i32(k.s_add_u32(b0, i), k.s_mov_b32(4 * block_m))
        for q in range(-(-block_m // WAVE)):
            r = k.v_add_u32(WAVE * q, lane) if q else lane
            cond = k.v_cmp_le_u32_e64(v, r)
            if block_m < WAVE:
                cond = k.s_and_b64(cond, k.v_cmp_gt_u32_e64(_c(k, block_m), r))
            with masked(k, cond):
                off = k.v_add_u32(base, k.v_lshlrev_b32(2, r))
                k.global_store_dword(off, padv, s_ids)
                k.global_store_dword(off, zero, s_wts)

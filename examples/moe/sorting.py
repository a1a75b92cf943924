"""MoE token sorting as aiter's ``moe_sorting`` produces it (format: ``moe/reference.py``).

``topk_ids[T, k]`` (i32), ``topk_weights[T, k]`` (f32) -> ``sorted_ids``, ``sorted_weights``,
``sorted_expert_ids``, ``num_valid_ids`` for a run-time token count T (a kernel argument);
E experts, k and the block size M are compile-time. One wave (grid 1, block 64), four phases:

1. **count**: per expert, the number of (token, slot) pairs that picked it: ``ds_add_u32`` into
   an LDS histogram, 64 tokens per step (lane = token), one atomic per slot.
2. **offsets**: lane ``l`` holds experts ``l + 64 j``; each count padded to a multiple of M (0
   stays 0: an expert no token picked gets no block), an exclusive prefix sum over experts
   (``gcnforge.lib.wave_scan`` per register, each register's total carried to the next) gives
   each expert's first position; ``num_valid_ids`` = [the total, T].
3. **blocks and padding**: each lane writes its experts' ids over their blocks (a run-time
   loop up to the largest block count over the wave, lanes past their own masked); every
   position below the padded total gets the padding id (``T | k << 24``) and weight 0 in
   whole cache lines (``global_store_dwordx4``), which the scatter then overwrites.
4. **scatter**: the order inside an expert is by token. For each step of 64 tokens, every
   lane ``ds_or_b32``'s its bit into a 64-bit LDS mask per picked expert (order-free), then
   reads that mask back: its rank among the step's tokens with that expert is
   ``v_mbcnt_lo/hi`` of the mask (the set bits below the lane), its position the expert's
   running position + rank. The lane of rank 0 adds the mask's popcount to the running
   position (``ds_add_u32``); the masks are cleared for the next step.
"""

from __future__ import annotations

import numpy as np

from gcnforge.builder import Arg, Module
from gcnforge.lib import masked, wave_reduce, wave_scan

WAVE = 64  # lanes of one wave: one token per lane in the count and scatter steps
SLOT_SHIFT = 24  # token | slot << 24 (reference.SLOT_SHIFT, CK MOE_SORTING_MOCK_ID)


def _lds_regs(k, lds, regs: int, lane4, stride: int = 4, offset: int = 0):
    """Per-register LDS byte addresses of lane l's experts l + 64 j (``stride`` bytes each)."""
    base = k.v_add_u32(lds, lane4) if stride == 4 else k.v_add_u32(lds, k.v_lshlrev_b32(1, lane4))
    return [(base, offset + j * WAVE * stride) for j in range(regs)]


def _expert_lanes(k, experts: int, regs: int, lane):
    """Lane masks of the experts ``lane + 64 j`` that exist (E not a multiple of 64)."""
    return [None if experts >= WAVE * (j + 1) else k.v_cmp_gt_u32_e64(experts - WAVE * j, lane) for j in range(regs)]


def _store(k, value, base, idx, cond=None):
    """``base[idx] = value`` (dwords) in the lanes of ``cond``."""
    off = k.v_lshlrev_b32(2, idx)
    if cond is None:
        k.global_store_dword(off, value, base)
    else:
        with masked(k, cond):
            k.global_store_dword(off, value, base)


def kernel_name(experts: int, topk: int, block_m: int) -> str:
    return f"moe_sorting_e{experts}_k{topk}_m{block_m}"


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
    with m.kernel(name, args, workgroup_size=(WAVE, 1, 1)) as k:
        ids, wts, s_ids, s_wts, s_eids, nvalid, tokens = k.args()
        lane = k.thread_id("x")
        lane4 = k.v_lshlrev_b32(2, lane)
        cnt_lds, pos_lds, mask_lds = k.lds(4 * WAVE * regs), k.lds(4 * WAVE * regs), k.lds(8 * WAVE * regs)
        live = _expert_lanes(k, experts, regs, lane)
        _clear(k, cnt_lds, mask_lds, regs, lane4, live)
        _count(k, ids, tokens, cnt_lds, topk, lane)
        start, cnt, padded, total = _offsets(k, cnt_lds, pos_lds, nvalid, tokens, regs, lane, lane4, block_m, live)
        _blocks(k, s_eids, start, padded, lane, block_m, live)
        pad = k.s_or_b32(tokens, topk << SLOT_SHIFT)
        _prefill(k, s_ids, s_wts, total, pad, lane)
        _scatter(k, ids, wts, s_ids, s_wts, tokens, pos_lds, mask_lds, topk, lane)
        k.s_endpgm()
    m.verify()
    return m


def _clear(k, cnt_lds, mask_lds, regs, lane4, live):
    """Zero the histogram and the token masks."""
    zero = k.v_mov_b32(0)
    toks = []
    for j, ((a, off), (b, moff)) in enumerate(zip(_lds_regs(k, cnt_lds, regs, lane4),
                                                  _lds_regs(k, mask_lds, regs, lane4, 8), strict=True)):
        toks.append(k.ds_write_b32(a, zero, offset=off))
        toks.append(k.ds_write_b64(b, k.concat(zero, zero), offset=moff))
    k.wait(*toks)


def _token_loads(k, ptr, t, topk: int):
    """Issue the loads of the k dwords of token ``t``'s row (lanes past T are masked by the
    caller); returns (values, tokens): the caller waits once for a whole batch."""
    row = k.v_mul_u32_u24(4 * topk, t)
    loads = [k.global_load_dword(row, ptr, offset=4 * s) for s in range(topk)]
    return [v for v, _ in loads], [tok for _, tok in loads]


def _batch(k, tokens, iv, lane, batch: int, ptrs, topk: int):
    """The loads of ``batch`` steps of 64 tokens from ``iv`` on, all in flight at once (one
    wait per batch instead of one global-memory latency per step): per step, (token, lane
    mask of tokens < T, [values per pointer])."""
    steps, toks = [], []
    for b in range(batch):
        t = k.v_add_u32(iv if b == 0 else k.s_add_u32(iv, WAVE * b), lane)
        cond = k.v_cmp_gt_u32_e64(tokens, t)
        vals = []
        with masked(k, cond):
            for p in ptrs:
                v, tk = _token_loads(k, p, t, topk)
                vals.append(v)
                toks += tk
        steps.append((t, cond, vals))
    k.wait(*toks)
    return steps


def _count(k, ids, tokens, cnt_lds, topk, lane):
    """Histogram by ``ds_add_u32`` (order-free). LDS operations of one wave are performed in
    order, so later LDS reads see them without a wait."""
    one = k.v_mov_b32(1)
    batch = max(1, min(4, 32 // topk))
    with k.loop(0, tokens, WAVE * batch) as body:
        for _, cond, (es,) in _batch(k, tokens, body.iv, lane, batch, [ids], topk):
            with masked(k, cond):
                for e in es:
                    k.ds_add_u32(k.v_add_u32(cnt_lds, k.v_lshlrev_b32(2, e)), one)


def _offsets(k, cnt_lds, pos_lds, nvalid, tokens, regs, lane, lane4, block_m, live):
    """Per register j: (first position, count, padded count) of expert lane + 64 j; the
    running positions to ``pos_lds``; ``num_valid_ids``."""
    sh = block_m.bit_length() - 1
    reads = [k.ds_read_b32(a, offset=off) for a, off in _lds_regs(k, cnt_lds, regs, lane4)]
    k.wait(*[t for _, t in reads])
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
    toks = [k.ds_write_b32(a, s, offset=off) for s, (a, off) in zip(starts, _lds_regs(k, pos_lds, regs, lane4),
                                                                    strict=True)]
    k.wait(*toks)
    with masked(k, k.v_cmp_eq_u32_e64(0, lane)):
        k.global_store_dwordx2(k.v_mov_b32(0), k.concat(k.v_mov_b32(carry), k.v_mov_b32(tokens)), nvalid)
    return starts, cnts, padded, carry


def _blocks(k, s_eids, start, padded, lane, block_m, live):
    """sorted_expert_ids[start / M + b] = expert for b < padded / M."""
    sh = block_m.bit_length() - 1
    nb = [k.v_lshrrev_b32(sh, p) for p in padded]
    most = k.v_readlane_b32(wave_reduce(k, _vmax(k, nb), "umax"), 0)
    first = [k.v_lshrrev_b32(sh, s) for s in start]
    experts = [k.v_add_u32(WAVE * j, lane) for j in range(len(nb))]
    with k.loop(0, most, 1) as body:
        for j in range(len(nb)):
            _store(k, experts[j], s_eids, k.v_add_u32(body.iv, first[j]), k.v_cmp_gt_u32_e64(nb[j], body.iv))


def _prefill(k, s_ids, s_wts, total, pad, lane):
    """Every position below the padded total gets the padding id and weight 0, 256 positions
    per step (``global_store_dwordx4``: whole cache lines, where a lane per expert would write
    one dword to a different line each); the scatter then overwrites the valid ones, after
    ``s_waitcnt vmcnt(0)`` (two stores to one address are ordered only by the wait)."""
    padv, zero = k.v_mov_b32(pad), k.v_mov_b32(0)
    quad = k.v_lshlrev_b32(2, lane)  # first of this lane's four positions
    with k.loop(0, total, 4 * WAVE) as body:
        pos = k.v_add_u32(body.iv, quad)
        with masked(k, k.v_cmp_gt_u32_e64(total, pos)):  # total is a multiple of 16: whole quads
            off = k.v_lshlrev_b32(2, pos)
            k.global_store_dwordx4(off, k.concat(padv, padv, padv, padv), s_ids)
            k.global_store_dwordx4(off, k.concat(zero, zero, zero, zero), s_wts)
    k.s_waitcnt(vmcnt=0)


def _vmax(k, xs):
    t = xs[0]
    for x in xs[1:]:
        t = k.v_max_u32(x, t)
    return t


def _scatter(k, ids, wts, s_ids, s_wts, tokens, pos_lds, mask_lds, topk, lane):
    bit = k.v_lshlrev_b32(k.v_and_b32(31, lane), 1)  # this lane's bit in its half of the mask
    half = k.v_lshlrev_b32(2, k.v_lshrrev_b32(5, lane))  # +4 bytes for lanes 32..63
    zero = k.v_mov_b32(0)
    batch = max(1, min(4, 16 // topk))  # 2 k loads per step in flight: at most 32
    with k.loop(0, tokens, WAVE * batch) as body:
        for t, cond, (es, ws) in _batch(k, tokens, body.iv, lane, batch, [ids, wts], topk):
            with masked(k, cond):
                _scatter_step(k, t, es, ws, s_ids, s_wts, pos_lds, mask_lds, topk, bit, half, zero)


def _scatter_step(k, t, es, ws, s_ids, s_wts, pos_lds, mask_lds, topk, bit, half, zero):
    """One step of 64 tokens (in order): mark, rank, store, advance, clear. No waits between
    the LDS operations: one wave's are performed in order."""
    maddr = [k.v_add_u32(mask_lds, k.v_lshlrev_b32(3, e)) for e in es]
    paddr = [k.v_add_u32(pos_lds, k.v_lshlrev_b32(2, e)) for e in es]
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
        with masked(k, k.v_cmp_eq_u32_e64(0, rank)):
            k.ds_add_u32(paddr[s], k.v_bcnt_u32_b32(hi, k.v_bcnt_u32_b32(lo, 0)))
    for a in maddr:
        k.ds_write_b64(a, k.concat(zero, zero))

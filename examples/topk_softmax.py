"""Top-k softmax over experts for mixture-of-experts routing.

``logits[T, E]`` (f32) -> ``weights[T, k]`` (f32) and ``indices[T, k]`` (i32): the k experts
with the largest logits in decreasing order (ties: the lower expert index first), each
weighted by its softmax probability over all E experts, or, with ``renormalize=True``, by
its softmax over the k chosen ones (the same as renormalizing the k probabilities so they
sum to 1, without the sum over all E). E is 1..1024 (lanes past E hold -inf), k is 1..8.

One wave per token (grid = T, block = 64): lane ``l`` holds experts ``l + 64 j``. Each of
the k selection rounds is one wave max reduction (DPP inside rows, ``row_bcast`` across
them, ``v_readlane_b32`` of lane 63 into an SGPR), one ``v_cmp_eq_f32_e64`` per register
giving the lanes that hold the max, and scalar work for the tie rule (the lowest register
with a match, then ``s_ff1_i32_b64``, the lowest lane: together the lowest expert index);
the chosen expert is removed with one ``v_cndmask_b32`` per register under a one-bit mask.
The first round's max is the softmax max. Lane ``j < k`` stores the j-th pair
(EXEC-masked); its weight is computed there, for all k at once.
"""

from __future__ import annotations

import math

from gcnforge.builder import Arg, Module
from gcnforge.lib import masked

LOG2E = math.log2(math.e)
# wave64 reduction to lane 63: inside each row of 16 lanes, then row 0 into row 1 and row 2
# into row 3 (row_bcast:15, rows 1 and 3 written), then row 1 into rows 2 and 3
# (row_bcast:31): lane 63 holds the result (AMD "Vega ISA", DPP_CTRL; the order LLVM's
# AMDGPU backend uses for its gfx9 wave reductions).
_WAVE_STEPS = ({"quad_perm": [1, 0, 3, 2]}, {"quad_perm": [2, 3, 0, 1]}, {"row_ror": 4}, {"row_ror": 8},
               {"row_bcast": 15, "row_mask": 0xA}, {"row_bcast": 31, "row_mask": 0xC})
_ROW_STEPS = _WAVE_STEPS[:4]  # every lane of a row holds its row's result


def _reduce(k, *chains):
    """DPP reductions of ``(x, mnemonic, steps)`` chains, emitted step by step in turn so that
    independent chains fill each other's DPP wait states (a VALU write read through DPP needs
    two: ``isa.hazards`` valu_vgpr_dpp). Returns the reduced registers."""
    xs = [x for x, _, _ in chains]
    for i in range(max(len(st) for _, _, st in chains)):
        for c, (_, mn, st) in enumerate(chains):
            if i < len(st):
                xs[c] = k.inst(mn, xs[c], xs[c], **st[i])  # src0 is read through the DPP lane pattern
    return xs


def _sum(k, xs):
    t = xs[0]
    for x in xs[1:]:
        t = k.v_add_f32(x, t)
    return t


def _max(k, xs):
    """Lane-wise max of the registers ``xs`` (v_max3_f32 takes three at a time)."""
    xs = list(xs)
    while len(xs) > 1:
        xs = [k.v_max3_f32(*xs[:3]) if len(xs) >= 3 else k.v_max_f32(*xs[:2])] + xs[3 if len(xs) >= 3 else 2:]
    return xs[0]


def build(experts: int = 128, topk: int = 8, renormalize: bool = False, name: str | None = None) -> Module:
    if not 1 <= topk <= min(8, experts) or experts > 1024:
        raise ValueError("experts must be 1..1024 and k in 1..min(8, experts)")
    per = -(-experts // 64)
    name = name or f"topk_softmax_e{experts}_k{topk}" + ("_renorm" if renormalize else "")
    m = Module(name)
    args = [Arg.ptr("logits", access="read_only"), Arg.ptr("weights", access="write_only"),
            Arg.ptr("indices", access="write_only")]
    with m.kernel(name, args, workgroup_size=(64, 1, 1)) as k:
        lg, wts, ids = k.args()
        tok = k.block_id("x")
        lane = k.thread_id("x")
        base = k.v_add_u32(k.s_mul_i32(tok, k.s_mov_b32(4 * experts)), k.v_lshlrev_b32(2, lane))
        if experts % 64:  # the last register's lanes past E read expert E - 1, then hold -inf
            tail = k.v_lshlrev_b32(2, k.v_min_u32(experts - 1 - 64 * (per - 1), lane))
            last = k.v_add_u32(k.s_mul_i32(tok, k.s_mov_b32(4 * experts)), tail)
        loads = [k.global_load_dword(last if j == per - 1 and experts % 64 else base, lg, offset=256 * j)
                 for j in range(per)]
        k.wait(*[t for _, t in loads])
        vals = [v for v, _ in loads]
        if experts % 64:
            vals[-1] = k.v_cndmask_b32_e64(k.v_mov_b32(float("-inf")), vals[-1], k.v_cmp_gt_u32_e64(experts - 64 * (per - 1), lane))

        # k rounds of arg-max with removal; picks are SGPRs (the max, the expert index)
        ninf = k.v_mov_b32(float("-inf"))
        cur = list(vals)
        picks = []
        log2e = k.s_mov_b32(LOG2E)
        neg = tot = None
        for r in range(topk):
            local = _max(k, cur)
            chains = [(local, "v_max_f32", _WAVE_STEPS)]
            if r == 1 and not renormalize:  # the softmax sum rides along with round 1
                chains.append((tot, "v_add_f32", _WAVE_STEPS))
            red = _reduce(k, *chains)
            if len(red) > 1:
                tot = k.v_readlane_b32(red[1], 63)
            best = k.v_readlane_b32(red[0], 63)
            hits = [k.v_cmp_eq_f32_e64(best, v) for v in cur]  # lanes of register j holding the max
            sel, reg = hits[-1], k.s_mov_b32(64 * (per - 1))
            for j in reversed(range(per - 1)):  # the lowest register with a hit
                k.s_cmp_lg_u64(hits[j], 0)
                sel = k.s_cselect_b64(hits[j], sel)
                reg = k.s_cselect_b32(64 * j, reg)
            which = k.s_ff1_i32_b64(sel)  # the lowest lane in it
            if r + 1 < topk:
                bit = k.s_lshl_b64(1, which)
                for j in range(per):
                    if per > 1:
                        k.s_cmp_eq_u32(reg, 64 * j)
                        mask = k.s_cselect_b64(bit, 0)
                    else:
                        mask = bit
                    cur[j] = k.v_cndmask_b32_e64(cur[j], ninf, mask)
            if r == 0:  # the first pick is the max: -max * log2(e), and the lane sums of exp
                neg = k.v_mul_f32(-LOG2E, k.v_mov_b32(best))
                if not renormalize:
                    tot = _sum(k, [k.v_exp_f32(k.v_fma_f32(v, log2e, neg)) for v in vals])
            picks.append((best, k.s_add_u32(which, reg)))

        # lane j gets pick j: logit and index (v_writelane_b32 into one register each)
        wv, iv = k.vgpr(), k.vgpr()
        for j, (b, i) in enumerate(picks):
            k.v_writelane_b32(wv, b, j)
            k.v_writelane_b32(iv, i, j)
        e = k.v_exp_f32(k.v_fma_f32(wv, log2e, neg))
        if renormalize:  # softmax over the k picks: lanes >= k add 0
            k.v_cmp_gt_u32_e32(topk, lane)
            tot = _reduce(k, (k.v_cndmask_b32_e32(0, e), "v_add_f32", _ROW_STEPS))[0]
        elif topk == 1:  # no round 1 to ride along with
            tot = k.v_readlane_b32(_reduce(k, (tot, "v_add_f32", _WAVE_STEPS))[0], 63)
        w = k.v_mul_f32(e, k.v_rcp_f32(tot))
        with masked(k, k.v_cmp_gt_u32_e64(topk, lane)):
            off = k.v_add_u32(k.s_mul_i32(tok, k.s_mov_b32(4 * topk)), k.v_lshlrev_b32(2, lane))
            k.global_store_dword(off, w, wts)
            k.global_store_dword(off, iv, ids)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

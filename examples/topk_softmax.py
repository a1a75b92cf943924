"""Top-k softmax over experts for mixture-of-experts routing.

``logits[T, E]`` (f32) -> ``weights[T, k]`` (f32) and ``indices[T, k]`` (i32): the k experts
with the largest logits in decreasing order (ties: the lower expert index first), each
weighted by its softmax probability over all E experts, optionally renormalized so the k
weights sum to 1 (``renormalize=True``). E is 128 or 256 (any multiple of 64), k is 1..8.

One wave per token (grid = T, block = 64): lane ``l`` holds experts ``l + 64 j``. The
softmax max and sum are DPP wave reductions (``lib.regs.wave_reduce``); each of the k
selection rounds is a max reduction of the remaining logits, a ``umin`` reduction of the
indices holding that max (the tie rule), and a ``v_cndmask_b32`` that removes the chosen
expert. All results are wave-uniform; lane ``j < k`` stores the j-th pair (EXEC-masked).
"""

from __future__ import annotations

import math

from gcnforge.builder import Arg, Module
from lib.regs import masked, wave_reduce

LOG2E = math.log2(math.e)


def build(experts: int = 128, topk: int = 8, renormalize: bool = False, name: str | None = None) -> Module:
    if experts % 64 or not 1 <= topk <= 8:
        raise ValueError("experts must be a multiple of 64 and k in 1..8")
    per = experts // 64
    name = name or f"topk_softmax_e{experts}_k{topk}" + ("_renorm" if renormalize else "")
    m = Module(name)
    args = [Arg.ptr("logits", access="read_only"), Arg.ptr("weights", access="write_only"),
            Arg.ptr("indices", access="write_only")]
    with m.kernel(name, args, workgroup_size=(64, 1, 1)) as k:
        lg, wts, ids = k.args()
        tok = k.block_id("x")
        lane = k.thread_id("x")
        base = k.v_add_u32(k.s_mul_i32(tok, k.s_mov_b32(4 * experts)), k.v_lshlrev_b32(2, lane))
        loads = [k.global_load_dword(base, lg, offset=256 * j) for j in range(per)]
        k.wait(*[t for _, t in loads])
        vals = [v for v, _ in loads]
        idx = [lane] + [k.v_add_u32(k.s_mov_b32(64 * j), lane) for j in range(1, per)]

        # softmax statistics over all experts
        local = vals[0]
        for v in vals[1:]:
            local = k.v_max_f32(v, local)
        mx = wave_reduce(k, local, "max")
        log2e = k.s_mov_b32(LOG2E)
        neg = k.v_mul_f32(-LOG2E, mx)
        es = [k.v_exp_f32(k.v_fma_f32(v, log2e, neg)) for v in vals]
        tot = es[0]
        for e in es[1:]:
            tot = k.v_add_f32(e, tot)
        inv = k.v_rcp_f32(wave_reduce(k, tot, "add"))

        # k rounds of arg-max with removal
        ninf = k.v_mov_b32(float("-inf"))
        big = k.v_mov_b32(0xFFFF)
        cur = list(vals)
        picks = []
        for r in range(topk):
            local = cur[0]
            for v in cur[1:]:
                local = k.v_max_f32(v, local)
            best = wave_reduce(k, local, "max")
            cand = None
            for v, i in zip(cur, idx):
                k.v_cmp_eq_f32_e32(best, v)  # VCC: this expert holds the max
                c = k.v_cndmask_b32_e32(big, i)
                cand = c if cand is None else k.v_min_u32(c, cand)
            which = wave_reduce(k, cand, "umin")
            if r + 1 < topk:
                nxt = []
                for v, i in zip(cur, idx):
                    k.v_cmp_ne_u32_e32(which, i)  # VCC: not the chosen expert
                    nxt.append(k.v_cndmask_b32_e32(ninf, v))
                cur = nxt
            w = k.v_mul_f32(k.v_exp_f32(k.v_fma_f32(best, log2e, neg)), inv)
            picks.append((w, which))
        if renormalize:
            s = picks[0][0]
            for w, _ in picks[1:]:
                s = k.v_add_f32(w, s)
            rs = k.v_rcp_f32(s)
            picks = [(k.v_mul_f32(w, rs), i) for w, i in picks]

        # lane j holds pick j
        wv, iv = picks[0]
        for j, (w, i) in enumerate(picks[1:], 1):
            k.v_cmp_eq_u32_e32(j, lane)
            wv = k.v_cndmask_b32_e32(wv, w)
            iv = k.v_cndmask_b32_e32(iv, i)
        with masked(k, k.v_cmp_gt_u32_e64(topk, lane)):
            off = k.v_add_u32(k.s_mul_i32(tok, k.s_mov_b32(4 * topk)), k.v_lshlrev_b32(2, lane))
            k.global_store_dword(off, wv, wts)
            k.global_store_dword(off, iv, ids)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

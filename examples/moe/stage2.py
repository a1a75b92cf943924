"""Fused-MoE stage 2 (down projection, top-k weighted sum), fp8 e4m3fnuz with per-row /
per-channel scales, f32 out: the job of aiter's stage 2 (``ck_moe_stage2_fwd`` with
``sorted_weights``) on the same sorted inputs (``moe_gemm``'s docstring has the format).

For each block of ``m_blk`` sorted entries (expert ``e``; entry ``p`` = (token t, slot s),
row ``r = t topk + s`` of the quantized stage-1 output) and each of the work-group's ``tn``
output columns ``n``::

    out[t, n] += sw[p] * a2s[r] * sw2[e, n] * sum_k a2[r, k] w2[e, n, k]

``a2`` [tokens topk, inter] fp8, ``a2s`` [tokens topk] f32, ``w2`` [E, model_dim, inter] fp8
shuffled (``moe_gemm.shuffle``), ``sw2`` [E, model_dim] f32, ``sw`` the sorted weights (f32, one
per sorted entry), ``out`` [tokens, model_dim] f32, zeroed before the launch.

The sum over a token's experts is **atomic**: each (entry, column) adds its term with
``buffer_atomic_add_f32`` (no return), so the order of the top-k additions varies from run to
run (f32 rounding: results equal up to reordering, not bit-identical across runs). The
reference (``reference.stage2``) sums in f64 and rounds to bf16 at the end; conversion of this
f32 sum to bf16 is the composed operation's.

Arguments (all sizes run time): out, a2, w2, num_valid_ids, a2s, sw2, sorted_ids,
sorted_weights, sorted_expert_ids, model_dim, inter, tokens, topk. Limits: inter a multiple of
``32 unroll depth wk``, model_dim of ``tn``.

grid = (model_dim / tn, number of blocks allocated, 1), block = 256: 4 waves, ``wk`` along K
(the reduction of ``moe_gemm.reduce_k``) times ``4 / wk`` along the columns, as in stage 1.
"""

from __future__ import annotations

from gcnforge.builder import Arg, Module
from gcnforge.lib import make_buffer_rsrc

from moe.moe_gemm import (ROWS, WAVES, Lane, b_lane_offset, block_or_exit, ids_group, tile_shape, main_loop, my_groups,
                          offset_rsrc, reduce_k)


def kernel_name(m_blk: int, tn: int, unroll: int, wk: int = 1, depth: int = 2) -> str:
    return f"moe_stage2_fp8_{m_blk}x{tn}_u{unroll}" + (f"_k{wk}" if wk > 1 else "") + (f"_d{depth}" if depth != 2 else "")


def grid(model_dim: int, n_blocks: int, tn: int) -> tuple[int, int, int]:
    return (model_dim // tn, n_blocks, 1)


def build(m_blk: int = 32, tn: int = 128, unroll: int = 2, wk: int = 1, depth: int = 2,
          name: str | None = None) -> Module:
    wn, bm, bn = tile_shape(m_blk, tn, unroll, wk, depth, halves=1)
    name = name or kernel_name(m_blk, tn, unroll, wk, depth)
    m = Module(name)
    args = [Arg.ptr("out"), Arg.ptr("a2", access="read_only"), Arg.ptr("w2", access="read_only"),
            Arg.ptr("num_valid_ids", access="read_only"), Arg.ptr("a2s", access="read_only"),
            Arg.ptr("sw2", access="read_only"), Arg.ptr("sorted_ids", access="read_only"),
            Arg.ptr("sorted_weights", access="read_only"), Arg.ptr("sorted_expert_ids", access="read_only"),
            Arg.value("model_dim"), Arg.value("inter"), Arg.value("tokens"), Arg.value("topk")]
    with m.kernel(name, args, workgroup_size=(64 * WAVES, 1, 1)) as k:
        out, a2, w2, xc, a2s, sw2, stp, spw, sep, dim, inter, tokens, topk = k.args()
        blk, first, nv, e = block_or_exit(k, xc, sep, m_blk)
        ln = Lane(k)
        four, blk_bytes = k.s_mov_b32(4), k.s_mov_b32(4 * m_blk)
        rs_ids = offset_rsrc(k, stp, first, four, blk_bytes)
        rows = k.s_mul_i32(tokens, topk)
        rs_a = make_buffer_rsrc(k, a2, k.s_mul_i32(rows, inter))
        w_bytes = k.s_mul_i32(dim, inter)
        rs_w = offset_rsrc(k, w2, e, w_bytes, w_bytes)
        # A: lane l's row in block i is sorted entry 32 i + l % 32, row t topk + s of a2, K byte 16 h
        k16 = k.v_lshlrev_b32(4, ln.h)
        sids = [k.buffer_load_dword(k.v_lshlrev_b32(2, ln.r), rs_ids, 0, offen=True, offset=4 * ROWS * i)
                for i in range(bm)]

        def a_rows():
            k.wait(*[t for _, t in sids])
            return [k.v_add_u32(k.v_mul_lo_u32(k.v_mad_u32_u24(k.v_and_b32(0xFFFFFF, sid), topk,
                                                                k.v_lshrrev_b32(24, sid)), inter), k16)
                    for sid, _ in sids]

        kw, wn_i = k.s_and_b32(wk - 1, ln.wave), k.s_lshr_b32(ln.wave, wk.bit_length() - 1)
        klen = k.s_lshr_b32(inter, wk.bit_length() - 1)
        col0 = k.s_add_u32(k.s_mul_i32(k.block_id("x"), k.s_mov_b32(tn)), k.s_mul_i32(wn_i, k.s_mov_b32(tn // wn)))
        bl = b_lane_offset(k, ln, inter)
        cols = [k.s_add_u32(col0, ROWS * f) if f else col0 for f in range(bn)]
        b_offs = [k.v_add_u32(k.s_mul_i32(c, inter), bl) for c in cols]
        accs = main_loop(k, rs_a, bm, a_rows, rs_w, b_offs, klen, unroll, k.s_mul_i32(kw, klen) if wk > 1 else None,
                         depth)
        parts = reduce_k(k, accs, wk, kw, wn_i, my_groups(k, wk, kw))
        rs_w8 = offset_rsrc(k, spw, first, four, blk_bytes)
        epilogue(k, ln, parts, bm, cols, dict(out=out, a2s=a2s, sw2=sw2, e=e, dim=dim, tokens=tokens, topk=topk,
                                              rows=rows, rs_ids=rs_ids, rs_w8=rs_w8))
        k.s_endpgm()
    m.verify()
    return m


def epilogue(k, ln, parts, bm, cols, a):
    """Scales and the routing weight, then one f32 atomic add per element into out[t, n];
    ``parts`` from ``reduce_k``."""
    dim, topk = a["dim"], a["topk"]
    rs_as = make_buffer_rsrc(k, a["a2s"], k.s_lshl_b32(a["rows"], 2))
    d4 = k.s_lshl_b32(dim, 2)
    rs_sw = offset_rsrc(k, a["sw2"], a["e"], d4, d4)
    rs_o = make_buffer_rsrc(k, a["out"], k.s_mul_i32(a["tokens"], d4))
    c4 = k.v_lshlrev_b32(2, ln.r)
    swl = [k.buffer_load_dword(c4, rs_sw, k.s_lshl_b32(c, 2), offen=True) for c in cols]
    k.wait(*[t for _, t in swl])
    for i in range(bm):
        first = parts[(i, 0)]
        for g in range(len(first) // 4):
            q = first[4 * g][0]
            (ids, t0), (wts, t1) = ids_group(k, a["rs_ids"], ln, i, q), ids_group(k, a["rs_w8"], ln, i, q)
            k.wait(t0, t1)
            toks = [k.v_and_b32(0xFFFFFF, s) for s in ids.split()]
            rows = [k.v_mad_u32_u24(t, topk, k.v_lshrrev_b32(24, s)) for t, s in zip(toks, ids.split())]
            ras = [k.buffer_load_dword(k.v_lshlrev_b32(2, r), rs_as, 0, offen=True) for r in rows]
            k.wait(*[t for _, t in ras])
            # the row factor: routing weight times the row's scale; out row t: bytes 4 (t D)
            fac = [k.v_mul_f32(w, s) for w, (s, _) in zip(wts.split(), ras)]
            offs = [k.v_mul_lo_u32(t, d4) for t in toks]
            for f, c in enumerate(cols):
                col_b = k.v_add_u32(k.s_lshl_b32(c, 2), c4)
                for r in range(4):
                    y = k.v_mul_f32(k.v_mul_f32(parts[(i, f)][4 * g + r][2], fac[r]), swl[f][0])
                    k.buffer_atomic_add_f32(y, k.v_add_u32(offs[r], col_b), rs_o, 0, offen=True)


if __name__ == "__main__":
    print(build())

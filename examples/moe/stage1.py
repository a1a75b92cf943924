"""Fused-MoE stage 1 (gate + up, "g1u1", SiLU), fp8 e4m3fnuz with per-token / per-channel
scales, bf16 out: the job of aiter's ``fmoe_stage1_bf16_pertokenFp8_g1u1_*`` objects, on the
same inputs (``moe_gemm``'s docstring has the format).

For each block of ``m_blk`` sorted slots (expert ``e``) and each of the work-group's ``tn``
intermediate columns ``n``::

    g = sx[t] * sw1[e, n]     * sum_k x[t, k] w1[e, n, k]
    u = sx[t] * sw1[e, I + n] * sum_k x[t, k] w1[e, I + n, k]
    out[t, s, n] = bf16(silu(g) * u)          for the slot (t, s) of each sorted entry

``x`` [tokens, model_dim] fp8, ``sx`` [tokens] f32, ``w1`` [E, 2 I, model_dim] fp8 shuffled
(``moe_gemm.shuffle``), ``sw1`` [E, 2 I] f32, ``out`` [tokens, topk, I] bf16 (aiter's layout: the
launcher's ``out`` is ``[token_cnt, topk, inter_dim]``). silu(g) = g / (1 + 2^(-g log2 e)) with
``v_exp_f32`` and ``v_rcp_f32``.

Arguments (all sizes run time): out, x, w1, num_valid_ids, sx, sw1, sorted_ids,
sorted_expert_ids, model_dim, inter, tokens, topk. Limits: model_dim a multiple of
``32 unroll depth wk``, inter a multiple of ``tn``.

grid = (inter / tn, number of blocks allocated, 1), block = 256: 4 waves, ``wk`` along K (each
takes ``model_dim / wk`` of it; the partial tiles are summed through LDS by ``moe_gemm.reduce_k``,
each wave finishing ``4 / wk`` of the register groups) times ``4 / wk`` along the columns (each
``tn wk / 4`` wide, of both halves). ``wk`` = 4 with ``tn`` = 32 spreads a few tokens' weights
over 4x the work-groups (decode); ``wk`` = 1 has no reduction (many tokens).
"""

from __future__ import annotations

import math

from gcnforge.builder import Arg, Module
from gcnforge.lib import make_buffer_rsrc

from moe.moe_gemm import (ROWS, WAVES, Lane, b_lane_offset, bf16_round, block_or_exit, ids_group, tile_shape, main_loop,
                          my_groups, offset_rsrc, reduce_k, value)

LOG2E = math.log2(math.e)
EARLY_GROUPS = 8  # most (row block, register group) pairs whose epilogue data is loaded before the main loop


def kernel_name(m_blk: int, tn: int, unroll: int, wk: int = 1, depth: int = 2) -> str:
    return f"moe_stage1_fp8_g1u1_silu_{m_blk}x{tn}_u{unroll}" + (f"_k{wk}" if wk > 1 else "") + (f"_d{depth}" if depth != 2 else "")


def grid(inter: int, n_blocks: int, tn: int) -> tuple[int, int, int]:
    return (inter // tn, n_blocks, 1)


def build(m_blk: int = 32, tn: int = 128, unroll: int = 2, wk: int = 1, depth: int = 2,
          name: str | None = None) -> Module:
    wn, bm, bn = tile_shape(m_blk, tn, unroll, wk, depth, halves=2)
    name = name or kernel_name(m_blk, tn, unroll, wk, depth)
    m = Module(name)
    args = [Arg.ptr("out", access="write_only"), Arg.ptr("x", access="read_only"), Arg.ptr("w1", access="read_only"),
            Arg.ptr("num_valid_ids", access="read_only"), Arg.ptr("sx", access="read_only"),
            Arg.ptr("sw1", access="read_only"), Arg.ptr("sorted_ids", access="read_only"),
            Arg.ptr("sorted_expert_ids", access="read_only"),
            Arg.value("model_dim"), Arg.value("inter"), Arg.value("tokens"), Arg.value("topk")]
    with m.kernel(name, args, workgroup_size=(64 * WAVES, 1, 1)) as k:
        out, x, w1, xc, sx, sw1, stp, sep, dim, inter, tokens, topk = k.args()
        blk, first, nv, e = block_or_exit(k, xc, sep, m_blk)
        ln = Lane(k)
        rs_ids = offset_rsrc(k, stp, first, k.s_mov_b32(4), k.s_mov_b32(4 * m_blk))
        rs_x = make_buffer_rsrc(k, x, k.s_mul_i32(tokens, dim))
        two_i = k.s_lshl_b32(inter, 1)
        rs_w = offset_rsrc(k, w1, e, k.s_mul_i32(two_i, dim), k.s_mul_i32(two_i, dim))
        # A: lane l's row in block i is sorted entry 32 i + l % 32; its token's row, K byte 16 h
        k16 = k.v_lshlrev_b32(4, ln.h)
        sids = [k.buffer_load_dword(k.v_lshlrev_b32(2, ln.r), rs_ids, 0, offen=True, offset=4 * ROWS * i)
                for i in range(bm)]

        def a_rows():
            k.wait(*[t for _, t in sids])
            return [k.v_add_u32(k.v_mul_lo_u32(k.v_and_b32(0xFFFFFF, sid), dim), k16) for sid, _ in sids]

        # waves: wk along K (wave kw takes K bytes [kw dim / wk, ..)), wn along the columns
        kw, wn_i = k.s_and_b32(wk - 1, ln.wave), k.s_lshr_b32(ln.wave, wk.bit_length() - 1)
        klen = k.s_lshr_b32(dim, wk.bit_length() - 1)
        # B: gate columns n0 + 32 f and the same of up (I rows further)
        col0 = k.s_add_u32(k.s_mul_i32(k.block_id("x"), k.s_mov_b32(tn)), k.s_mul_i32(wn_i, k.s_mov_b32(tn // wn)))
        bl = b_lane_offset(k, ln, dim)
        cols = [k.s_add_u32(col0, ROWS * f) if f else col0 for f in range(bn)]
        cols = cols + [k.s_add_u32(inter, c) for c in cols]
        b_offs = [k.v_add_u32(k.s_mul_i32(c, dim), bl) for c in cols]
        # the epilogue's row data (sorted ids, token scales) and column scales, loaded now: their
        # latency passes under the main loop; a tile of more than 8 row groups (3 VGPRs per row
        # each) would not leave the loop its registers: it loads them after the loop instead
        qs = my_groups(k, wk, kw)
        early = bm * len(qs) <= EARLY_GROUPS
        pre_args = dict(sx=sx, sw1=sw1, e=e, two_i=two_i, tokens=tokens, rs_ids=rs_ids)
        pre = prefetch(k, ln, bm, qs, cols, pre_args) if early else None
        accs = main_loop(k, rs_x, bm, a_rows, rs_w, b_offs, klen, unroll, k.s_mul_i32(kw, klen) if wk > 1 else None,
                         depth, pre["scales"] if early else None)
        if not early:
            pre = prefetch(k, ln, bm, qs, cols, pre_args)
            pre["scales"]()
        parts = reduce_k(k, accs, wk, kw, wn_i, qs, lazy=not early)
        epilogue(k, ln, parts, pre, bm, bn, cols, dict(out=out, inter=inter, tokens=tokens, topk=topk))
        k.s_endpgm()
    m.verify()
    return m


def prefetch(k, ln, bm, qs, cols, a):
    """Loads of the epilogue's sorted ids (block ``i``, group ``q``) and column scales, issued
    now; ``scales()`` (called once the main loop's first loads are out) waits for the ids and
    loads their tokens' scales. The epilogue waits for the scales."""
    rs_sx = make_buffer_rsrc(k, a["sx"], k.s_lshl_b32(a["tokens"], 2))
    rs_sw = offset_rsrc(k, a["sw1"], a["e"], k.s_lshl_b32(a["two_i"], 2), k.s_lshl_b32(a["two_i"], 2))
    c4 = k.v_lshlrev_b32(2, ln.r)
    sw = [k.buffer_load_dword(c4, rs_sw, k.s_lshl_b32(c, 2), offen=True) for c in cols]
    ids = {(i, g): ids_group(k, a["rs_ids"], ln, i, q) for i in range(bm) for g, q in enumerate(qs)}
    out = dict(sw=sw, rows={})

    def scales():
        k.wait(*[t for _, t in ids.values()])
        for key, (v, _) in ids.items():
            sids = v.split()
            toks = [k.v_and_b32(0xFFFFFF, s) for s in sids]
            out["rows"][key] = (sids, toks, [k.buffer_load_dword(k.v_lshlrev_b32(2, t), rs_sx, 0, offen=True)
                                             for t in toks])

    out["scales"] = scales
    return out


def epilogue(k, ln, parts, pre, bm, bn, cols, a):
    """Scales, silu(gate) * up, bf16, one short store per element to out[t, s, n]; ``parts``
    from ``reduce_k`` (gate tile (i, f), up tile (i, bn + f), the same registers), ``pre`` from
    ``prefetch``."""
    inter, topk = a["inter"], a["topk"]
    row_bytes = k.s_lshl_b32(inter, 1)
    rs_o = make_buffer_rsrc(k, a["out"], k.s_mul_i32(k.s_mul_i32(a["tokens"], topk), row_bytes))
    k.wait(*[t for _, t in pre["sw"]], *[t for _, _, sx in pre["rows"].values() for _, t in sx])
    sw = [v for v, _ in pre["sw"]]
    c2 = k.v_lshlrev_b32(1, ln.r)
    neg_log2e = k.s_mov_b32(_f32_bits(-LOG2E))
    for (i, g), (sids, toks, sxs) in pre["rows"].items():
        # out row (t topk + s): bytes (t topk + s) 2 I + 2 n
        offs = [k.v_mul_lo_u32(k.v_mad_u32_u24(t, topk, k.v_lshrrev_b32(24, s)), row_bytes)
                for t, s in zip(toks, sids)]
        for f in range(bn):
            col_b = k.v_add_u32(k.s_lshl_b32(cols[f], 1), c2)
            for r in range(4):
                sc = sxs[r][0]
                g_ = k.v_mul_f32(k.v_mul_f32(value(k, parts[(i, f)][4 * g + r][2]), sc), sw[f])
                u = k.v_mul_f32(k.v_mul_f32(value(k, parts[(i, bn + f)][4 * g + r][2]), sc), sw[bn + f])
                den = k.v_add_f32(1.0, k.v_exp_f32(k.v_mul_f32(neg_log2e, g_)))
                y = k.v_mul_f32(k.v_mul_f32(g_, k.v_rcp_f32(den)), u)
                k.buffer_store_short_d16_hi(bf16_round(k, y), k.v_add_u32(offs[r], col_b), rs_o, 0, offen=True)


def _f32_bits(x: float) -> int:
    import struct

    return struct.unpack("<I", struct.pack("<f", x))[0]


if __name__ == "__main__":
    print(build())

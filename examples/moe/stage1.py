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
``64 unroll``, inter a multiple of ``tn``.

grid = (inter / tn, number of blocks allocated, 1), block = 256 (4 waves; wave ``w`` takes
columns ``tn / 4`` wide of both halves, all ``m_blk`` rows).
"""

from __future__ import annotations

import math

from gcnforge.builder import Arg, Module
from gcnforge.lib import make_buffer_rsrc

from moe.moe_gemm import MFMA, ROWS, Lane, b_lane_offset, bf16_round, block_or_exit, main_loop, offset_rsrc, out_rows

WAVES = 4
LOG2E = math.log2(math.e)


def kernel_name(m_blk: int, tn: int, unroll: int) -> str:
    return f"moe_stage1_fp8_g1u1_silu_{m_blk}x{tn}_u{unroll}"


def grid(inter: int, n_blocks: int, tn: int) -> tuple[int, int, int]:
    return (inter // tn, n_blocks, 1)


def build(m_blk: int = 32, tn: int = 128, unroll: int = 2, name: str | None = None) -> Module:
    if m_blk % ROWS or tn % (WAVES * ROWS) or unroll < 1:
        raise ValueError(f"m_blk a multiple of {ROWS}, tn of {WAVES * ROWS}")
    bm, bn = m_blk // ROWS, tn // (WAVES * ROWS)
    name = name or kernel_name(m_blk, tn, unroll)
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
        a_offs = []
        for i in range(bm):
            sid, t = k.buffer_load_dword(k.v_lshlrev_b32(2, ln.r), rs_ids, 0, offen=True, offset=4 * ROWS * i)
            k.wait(t)
            a_offs.append(k.v_add_u32(k.v_mul_lo_u32(k.v_and_b32(0xFFFFFF, sid), dim), k16))
        # B: gate columns n0 + 32 f and the same of up (I rows further)
        col0 = k.s_add_u32(k.s_mul_i32(k.block_id("x"), k.s_mov_b32(tn)),
                           k.s_mul_i32(ln.wave, k.s_mov_b32(tn // WAVES)))
        bl = b_lane_offset(k, ln, dim)
        cols = [k.s_add_u32(col0, ROWS * f) if f else col0 for f in range(bn)]
        cols = cols + [k.s_add_u32(inter, c) for c in cols]
        b_offs = [k.v_add_u32(k.s_mul_i32(c, dim), bl) for c in cols]
        accs = main_loop(k, rs_x, a_offs, rs_w, b_offs, dim, unroll)
        epilogue(k, ln, accs, bm, bn, cols, dict(out=out, sx=sx, sw1=sw1, e=e, two_i=two_i, inter=inter,
                                                 tokens=tokens, topk=topk, rs_ids=rs_ids))
        k.s_endpgm()
    m.verify()
    return m


def epilogue(k, ln, accs, bm, bn, cols, a):
    """Scales, silu(gate) * up, bf16, one short store per element to out[t, s, n]."""
    inter, topk = a["inter"], a["topk"]
    rs_sx = make_buffer_rsrc(k, a["sx"], k.s_lshl_b32(a["tokens"], 2))
    rs_sw = offset_rsrc(k, a["sw1"], a["e"], k.s_lshl_b32(a["two_i"], 2), k.s_lshl_b32(a["two_i"], 2))
    row_bytes = k.s_lshl_b32(inter, 1)
    rs_o = make_buffer_rsrc(k, a["out"], k.s_mul_i32(k.s_mul_i32(a["tokens"], topk), row_bytes))
    c4 = k.v_lshlrev_b32(2, ln.r)
    swl = [k.buffer_load_dword(c4, rs_sw, k.s_lshl_b32(c, 2), offen=True) for c in cols]
    k.wait(*[t for _, t in swl])
    sw = [v for v, _ in swl]
    c2 = k.v_lshlrev_b32(1, ln.r)
    neg_log2e = k.s_mov_b32(_f32_bits(-LOG2E))
    for i in range(bm):
        ids = out_rows(k, a["rs_ids"], ln, i)
        sids = [v for q in range(4) for v in ids[q][0].split()]
        k.wait(*[t for _, t in ids])
        toks = [k.v_and_b32(0xFFFFFF, s) for s in sids]
        sxs = [k.buffer_load_dword(k.v_lshlrev_b32(2, t), rs_sx, 0, offen=True) for t in toks]
        # out row (t topk + s): bytes (t topk + s) 2 I + 2 n
        offs = [k.v_mul_lo_u32(k.v_mad_u32_u24(t, topk, k.v_lshrrev_b32(24, s)), row_bytes)
                for t, s in zip(toks, sids)]
        k.wait(*[t for _, t in sxs])
        for f in range(bn):
            gate, up = accs[i][f].split(), accs[i][bn + f].split()
            col_b = k.v_add_u32(k.s_lshl_b32(cols[f], 1), c2)
            for j in range(16):
                sc = sxs[j][0]
                g = k.v_mul_f32(k.v_mul_f32(k.v_accvgpr_read_b32(gate[j]), sc), sw[f])
                u = k.v_mul_f32(k.v_mul_f32(k.v_accvgpr_read_b32(up[j]), sc), sw[bn + f])
                den = k.v_add_f32(1.0, k.v_exp_f32(k.v_mul_f32(neg_log2e, g)))
                y = k.v_mul_f32(k.v_mul_f32(g, k.v_rcp_f32(den)), u)
                k.buffer_store_short_d16_hi(bf16_round(k, y), k.v_add_u32(offs[j], col_b), rs_o, 0, offen=True)


def _f32_bits(x: float) -> int:
    import struct

    return struct.unpack("<I", struct.pack("<f", x))[0]


if __name__ == "__main__":
    print(build())

"""Row reduction and row softmax over an R x N f32 matrix, one work-group per row.

``build_reduce(op, max_cols, waves)``: ``out[r] = op(x[r, :n])`` for op in add / max.
``build(max_cols, waves)`` (softmax): ``y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max))``.

Work-item ``t`` of the ``64 * waves`` work-items handles columns ``t + j * 64 * waves``
for ``j < ceil(max_cols / (64 * waves))`` (compile time); the row length ``n`` is a kernel
argument (``n <= max_cols``). Rows are read and written through a buffer resource whose
``num_records`` is the row's ``4 * n`` bytes, so the ragged tail needs no branch: loads past
the row return 0 and stores there are dropped (for max, those lanes are replaced by -inf
with ``v_cndmask_b32``). Reductions are DPP inside each wave and LDS + ``s_barrier`` across
waves (``gcnforge.lib.block_reduce``). ``exp(x)`` is ``v_exp_f32(x * log2(e))`` (the hardware
exponential is base 2: MI300 ISA guide, V_EXP_F32), the division one ``v_rcp_f32``.
"""

from __future__ import annotations

import math

from gcnforge.builder import Arg, Module
from gcnforge.lib import block_reduce, make_buffer_rsrc, masked

LOG2E = math.log2(math.e)
NEG_INF = float("-inf")


def _row_setup(k, x, n, row):
    """Buffer descriptor of row ``row`` (an SGPR) of the matrix at ``x``."""
    nbytes = k.s_lshl_b32(n, 2)
    row_off = k.s_mul_i32(row, nbytes)  # byte offset of the row (fits 32 bits for test sizes)
    lo, hi = x.split()
    base = k.concat(k.s_add_u32(lo, row_off), k.s_addc_u32(hi, 0))
    return make_buffer_rsrc(k, base, nbytes)


def _chunks(k, tid, max_cols, waves):
    wg = 64 * waves
    col0 = tid
    cols = [col0] + [k.v_add_u32(k.s_mov_b32(j * wg), col0) if j * wg > 64 else k.v_add_u32(j * wg, col0)
                     for j in range(1, -(-max_cols // wg))]
    return cols


def _load_row(k, rsrc, cols, n, pad):
    """x values of this work-item's columns; columns >= n read as ``pad``."""
    vals, toks = [], []
    for c in cols:
        v, t = k.buffer_load_dword(k.v_lshlrev_b32(2, c), rsrc, 0, offen=True)
        vals.append(v)
        toks.append(t)
    k.wait(*toks)
    if pad != 0.0:
        out = []
        pad_s = k.v_mov_b32(pad)  # VCC already uses the one constant-bus read: a VGPR
        for c, v in zip(cols, vals):
            k.v_cmp_gt_u32_e32(n, c)  # VCC (implicit): column < n
            out.append(k.v_cndmask_b32_e32(pad_s, v))  # vcc ? v : pad
        vals = out
    return vals


def _combine(k, vals, op):
    mn = {"add": "v_add_f32", "max": "v_max_f32"}[op]
    acc = vals[0]
    for v in vals[1:]:
        acc = k.inst(mn, v, acc)
    return acc


def build_reduce(op: str = "add", max_cols: int = 1024, waves: int = 4, name: str | None = None) -> Module:
    name = name or f"row_{op}_f32"
    m = Module(name)
    args = [Arg.ptr("x", access="read_only"), Arg.ptr("out", access="write_only"), Arg.value("n")]
    with m.kernel(name, args, workgroup_size=(64 * waves, 1, 1)) as k:
        x, out, n = k.args()
        lds = k.lds(4 * waves)
        row, tid = k.block_id("x"), k.thread_id("x")
        rsrc = _row_setup(k, x, n, row)
        vals = _load_row(k, rsrc, _chunks(k, tid, max_cols, waves), n, 0.0 if op == "add" else NEG_INF)
        r = block_reduce(k, _combine(k, vals, op), op, lds, waves, tid)
        with masked(k, k.v_cmp_eq_u32_e64(0, tid)):  # one lane stores the row's result
            off = k.v_mov_b32(k.s_lshl_b32(row, 2))
            k.global_store_dword(off, r, out)
        k.s_endpgm()
    m.verify()
    return m


def build(max_cols: int = 1024, waves: int = 4, name: str = "row_softmax_f32") -> Module:
    m = Module(name)
    args = [Arg.ptr("x", access="read_only"), Arg.ptr("y", access="write_only"), Arg.value("n")]
    with m.kernel(name, args, workgroup_size=(64 * waves, 1, 1)) as k:
        x, y, n = k.args()
        lds_max, lds_sum = k.lds(4 * waves), k.lds(4 * waves)
        row, tid = k.block_id("x"), k.thread_id("x")
        rsrc, ysrc = _row_setup(k, x, n, row), _row_setup(k, y, n, row)
        cols = _chunks(k, tid, max_cols, waves)
        vals = _load_row(k, rsrc, cols, n, NEG_INF)
        mx = block_reduce(k, _combine(k, vals, "max"), "max", lds_max, waves, tid)
        neg_mx2 = k.v_mul_f32(-LOG2E, mx)
        log2e = k.s_mov_b32(LOG2E)  # VOP3 takes no literal: the constant in an SGPR
        # exp(x - max) = 2^(x * log2e - max * log2e): one FMA per element before v_exp_f32
        es = [k.v_exp_f32(k.v_fma_f32(v, log2e, neg_mx2)) for v in vals]
        total = block_reduce(k, _combine(k, es, "add"), "add", lds_sum, waves, tid)
        inv = k.v_rcp_f32(total)
        for c, e in zip(cols, es):
            k.buffer_store_dword(k.v_mul_f32(e, inv), k.v_lshlrev_b32(2, c), ysrc, 0, offen=True)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

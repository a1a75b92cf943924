"""Layer normalization and RMS normalization of an R x N matrix, one work-group per row:
f32 (``build``) or bf16 in and out with f32 math (``build_bf16``).

``build(kind="layer"|"rms", max_cols, waves)``:

* layer: ``y = (x - mean) * rsqrt(var + eps) * gamma + beta`` with ``var`` the biased
  variance computed in a second pass over ``x - mean`` (kept in registers, so the second
  pass reads no memory; two passes avoid the cancellation of E[x^2] - E[x]^2);
* rms:   ``y = x * rsqrt(mean(x^2) + eps) * gamma``.

The row layout, the ragged tail (buffer descriptors with ``num_records = 4 * n``) and the
block reductions (DPP in the wave, LDS + ``s_barrier`` across waves) are those of
``row_softmax``; lanes past ``n`` are zeroed with ``v_cndmask_b32`` before the second pass.
``1 / n`` is ``v_rcp_f32(v_cvt_f32_u32(n))``; ``rsqrt`` is ``v_rsq_f32``.

``build_bf16(kind, max_cols, waves)``: x, gamma, beta and y are bfloat16; work-item ``t``
moves 8 values (16 bytes) per ``buffer_load_dwordx4`` / ``buffer_store_dwordx4``, chunks
``t + j * 64 * waves`` of the row (``n`` a multiple of 8, ``n <= max_cols``). A bf16 value is
the high half of an f32: ``v_lshlrev_b32 16`` / ``v_and_b32 0xffff0000`` unpack it, the
result is rounded to nearest even (``v_add3_u32 x, 0x7fff, bit 16``) and two are packed with
``v_and_or_b32``. The row stays in registers between the passes, so the kernel reads x once
and writes y once: its floor is those bytes at HBM bandwidth.
"""

from __future__ import annotations

from gcnforge.builder import Arg, Module
from gcnforge.lib import block_reduce, make_buffer_rsrc
from row_softmax import _chunks, _combine, _load_row, _row_setup


def build(kind: str = "layer", max_cols: int = 1024, waves: int = 4, name: str | None = None) -> Module:
    if kind not in ("layer", "rms"):
        raise ValueError("kind is layer or rms")
    name = name or f"{kind}_norm_f32"
    m = Module(name)
    args = [Arg.ptr("x", access="read_only"), Arg.ptr("gamma", access="read_only")]
    if kind == "layer":
        args.append(Arg.ptr("beta", access="read_only"))
    args += [Arg.ptr("y", access="write_only"), Arg.value("n"), Arg.value("eps")]
    with m.kernel(name, args, workgroup_size=(64 * waves, 1, 1)) as k:
        if kind == "layer":
            x, gamma, beta, y, n, eps = k.args()
        else:
            (x, gamma, y, n, eps), beta = k.args(), None
        lds1, lds2 = k.lds(4 * waves), k.lds(4 * waves)
        row, tid = k.block_id("x"), k.thread_id("x")
        xsrc, ysrc = _row_setup(k, x, n, row), _row_setup(k, y, n, row)
        nbytes = k.s_lshl_b32(n, 2)
        gsrc = make_buffer_rsrc(k, gamma, nbytes)
        bsrc = make_buffer_rsrc(k, beta, nbytes) if beta is not None else None
        cols = _chunks(k, tid, max_cols, waves)
        offs = [k.v_lshlrev_b32(2, c) for c in cols]
        vals = _load_row(k, xsrc, cols, n, 0.0)  # past n: 0
        inv_n = k.v_rcp_f32(k.v_cvt_f32_u32(n))
        if kind == "layer":
            mean = k.v_mul_f32(inv_n, block_reduce(k, _combine(k, vals, "add"), "add", lds1, waves, tid))
            cent = []
            for c, v in zip(cols, vals):
                d = k.v_sub_f32(v, mean)
                k.v_cmp_gt_u32_e32(n, c)  # VCC: column < n; lanes past n contribute 0
                cent.append(k.v_cndmask_b32_e32(0, d))
            sq = [k.v_mul_f32(d, d) for d in cent]
        else:
            cent = vals
            sq = [k.v_mul_f32(v, v) for v in vals]
        ms = k.v_mul_f32(inv_n, block_reduce(k, _combine(k, sq, "add"), "add", lds2, waves, tid))
        rstd = k.v_rsq_f32(k.v_add_f32(eps, ms))
        gs = [k.buffer_load_dword(o, gsrc, 0, offen=True) for o in offs]
        bs = [k.buffer_load_dword(o, bsrc, 0, offen=True) for o in offs] if bsrc is not None else []
        k.wait(*[t for _, t in gs + bs])
        for i, (o, d) in enumerate(zip(offs, cent)):
            v = k.v_mul_f32(k.v_mul_f32(d, rstd), gs[i][0])
            if bs:
                v = k.v_add_f32(v, bs[i][0])
            k.buffer_store_dword(v, o, ysrc, 0, offen=True)
        k.s_endpgm()
    m.verify()
    return m


def _unpack(k, d, hi_mask):
    """Two f32 values from a dword of two bf16 (element 0 in the low half)."""
    return [k.v_lshlrev_b32(16, d), k.v_and_b32(hi_mask, d)]


def build_bf16(kind: str = "rms", max_cols: int = 8192, waves: int = 4, name: str | None = None) -> Module:
    if kind not in ("layer", "rms"):
        raise ValueError("kind is layer or rms")
    threads = 64 * waves
    per = -(-max_cols // (8 * threads))  # 16-byte chunks per work-item
    name = name or f"{kind}_norm_bf16"
    m = Module(name)
    args = [Arg.ptr("x", access="read_only"), Arg.ptr("gamma", access="read_only")]
    if kind == "layer":
        args.append(Arg.ptr("beta", access="read_only"))
    args += [Arg.ptr("y", access="write_only"), Arg.value("n"), Arg.value("eps")]
    with m.kernel(name, args, workgroup_size=(threads, 1, 1)) as k:
        if kind == "layer":
            x, gamma, beta, y, n, eps = k.args()
        else:
            (x, gamma, y, n, eps), beta = k.args(), None
        lds1, lds2 = k.lds(4 * waves), k.lds(4 * waves)
        row, tid = k.block_id("x"), k.thread_id("x")
        nbytes = k.s_lshl_b32(n, 1)
        row_off = k.s_mul_i32(row, nbytes)

        def row_rsrc(ptr):
            lo, hi = ptr.split()
            return make_buffer_rsrc(k, k.concat(k.s_add_u32(lo, row_off), k.s_addc_u32(hi, 0)), nbytes)

        xsrc, ysrc = row_rsrc(x), row_rsrc(y)
        gsrc = make_buffer_rsrc(k, gamma, nbytes)
        bsrc = make_buffer_rsrc(k, beta, nbytes) if beta is not None else None
        chunk = [tid] + [k.v_add_u32(k.s_mov_b32(j * threads), tid) for j in range(1, per)]
        offs = [k.v_lshlrev_b32(4, c) for c in chunk]
        loads = [k.buffer_load_dwordx4(o, xsrc, 0, offen=True) for o in offs]  # past n: 0
        # gamma (and beta) are the same for every row: issued now, used last
        gl = [k.buffer_load_dwordx4(o, gsrc, 0, offen=True) for o in offs]
        bl = [k.buffer_load_dwordx4(o, bsrc, 0, offen=True) for o in offs] if bsrc is not None else []
        hi_mask = k.s_mov_b32(0xFFFF0000)
        vals = []  # per chunk, its 8 f32 values
        for v, t in loads:
            k.wait(t)
            vals.append([f for d in v.split() for f in _unpack(k, d, hi_mask)])
        inv_n = k.v_rcp_f32(k.v_cvt_f32_u32(n))

        def total(xs):
            acc = xs[0]
            for e in xs[1:]:
                acc = k.v_add_f32(e, acc)
            return acc

        if kind == "layer":
            mean = k.v_mul_f32(inv_n, block_reduce(k, total([f for c in vals for f in c]), "add", lds1, waves, tid))
            cent = []
            for c, vs in zip(chunk, vals):
                inside = k.v_cmp_gt_u32_e64(n, k.v_lshlrev_b32(3, c))  # the chunk lies before n (n % 8 == 0)
                cent.append([k.v_cndmask_b32_e64(0, k.v_sub_f32(f, mean), inside) for f in vs])
        else:
            cent = vals
        sq = None
        for vs in cent:
            for f in vs:
                sq = k.v_mul_f32(f, f) if sq is None else k.v_fma_f32(f, f, sq)
        ms = k.v_mul_f32(inv_n, block_reduce(k, sq, "add", lds2, waves, tid))
        rstd = k.v_rsq_f32(k.v_add_f32(eps, ms))
        bias = k.s_mov_b32(0x7FFF)
        for i, (o, vs) in enumerate(zip(offs, cent)):
            gv, gt = gl[i]
            k.wait(gt)
            gs = [f for d in gv.split() for f in _unpack(k, d, hi_mask)]
            if bl:
                bv, bt = bl[i]
                k.wait(bt)
                bs = [f for d in bv.split() for f in _unpack(k, d, hi_mask)]
            outs = []
            for e, f in enumerate(vs):
                r = k.v_mul_f32(k.v_mul_f32(f, rstd), gs[e])
                if bl:
                    r = k.v_add_f32(r, bs[e])
                outs.append(k.v_add3_u32(r, bias, k.v_bfe_u32(r, 16, 1)))  # round to nearest even
            packed = [k.v_and_or_b32(outs[2 * q + 1], hi_mask, k.v_lshrrev_b32(16, outs[2 * q])) for q in range(4)]
            k.buffer_store_dwordx4(k.concat(*packed), o, ysrc, 0, offen=True)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

"""Layer normalization and RMS normalization of an R x N f32 matrix, one work-group per row.

``build(kind="layer"|"rms", max_cols, waves)``:

* layer: ``y = (x - mean) * rsqrt(var + eps) * gamma + beta`` with ``var`` the biased
  variance computed in a second pass over ``x - mean`` (kept in registers, so the second
  pass reads no memory; two passes avoid the cancellation of E[x^2] - E[x]^2);
* rms:   ``y = x * rsqrt(mean(x^2) + eps) * gamma``.

The row layout, the ragged tail (buffer descriptors with ``num_records = 4 * n``) and the
block reductions (DPP in the wave, LDS + ``s_barrier`` across waves) are those of
``row_softmax``; lanes past ``n`` are zeroed with ``v_cndmask_b32`` before the second pass.
``1 / n`` is ``v_rcp_f32(v_cvt_f32_u32(n))``; ``rsqrt`` is ``v_rsq_f32``.
"""

from __future__ import annotations

from gcnforge.builder import Arg, Module
from lib.regs import block_reduce, buffer_rsrc
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
        gsrc = buffer_rsrc(k, gamma, nbytes)
        bsrc = buffer_rsrc(k, beta, nbytes) if beta is not None else None
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


if __name__ == "__main__":
    print(build())

"""Per-token fp8 (e4m3fnuz) quantization, aiter's ``dynamic_per_token_scaled_quant`` (the rule:
``moe/reference.py``, ``quant_per_token``).

``x[R, C]`` (bf16 bits or f32) -> ``q[R, C]`` (uint8 e4m3fnuz codes), ``scale[R]`` (f32). One
work-group per row (grid = R), ``64 * waves`` work-items; C is a run-time argument, a multiple of
4. Two run-time loops over the row, 4 columns per work-item and step (``buffer_load``: the
last step is clamped by the buffer's size, lanes past C read 0 and store nothing): the first
takes the max of the magnitudes as unsigned integers (the sign bit cleared: for finite floats
the integer order is the magnitude order), reduced over the work-group with
``gcnforge.lib.block_reduce`` (``umax``); the second loads the row again and converts it. ``scale = max(1e-10, amax) * f32(1/240)``, its
reciprocal ``v_rcp_f32`` refined by one Newton step (``1/scale`` correctly rounded as aiter's
``1.0f / scale``), and ``v_cvt_pk_fp8_f32`` converts two products at a time (round to nearest
even; no product exceeds 240 by more than rounding, which rounds to 240: the overflow to
NaN starts at 248).
"""

from __future__ import annotations

import numpy as np

from gcnforge.builder import Arg, Module
from gcnforge.lib import block_reduce, buffer_load, buffer_store, make_buffer_rsrc

WAVE = 64
FP8_MAX = 240.0  # e4m3fnuz largest finite (reference.FP8_MAX)
AMAX_FLOOR = 1e-10  # reference.AMAX_FLOOR (aiter quant_kernels.cu)
ABS = 0x7FFFFFFF


def kernel_name(in_dtype: str = "bf16", waves: int = 1) -> str:
    return f"moe_quant_{in_dtype}_w{waves}"


def build(in_dtype: str = "bf16", waves: int = 1, name: str | None = None) -> Module:
    if in_dtype not in ("bf16", "f32") or waves not in (1, 2, 4, 8):
        raise ValueError("per-token quant: in_dtype bf16 or f32, waves 1/2/4/8")
    name = name or kernel_name(in_dtype, waves)
    isz = 2 if in_dtype == "bf16" else 4
    threads = WAVE * waves
    m = Module(name)
    args = [Arg.ptr("x", np.uint16 if in_dtype == "bf16" else np.float32, access="read_only"),
            Arg.ptr("q", np.uint8, access="write_only"), Arg.ptr("scale", np.float32, access="write_only"),
            Arg.value("cols", np.int32)]
    with m.kernel(name, args, workgroup_size=(threads, 1, 1)) as k:
        x, q, scale, cols = k.args()
        row = k.block_id("x")
        tid = k.thread_id("x")
        xbytes = k.s_mul_i32(cols, isz)
        rx = make_buffer_rsrc(k, _row_ptr(k, x, row, xbytes), xbytes)
        rq = make_buffer_rsrc(k, _row_ptr(k, q, row, cols), cols)
        item = k.v_lshlrev_b32(3 if isz == 2 else 4, tid)  # 4 columns per work-item and step
        with k.loop(0, cols, 4 * threads, [k.v_mov_b32(0)]) as body:
            (acc,) = body.args
            vals = _load4(k, rx, body.iv, item, in_dtype)
            body.next(k.v_max_u32(_abs_max(k, vals), acc))
        amax = block_reduce(k, body.results[0], "umax", k.lds(4 * waves), waves, tid)
        sc = k.v_mul_f32(np.float32(1.0 / FP8_MAX).item(), k.v_max_f32(AMAX_FLOOR, amax))
        inv = _reciprocal(k, sc)
        _store_scale(k, scale, row, sc, k.v_cmp_eq_u32_e64(0, tid))
        qoff = k.v_lshlrev_b32(2, tid)
        with k.loop(0, cols, 4 * threads) as body:
            a = [k.v_mul_f32(inv, e) for e in _load4(k, rx, body.iv, item, in_dtype)]
            lo = k.v_cvt_pk_fp8_f32(a[0], a[1])
            hi = k.v_cvt_pk_fp8_f32(a[2], a[3])
            word = k.v_lshl_or_b32(hi, 16, k.v_and_b32(0xFFFF, lo))  # the cvt leaves dst[31:16] as it was
            buffer_store(k, word, rq, k.v_add_u32(body.iv, qoff))
        k.s_endpgm()
    m.verify()
    return m


def _load4(k, rx, col0, item, in_dtype: str):
    """Four f32 values of columns ``col0 + 4 tid ..`` (0 past the row: the buffer clamps)."""
    isz = 2 if in_dtype == "bf16" else 4
    v, t = buffer_load(k, rx, k.v_add_u32(k.s_mul_i32(col0, isz), item), dwords=isz)  # 8 or 16 bytes
    k.wait(t)
    return _to_f32(k, v, in_dtype)


def _row_ptr(k, ptr, row, row_bytes: int):
    """``ptr + row * row_bytes`` (64-bit SGPR pair)."""
    lo, hi = ptr.split()
    off = k.s_mul_i32(row, row_bytes)
    return k.concat(k.s_add_u32(lo, off), k.s_addc_u32(hi, 0))


def _to_f32(k, v, in_dtype: str):
    """Four f32 values from a load: bf16 pairs widened by placing them in the high half."""
    parts = v.split()
    if in_dtype == "f32":
        return parts
    out = []
    for d in parts:
        out.append(k.v_lshlrev_b32(16, d))
        out.append(k.v_and_b32(0xFFFF0000, d))
    return out


def _abs_max(k, xs):
    """Max of |x| as an unsigned integer (sign bits cleared)."""
    t = k.v_and_b32(ABS, xs[0])
    for x in xs[1:]:
        t = k.v_max_u32(k.v_and_b32(ABS, x), t)
    return t


def _reciprocal(k, s):
    """1/s: ``v_rcp_f32`` (1 ulp) and one Newton-Raphson step, e = 1 - s*r, r += r*e."""
    r = k.v_rcp_f32(s)
    e = k.v_fma_f32(s, r, -1.0)
    return k.v_fma_f32(k.v_xor_b32(0x80000000, e), r, r)


def _store_scale(k, scale, row, sc, lane0):
    from gcnforge.lib import masked

    with masked(k, lane0):
        k.global_store_dword(k.v_mov_b32(k.s_lshl_b32(row, 2)), sc, scale)

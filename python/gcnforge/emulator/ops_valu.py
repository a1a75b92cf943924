"""Vector ALU (VOP1, VOP2, VOP3, VOPC, with DPP/SDWA source forms), vectorized over lanes.

Semantics follow the pseudo-code of the AMD Instinct MI300 ISA Reference Guide, "Vector
ALU Operations". One generic driver (``_vop``) reads sources (applying DPP, SDWA and the
VOP3 ``op_sel``/``neg``/``abs`` modifiers), converts them to the operation's types, calls a
NumPy function and writes the result under EXEC (with ``clamp``/``omod`` and SDWA/op_sel
destination selection). The op tables below give each instruction's types and function.
Transcendentals are computed in double precision and rounded once, which is within the
ISA guide's stated accuracy (1 ULP for v_rcp/v_rsq/v_sqrt/v_exp/v_log f32).
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WaveFault, lanes_to_mask, mask_to_lanes
from gcnforge.emulator.lanes import dpp_source, sdwa_dst, sdwa_select
from gcnforge.emulator.numerics import f32_to_fp8, fp8_to_f32
from gcnforge.emulator.program import EXEC, VCC

HANDLERS: dict = {}
U64 = np.uint64

# type -> (numpy dtype, dwords)
TYPES = {
    "f32": (np.float32, 1), "f16": (np.float16, 1), "f64": (np.float64, 2), "bf16": (np.uint16, 1),
    "i32": (np.int32, 1), "u32": (np.uint32, 1), "b32": (np.uint32, 1),
    "i16": (np.int16, 1), "u16": (np.uint16, 1), "b16": (np.uint16, 1),
    "i64": (np.int64, 2), "u64": (np.uint64, 2), "b64": (np.uint64, 2),
    "i8": (np.int8, 1), "u8": (np.uint8, 1),
}
FLOATS = ("f32", "f16", "f64")


def to_typed(raw: np.ndarray, ty: str) -> np.ndarray:
    dt, n = TYPES[ty]
    if n == 2:
        return raw.astype(np.uint64).view(dt)
    r = raw.astype(np.uint32)
    if dt in (np.float16, np.uint16, np.int16):
        return (r & np.uint32(0xFFFF)).astype(np.uint16).view(dt)
    if dt in (np.int8, np.uint8):
        return (r & np.uint32(0xFF)).astype(np.uint8).view(dt)
    return r.view(dt)


def from_typed(val: np.ndarray, ty: str) -> np.ndarray:
    dt, n = TYPES[ty]
    if True:
        v = np.asarray(val)
        if n == 2:
            if dt == np.float64:
                return v.astype(np.float64).view(np.uint64)
            return v.astype(np.int64 if dt == np.int64 else np.uint64).view(np.uint64) if v.dtype.kind != "f" \
                else v.astype(np.int64).view(np.uint64)
        if dt == np.float32:
            return v.astype(np.float32).view(np.uint32)
        if dt == np.float16:
            return v.astype(np.float16).view(np.uint16).astype(np.uint32)
        if dt in (np.int16, np.uint16):
            return (v.astype(np.int64) & 0xFFFF).astype(np.uint32)
        if v.dtype.kind == "f":
            return v.astype(np.int64).astype(np.uint32)
        return (v.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)


def _is_vop3(ins) -> bool:
    return ins.enc in ("e64", "") and ins.base.startswith("v_")


class Ctx:
    """Per-execution view used by the op functions that need more than their sources."""

    def __init__(self, x, ins, w, lanes):
        self.x, self.ins, self.w, self.lanes = x, ins, w, lanes


def read_src(x, ins, w, k: int, ty: str, pos: int, lanes: np.ndarray):
    """Source operand ``k`` (index in ins.ops) as ``ty``; ``pos`` = source number (0..2).
    Returns (typed (n,64), write-mask refinement or None)."""
    op = ins.ops[k]
    n = TYPES[ty][1]
    extra = None
    raw = x.vread(op, w, n)
    if ins.enc == "dpp" and pos == 0:
        raw, extra = dpp_source(raw, lanes, ins.mods)
    if ins.enc == "sdwa" and pos < 2 and n == 1:
        sel = ins.mods.get("src0_sel" if pos == 0 else "src1_sel", "DWORD")
        raw = sdwa_select(raw, sel, op.sext, ty in ("f16", "bf16"))
    if n == 1 and ty in ("f16", "i16", "u16", "b16", "bf16") and _is_vop3(ins):
        osel = ins.mods.get("op_sel")
        if osel and pos < len(osel) and osel[pos]:
            raw = raw >> np.uint32(16)
    v = to_typed(raw, ty)
    if ty in FLOATS and (op.abs or op.neg):
        v = np.abs(v) if op.abs else v
        v = -v if op.neg else v
    elif ty in ("i32", "i16", "i64") and op.neg and op.kind != "imm":
        v = -v
    return v, extra


def write_dst(x, ins, w, k: int, ty: str, val, mask):
    op = ins.ops[k]
    raw = from_typed(val, ty)
    if ty in ("f32",) and x.ftz32:
        f = raw.view(np.float32)
        raw = np.where((np.abs(f) < np.float32(1.1754944e-38)) & (f != 0), raw & np.uint32(0x80000000), raw)
    if ins.enc == "sdwa":
        old = x.vread(op, w, 1)
        raw = sdwa_dst(old, raw, ins.mods.get("dst_sel", "DWORD"), ins.mods.get("dst_unused", "UNUSED_PAD"))
    elif TYPES[ty][1] == 1 and ty in ("f16", "i16", "u16", "b16") and _is_vop3(ins):
        if dst_opsel(ins):
            old = x.vread(op, w, 1)
            raw = (old & np.uint32(0xFFFF)) | (raw.astype(np.uint32) << np.uint32(16))
    if op.kind == "s":  # v_readlane-like scalar dst: not via this path
        raise WaveFault("internal: scalar destination in VALU write")
    x.vwrite(op, w, raw, mask, TYPES[ty][1])


def dst_opsel(ins) -> int:
    """VOP3 op_sel's destination bit: LLVM prints one entry per source, then the dst's."""
    osel = ins.mods.get("op_sel")
    nsrc = len(ins.ops) - 1
    return int(osel[nsrc]) if osel and len(osel) > nsrc else 0


def _omod_clamp(ins, ty, v):
    mods = ins.mods
    if ty in FLOATS:
        om = mods.get("mul")
        if om:
            v = v * v.dtype.type(om)
        if mods.get("div"):
            v = v / v.dtype.type(mods["div"])
        if "clamp" in mods:
            v = np.where(np.isnan(v), v.dtype.type(0), np.clip(v, 0, 1)).astype(v.dtype)
    return v


def vop(dst: str, srcs: tuple[str, ...], fn, *, first_src=1, clamp_int=None):
    """A plain VALU op: ops[0] = vdst, ops[first_src:] = sources of types ``srcs``."""

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        vals = []
        mask = lanes
        for i, ty in enumerate(srcs):
            v, extra = read_src(x, ins, w, first_src + i, ty, i, lanes)
            if extra is not None:
                mask = mask & extra
            vals.append(v)
        # floating-point warnings are silenced once per launch (Device.run), not per instruction
        r = fn(*vals) if not getattr(fn, "wants_ctx", False) else fn(Ctx(x, ins, w, lanes), *vals)
        if clamp_int is not None and "clamp" in ins.mods:
            r = clamp_int(r)
        elif ins.mods and dst in FLOATS:
            r = _omod_clamp(ins, dst, np.asarray(r))
        write_dst(x, ins, w, 0, dst, r, mask)

    return h


def ctx(fn):
    fn.wants_ctx = True
    return fn


F32 = np.float32
F64 = np.float64


def _fma32(a, b, c):
    return (a.astype(F64) * b.astype(F64) + c.astype(F64)).astype(F32)


def _mad32(a, b, c):
    return (a * b) + c


def _fma16(a, b, c):
    return (a.astype(F64) * b.astype(F64) + c.astype(F64)).astype(np.float16)


def _fma64(a, b, c):
    # NumPy has no fused f64 multiply-add; use extended precision where the platform has it.
    return (a.astype(np.longdouble) * b.astype(np.longdouble) + c.astype(np.longdouble)).astype(F64)


def _ldexp(a, e):
    return np.ldexp(a, np.clip(e.astype(np.int64), -1100, 1100).astype(np.int32)).astype(a.dtype)


def _trunc_i32(f):
    f = np.asarray(f, dtype=F64)
    r = np.where(np.isnan(f), 0, np.clip(np.trunc(f), -2147483648, 2147483647))
    return r.astype(np.int64).astype(np.int32)


def _trunc_u32(f):
    f = np.asarray(f, dtype=F64)
    r = np.where(np.isnan(f), 0, np.clip(np.trunc(f), 0, 4294967295))
    return r.astype(np.int64).astype(np.uint32)


def _frexp_mant(a):
    m, e = np.frexp(a)
    return np.where(np.isfinite(a), m, a).astype(a.dtype)


def _frexp_exp(a):
    m, e = np.frexp(a)
    return np.where(np.isfinite(a), e, 0).astype(np.int32)


def _fract(a):
    r = a - np.floor(a)
    lim = np.nextafter(a.dtype.type(1), a.dtype.type(0))
    return np.where(np.isinf(a), a.dtype.type(np.nan), np.minimum(r, lim)).astype(a.dtype)


def _rcp(a):
    return (1.0 / a.astype(F64)).astype(a.dtype)


def _rsq(a):
    return (1.0 / np.sqrt(a.astype(F64))).astype(a.dtype)


def _sqrt(a):
    return np.sqrt(a.astype(F64)).astype(a.dtype)


def _exp2(a):
    return np.exp2(a.astype(F64)).astype(a.dtype)


def _log2(a):
    return np.log2(a.astype(F64)).astype(a.dtype)


def _sin(a):  # input in revolutions (ISA guide: V_SIN_F32 computes sin(2*pi*S0))
    return np.sin(a.astype(F64) * 2 * np.pi).astype(a.dtype)


def _cos(a):
    return np.cos(a.astype(F64) * 2 * np.pi).astype(a.dtype)


def _rndne(a):
    return np.rint(a).astype(a.dtype)


def _fmin(a, b):
    return np.fmin(a, b)


def _fmax(a, b):
    return np.fmax(a, b)


def _med3(a, b, c):
    if a.dtype.kind == "f":
        return np.fmax(np.fmin(a, b), np.fmin(np.fmax(a, b), c))
    return np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))


def _mul_legacy(a, b):
    return np.where((a == 0) | (b == 0), F32(0), a * b).astype(F32)


# ---- float ops ---------------------------------------------------------------------------
for t in FLOATS:
    HANDLERS[f"v_add_{t}"] = vop(t, (t, t), lambda a, b: a + b)
    HANDLERS[f"v_sub_{t}"] = vop(t, (t, t), lambda a, b: a - b)
    HANDLERS[f"v_subrev_{t}"] = vop(t, (t, t), lambda a, b: b - a)
    HANDLERS[f"v_mul_{t}"] = vop(t, (t, t), lambda a, b: a * b)
    HANDLERS[f"v_min_{t}"] = vop(t, (t, t), _fmin)
    HANDLERS[f"v_max_{t}"] = vop(t, (t, t), _fmax)
    HANDLERS[f"v_min3_{t}"] = vop(t, (t, t, t), lambda a, b, c: np.fmin(np.fmin(a, b), c))
    HANDLERS[f"v_max3_{t}"] = vop(t, (t, t, t), lambda a, b, c: np.fmax(np.fmax(a, b), c))
    HANDLERS[f"v_med3_{t}"] = vop(t, (t, t, t), _med3)
    HANDLERS[f"v_ldexp_{t}"] = vop(t, (t, "i32"), _ldexp)
    HANDLERS[f"v_rcp_{t}"] = vop(t, (t,), _rcp)
    HANDLERS[f"v_rsq_{t}"] = vop(t, (t,), _rsq)
    HANDLERS[f"v_sqrt_{t}"] = vop(t, (t,), _sqrt)
    HANDLERS[f"v_fract_{t}"] = vop(t, (t,), _fract)
    HANDLERS[f"v_trunc_{t}"] = vop(t, (t,), np.trunc)
    HANDLERS[f"v_ceil_{t}"] = vop(t, (t,), np.ceil)
    HANDLERS[f"v_floor_{t}"] = vop(t, (t,), np.floor)
    HANDLERS[f"v_rndne_{t}"] = vop(t, (t,), _rndne)
    HANDLERS[f"v_frexp_mant_{t}"] = vop(t, (t,), _frexp_mant)
    HANDLERS[f"v_frexp_exp_i32_{t}"] = vop("i32", (t,), _frexp_exp)
for t in ("f32", "f16"):
    HANDLERS[f"v_exp_{t}"] = vop(t, (t,), _exp2)
    HANDLERS[f"v_log_{t}"] = vop(t, (t,), _log2)
    HANDLERS[f"v_sin_{t}"] = vop(t, (t,), _sin)
    HANDLERS[f"v_cos_{t}"] = vop(t, (t,), _cos)
HANDLERS["v_frexp_exp_i16_f16"] = vop("i16", ("f16",), lambda a: _frexp_exp(a).astype(np.int16))
HANDLERS["v_rcp_iflag_f32"] = vop("f32", ("f32",), _rcp)
HANDLERS["v_exp_legacy_f32"] = vop("f32", ("f32",), _exp2)
HANDLERS["v_log_legacy_f32"] = vop("f32", ("f32",), _log2)
HANDLERS["v_mul_legacy_f32"] = vop("f32", ("f32", "f32"), _mul_legacy)
HANDLERS["v_fma_f32"] = vop("f32", ("f32",) * 3, _fma32)
HANDLERS["v_fma_f16"] = vop("f16", ("f16",) * 3, _fma16)
HANDLERS["v_fma_legacy_f16"] = HANDLERS["v_fma_f16"]
HANDLERS["v_fma_f64"] = vop("f64", ("f64",) * 3, _fma64)
HANDLERS["v_mad_f32"] = vop("f32", ("f32",) * 3, _mad32)
HANDLERS["v_mad_legacy_f32"] = HANDLERS["v_mad_f32"]
HANDLERS["v_mad_f16"] = vop("f16", ("f16",) * 3, _mad32)
HANDLERS["v_mad_legacy_f16"] = HANDLERS["v_mad_f16"]
HANDLERS["v_fma_legacy_f32"] = HANDLERS["v_fma_f32"]
HANDLERS["v_fmamk_f32"] = vop("f32", ("f32",) * 3, _fma32)  # printed d, s0, K, s1: d = s0*K + s1
HANDLERS["v_fmaak_f32"] = vop("f32", ("f32",) * 3, _fma32)  # printed d, s0, s1, K: d = s0*s1 + K
HANDLERS["v_madmk_f32"] = vop("f32", ("f32",) * 3, _mad32)
HANDLERS["v_madak_f32"] = vop("f32", ("f32",) * 3, _mad32)
HANDLERS["v_madmk_f16"] = vop("f16", ("f16",) * 3, _mad32)
HANDLERS["v_madak_f16"] = vop("f16", ("f16",) * 3, _mad32)


def _accum(t, fn):
    """v_mac/v_fmac: the destination is also the addend."""
    inner = vop(t, (t, t, t), fn)

    def h(x, ins, w):
        ins2 = ins.__class__(ins.pc, ins.size, ins.text, ins.mnemonic, ins.base, ins.enc,
                             tuple(ins.ops[:3]) + (ins.ops[0],), ins.mods)
        inner(x, ins2, w)

    return h


HANDLERS["v_mac_f32"] = _accum("f32", _mad32)
HANDLERS["v_fmac_f32"] = _accum("f32", _fma32)
HANDLERS["v_mac_f16"] = _accum("f16", _mad32)
HANDLERS["v_fmac_f16"] = _accum("f16", _fma16)
HANDLERS["v_fmac_f64"] = _accum("f64", _fma64)

# conversions
HANDLERS["v_cvt_f32_f16"] = vop("f32", ("f16",), lambda a: a.astype(F32))
HANDLERS["v_cvt_f16_f32"] = vop("f16", ("f32",), lambda a: a.astype(np.float16))
HANDLERS["v_cvt_f64_f32"] = vop("f64", ("f32",), lambda a: a.astype(F64))
HANDLERS["v_cvt_f32_f64"] = vop("f32", ("f64",), lambda a: a.astype(F32))
HANDLERS["v_cvt_f32_i32"] = vop("f32", ("i32",), lambda a: a.astype(F32))
HANDLERS["v_cvt_f32_u32"] = vop("f32", ("u32",), lambda a: a.astype(F32))
HANDLERS["v_cvt_f64_i32"] = vop("f64", ("i32",), lambda a: a.astype(F64))
HANDLERS["v_cvt_f64_u32"] = vop("f64", ("u32",), lambda a: a.astype(F64))
HANDLERS["v_cvt_i32_f32"] = vop("i32", ("f32",), _trunc_i32)
HANDLERS["v_cvt_u32_f32"] = vop("u32", ("f32",), _trunc_u32)
HANDLERS["v_cvt_i32_f64"] = vop("i32", ("f64",), _trunc_i32)
HANDLERS["v_cvt_u32_f64"] = vop("u32", ("f64",), _trunc_u32)
HANDLERS["v_cvt_f16_u16"] = vop("f16", ("u16",), lambda a: a.astype(np.float16))
HANDLERS["v_cvt_f16_i16"] = vop("f16", ("i16",), lambda a: a.astype(np.float16))
HANDLERS["v_cvt_u16_f16"] = vop("u16", ("f16",), lambda a: np.clip(np.nan_to_num(np.trunc(a.astype(F32))), 0, 65535).astype(np.uint16))
HANDLERS["v_cvt_i16_f16"] = vop("i16", ("f16",), lambda a: np.clip(np.nan_to_num(np.trunc(a.astype(F32))), -32768, 32767).astype(np.int16))
HANDLERS["v_cvt_rpi_i32_f32"] = vop("i32", ("f32",), lambda a: _trunc_i32(np.floor(a.astype(F64) + 0.5)))
HANDLERS["v_cvt_flr_i32_f32"] = vop("i32", ("f32",), lambda a: _trunc_i32(np.floor(a)))
HANDLERS["v_cvt_off_f32_i4"] = vop("f32", ("u32",), lambda a: ((a & 15).astype(np.int32) - ((a & 8) << 1).astype(np.int32)).astype(F32) / 16)
for _b in range(4):
    HANDLERS[f"v_cvt_f32_ubyte{_b}"] = vop("f32", ("u32",), lambda a, b=_b: ((a >> (8 * b)) & 0xFF).astype(F32))
HANDLERS["v_cvt_norm_i16_f16"] = vop("i16", ("f16",), lambda a: np.rint(np.clip(a.astype(F32), -1, 1) * 32767).astype(np.int16))
HANDLERS["v_cvt_norm_u16_f16"] = vop("u16", ("f16",), lambda a: np.rint(np.clip(a.astype(F32), 0, 1) * 65535).astype(np.uint16))


def _pack2(lo, hi):
    return (lo.astype(np.uint32) & 0xFFFF) | (hi.astype(np.uint32) << 16)


HANDLERS["v_cvt_pkrtz_f16_f32"] = vop("u32", ("f32", "f32"), lambda a, b: _pack2(
    _rtz16(a), _rtz16(b)))
HANDLERS["v_cvt_pknorm_i16_f32"] = vop("u32", ("f32", "f32"), lambda a, b: _pack2(
    np.rint(np.clip(a, -1, 1) * 32767).astype(np.int16).view(np.uint16), np.rint(np.clip(b, -1, 1) * 32767).astype(np.int16).view(np.uint16)))
HANDLERS["v_cvt_pknorm_u16_f32"] = vop("u32", ("f32", "f32"), lambda a, b: _pack2(
    np.rint(np.clip(a, 0, 1) * 65535), np.rint(np.clip(b, 0, 1) * 65535)))
HANDLERS["v_cvt_pk_u16_u32"] = vop("u32", ("u32", "u32"), lambda a, b: _pack2(np.minimum(a, 65535), np.minimum(b, 65535)))
HANDLERS["v_cvt_pk_i16_i32"] = vop("u32", ("i32", "i32"), lambda a, b: _pack2(
    np.clip(a, -32768, 32767).astype(np.int16).view(np.uint16), np.clip(b, -32768, 32767).astype(np.int16).view(np.uint16)))
HANDLERS["v_cvt_pknorm_i16_f16"] = vop("u32", ("f16", "f16"), lambda a, b: _pack2(
    np.rint(np.clip(a.astype(F32), -1, 1) * 32767).astype(np.int16).view(np.uint16),
    np.rint(np.clip(b.astype(F32), -1, 1) * 32767).astype(np.int16).view(np.uint16)))
HANDLERS["v_cvt_pknorm_u16_f16"] = vop("u32", ("f16", "f16"), lambda a, b: _pack2(
    np.rint(np.clip(a.astype(F32), 0, 1) * 65535), np.rint(np.clip(b.astype(F32), 0, 1) * 65535)))
# V_SAT_PK_U8_I16: both signed 16-bit halves saturated to unsigned bytes in the low 16 bits
def _sat_pk_u8_i16(a):
    lo = ((a.astype(np.int64) & 0xFFFF) ^ 0x8000) - 0x8000
    hi = (((a.astype(np.int64) >> 16) & 0xFFFF) ^ 0x8000) - 0x8000
    return (np.clip(lo, 0, 255) | (np.clip(hi, 0, 255) << 8)).astype(np.uint32)


HANDLERS["v_sat_pk_u8_i16"] = vop("u32", ("u32",), _sat_pk_u8_i16)
HANDLERS["v_pack_b32_f16"] = vop("u32", ("f16", "f16"), lambda a, b: _pack2(a.view(np.uint16), b.view(np.uint16)))


def _rtz16(a):
    h = a.astype(np.float16)
    back = h.astype(F32)
    toward = np.abs(back) > np.abs(a)
    h2 = np.where(toward & np.isfinite(a), np.nextafter(h, np.float16(0)), h)
    return h2.astype(np.float16).view(np.uint16)


# FP8/BF8 conversions (gfx942 FNUZ formats, see numerics.py)
def _cvt_pk_fp8(bf8):
    @ctx
    def f(c, a, b):
        clamp = "clamp" in c.ins.mods
        lo = f32_to_fp8(a, bf8, clamp).astype(np.uint32) | (f32_to_fp8(b, bf8, clamp).astype(np.uint32) << 8)
        old = c.x.vread(c.ins.ops[0], c.w, 1)
        if dst_opsel(c.ins):
            return (old & np.uint32(0xFFFF)) | (lo << 16)
        return (old & np.uint32(0xFFFF0000)) | lo

    return f


HANDLERS["v_cvt_pk_fp8_f32"] = vop("u32", ("f32", "f32"), _cvt_pk_fp8(False))
HANDLERS["v_cvt_pk_bf8_f32"] = vop("u32", ("f32", "f32"), _cvt_pk_fp8(True))


def _cvt_from8(bf8, pk):
    @ctx
    def f(c, a):
        sel = 0
        if c.ins.enc == "sdwa":
            sel = {"BYTE_0": 0, "BYTE_1": 1, "BYTE_2": 2, "BYTE_3": 3, "WORD_1": 2}.get(c.ins.mods.get("src0_sel", ""), 0)
        osel = c.ins.mods.get("op_sel", [0, 0])
        if _is_vop3(c.ins) and osel:
            sel = (osel[0] & 1) * 2 + ((osel[1] & 1) if len(osel) > 1 and not pk else 0)
            if pk:
                sel = (osel[0] & 1) * 2
        a = a.astype(np.uint32)
        if c.ins.enc == "sdwa":
            a = c.x.vread(c.ins.ops[1], c.w, 1)
        b0 = ((a >> np.uint32(8 * sel)) & np.uint32(0xFF))
        if not pk:
            return fp8_to_f32(b0, bf8)
        b1 = ((a >> np.uint32(8 * sel + 8)) & np.uint32(0xFF))
        return np.stack([fp8_to_f32(b0, bf8), fp8_to_f32(b1, bf8)])

    return f


HANDLERS["v_cvt_f32_fp8"] = vop("f32", ("u32",), _cvt_from8(False, False))
HANDLERS["v_cvt_f32_bf8"] = vop("f32", ("u32",), _cvt_from8(True, False))


def _cvt_pk_f32_8(bf8):
    f = _cvt_from8(bf8, True)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        a, _ = read_src(x, ins, w, 1, "u32", 0, lanes)
        r = f(Ctx(x, ins, w, lanes), a)
        x.vwrite(ins.ops[0], w, r[0].view(np.uint32), lanes, 1)
        hi = ins.ops[0].__class__(ins.ops[0].kind, ins.ops[0].index + 1, 1)
        x.vwrite(hi, w, r[1].view(np.uint32), lanes, 1)

    return h


HANDLERS["v_cvt_pk_f32_fp8"] = _cvt_pk_f32_8(False)
HANDLERS["v_cvt_pk_f32_bf8"] = _cvt_pk_f32_8(True)

# ---- integer ops -----------------------------------------------------------------------------


def _u32(a):
    return a.astype(np.uint32)


def _sh(b, bits):
    return (b.astype(np.uint32) & np.uint32(bits - 1))


HANDLERS["v_mov_b32"] = vop("b32", ("b32",), lambda a: a)
HANDLERS["v_mov_b64"] = vop("b64", ("b64",), lambda a: a)
HANDLERS["v_mov_fed_b32"] = HANDLERS["v_mov_b32"]
HANDLERS["v_not_b32"] = vop("b32", ("b32",), lambda a: ~a)
HANDLERS["v_bfrev_b32"] = vop("b32", ("b32",), lambda a: _bitrev32(a))
HANDLERS["v_ffbh_u32"] = vop("u32", ("u32",), lambda a: _clz32(a))
HANDLERS["v_ffbl_b32"] = vop("u32", ("u32",), lambda a: _ctz32(a))
HANDLERS["v_ffbh_i32"] = vop("u32", ("i32",), lambda a: np.where((a == 0) | (a == -1), np.uint32(0xFFFFFFFF),
                                                                  _clz32(np.where(a < 0, ~a, a).view(np.uint32)) - np.uint32(1)))
HANDLERS["v_bcnt_u32_b32"] = vop("u32", ("u32", "u32"), lambda a, b: _popc32(a) + b)
HANDLERS["v_add_u32"] = vop("u32", ("u32", "u32"), lambda a, b: a + b, clamp_int=None)
HANDLERS["v_sub_u32"] = vop("u32", ("u32", "u32"), lambda a, b: a - b)
HANDLERS["v_subrev_u32"] = vop("u32", ("u32", "u32"), lambda a, b: b - a)
HANDLERS["v_add_u16"] = vop("u16", ("u16", "u16"), lambda a, b: a + b)
HANDLERS["v_sub_u16"] = vop("u16", ("u16", "u16"), lambda a, b: a - b)
HANDLERS["v_subrev_u16"] = vop("u16", ("u16", "u16"), lambda a, b: b - a)
HANDLERS["v_mul_lo_u16"] = vop("u16", ("u16", "u16"), lambda a, b: a * b)
HANDLERS["v_add_i32"] = vop("i32", ("i32", "i32"), lambda a, b: a + b,
                            clamp_int=lambda r: r)
HANDLERS["v_sub_i32"] = vop("i32", ("i32", "i32"), lambda a, b: a - b)
HANDLERS["v_add_i16"] = vop("i16", ("i16", "i16"), lambda a, b: a + b)
HANDLERS["v_sub_i16"] = vop("i16", ("i16", "i16"), lambda a, b: a - b)
HANDLERS["v_and_b32"] = vop("b32", ("b32", "b32"), lambda a, b: a & b)
HANDLERS["v_or_b32"] = vop("b32", ("b32", "b32"), lambda a, b: a | b)
HANDLERS["v_xor_b32"] = vop("b32", ("b32", "b32"), lambda a, b: a ^ b)
HANDLERS["v_xnor_b32"] = vop("b32", ("b32", "b32"), lambda a, b: ~(a ^ b))
HANDLERS["v_lshlrev_b32"] = vop("b32", ("u32", "b32"), lambda a, b: b << _sh(a, 32))
HANDLERS["v_lshrrev_b32"] = vop("b32", ("u32", "b32"), lambda a, b: b >> _sh(a, 32))
HANDLERS["v_ashrrev_i32"] = vop("i32", ("u32", "i32"), lambda a, b: b >> _sh(a, 32).astype(np.int32))
HANDLERS["v_lshlrev_b16"] = vop("b16", ("u16", "b16"), lambda a, b: b << (a & 15))
HANDLERS["v_lshrrev_b16"] = vop("b16", ("u16", "b16"), lambda a, b: b >> (a & 15))
HANDLERS["v_ashrrev_i16"] = vop("i16", ("u16", "i16"), lambda a, b: b >> (a & 15).astype(np.int16))
HANDLERS["v_lshlrev_b64"] = vop("b64", ("u32", "b64"), lambda a, b: b << (a & 63).astype(U64))
HANDLERS["v_lshrrev_b64"] = vop("b64", ("u32", "b64"), lambda a, b: b >> (a & 63).astype(U64))
HANDLERS["v_ashrrev_i64"] = vop("i64", ("u32", "i64"), lambda a, b: b >> (a & 63).astype(np.int64))
HANDLERS["v_lshl_add_u64"] = vop("u64", ("u64", "u32", "u64"), lambda a, s, c: (a << (s & 7).astype(U64)) + c)
HANDLERS["v_lshl_add_u32"] = vop("u32", ("u32", "u32", "u32"), lambda a, b, c: (a << _sh(b, 32)) + c)
HANDLERS["v_add_lshl_u32"] = vop("u32", ("u32", "u32", "u32"), lambda a, b, c: (a + b) << _sh(c, 32))
HANDLERS["v_lshl_or_b32"] = vop("u32", ("u32", "u32", "u32"), lambda a, b, c: (a << _sh(b, 32)) | c)
HANDLERS["v_and_or_b32"] = vop("u32", ("u32", "u32", "u32"), lambda a, b, c: (a & b) | c)
HANDLERS["v_or3_b32"] = vop("u32", ("u32", "u32", "u32"), lambda a, b, c: a | b | c)
HANDLERS["v_xad_u32"] = vop("u32", ("u32", "u32", "u32"), lambda a, b, c: (a ^ b) + c)
HANDLERS["v_add3_u32"] = vop("u32", ("u32", "u32", "u32"), lambda a, b, c: a + b + c)
HANDLERS["v_min_i32"] = vop("i32", ("i32", "i32"), np.minimum)
HANDLERS["v_max_i32"] = vop("i32", ("i32", "i32"), np.maximum)
HANDLERS["v_min_u32"] = vop("u32", ("u32", "u32"), np.minimum)
HANDLERS["v_max_u32"] = vop("u32", ("u32", "u32"), np.maximum)
HANDLERS["v_min_i16"] = vop("i16", ("i16", "i16"), np.minimum)
HANDLERS["v_max_i16"] = vop("i16", ("i16", "i16"), np.maximum)
HANDLERS["v_min_u16"] = vop("u16", ("u16", "u16"), np.minimum)
HANDLERS["v_max_u16"] = vop("u16", ("u16", "u16"), np.maximum)
for _t in ("i32", "u32", "i16", "u16"):
    HANDLERS[f"v_min3_{_t}"] = vop(_t, (_t,) * 3, lambda a, b, c: np.minimum(np.minimum(a, b), c))
    HANDLERS[f"v_max3_{_t}"] = vop(_t, (_t,) * 3, lambda a, b, c: np.maximum(np.maximum(a, b), c))
    HANDLERS[f"v_med3_{_t}"] = vop(_t, (_t,) * 3, _med3)
HANDLERS["v_mul_lo_u32"] = vop("u32", ("u32", "u32"), lambda a, b: a * b)
HANDLERS["v_mul_lo_i32"] = HANDLERS["v_mul_lo_u32"]
HANDLERS["v_mul_hi_u32"] = vop("u32", ("u32", "u32"), lambda a, b: ((a.astype(U64) * b.astype(U64)) >> U64(32)).astype(np.uint32))
HANDLERS["v_mul_hi_i32"] = vop("i32", ("i32", "i32"), lambda a, b: ((a.astype(np.int64) * b.astype(np.int64)) >> 32).astype(np.int32))


def _s24(a):
    a = a.astype(np.uint32) & np.uint32(0xFFFFFF)
    return (a.astype(np.int64) ^ 0x800000) - 0x800000


HANDLERS["v_mul_u32_u24"] = vop("u32", ("u32", "u32"), lambda a, b: ((a & 0xFFFFFF).astype(U64) * (b & 0xFFFFFF).astype(U64)).astype(np.uint32))
HANDLERS["v_mul_hi_u32_u24"] = vop("u32", ("u32", "u32"), lambda a, b: (((a & 0xFFFFFF).astype(U64) * (b & 0xFFFFFF).astype(U64)) >> U64(32)).astype(np.uint32))
HANDLERS["v_mul_i32_i24"] = vop("u32", ("u32", "u32"), lambda a, b: (_s24(a) * _s24(b)).astype(np.uint32))
HANDLERS["v_mul_hi_i32_i24"] = vop("u32", ("u32", "u32"), lambda a, b: ((_s24(a) * _s24(b)) >> 32).astype(np.uint32))
HANDLERS["v_mad_u32_u24"] = vop("u32", ("u32",) * 3, lambda a, b, c: ((a & 0xFFFFFF).astype(U64) * (b & 0xFFFFFF).astype(U64) + c).astype(np.uint32))
HANDLERS["v_mad_i32_i24"] = vop("u32", ("u32", "u32", "i32"), lambda a, b, c: (_s24(a) * _s24(b) + c).astype(np.uint32))
HANDLERS["v_mad_u16"] = vop("u16", ("u16",) * 3, lambda a, b, c: a * b + c)
HANDLERS["v_mad_i16"] = vop("i16", ("i16",) * 3, lambda a, b, c: a * b + c)
HANDLERS["v_mad_u32_u16"] = vop("u32", ("u16", "u16", "u32"), lambda a, b, c: a.astype(np.uint32) * b.astype(np.uint32) + c)
HANDLERS["v_mad_i32_i16"] = vop("i32", ("i16", "i16", "i32"), lambda a, b, c: a.astype(np.int32) * b.astype(np.int32) + c)
HANDLERS["v_bfe_u32"] = vop("u32", ("u32", "u32", "u32"), lambda a, o, wd: _bfe(a, o, wd, False))
HANDLERS["v_bfe_i32"] = vop("u32", ("u32", "u32", "u32"), lambda a, o, wd: _bfe(a, o, wd, True))
HANDLERS["v_bfi_b32"] = vop("u32", ("u32",) * 3, lambda m, a, b: (m & a) | (~m & b))
HANDLERS["v_bfm_b32"] = vop("u32", ("u32", "u32"), lambda a, b: (((U64(1) << (a & 31).astype(U64)) - U64(1)) << (b & 31).astype(U64)).astype(np.uint32))
HANDLERS["v_alignbit_b32"] = vop("u32", ("u32",) * 3, lambda a, b, c: (((a.astype(U64) << U64(32)) | b.astype(U64)) >> (c & 31).astype(U64)).astype(np.uint32))
HANDLERS["v_alignbyte_b32"] = vop("u32", ("u32",) * 3, lambda a, b, c: (((a.astype(U64) << U64(32)) | b.astype(U64)) >> (8 * (c & 3)).astype(U64)).astype(np.uint32))
HANDLERS["v_sad_u32"] = vop("u32", ("u32",) * 3, lambda a, b, c: np.abs(a.astype(np.int64) - b.astype(np.int64)).astype(np.uint32) + c)
HANDLERS["v_sad_u16"] = vop("u32", ("u32",) * 3, lambda a, b, c: _sad(a, b, 16) + c)
HANDLERS["v_sad_u8"] = vop("u32", ("u32",) * 3, lambda a, b, c: _sad(a, b, 8) + c)
HANDLERS["v_sad_hi_u8"] = vop("u32", ("u32",) * 3, lambda a, b, c: (_sad(a, b, 8) << np.uint32(16)) + c)
HANDLERS["v_msad_u8"] = vop("u32", ("u32",) * 3, lambda a, b, c: _sad(a, b, 8, masked=True) + c)
HANDLERS["v_mad_legacy_u16"] = vop("u16", ("u16",) * 3, lambda a, b, c: a * b + c)
HANDLERS["v_mad_legacy_i16"] = vop("i16", ("i16",) * 3, lambda a, b, c: a * b + c)
HANDLERS["v_lerp_u8"] = vop("u32", ("u32",) * 3, lambda a, b, c: _lerp(a, b, c))


def _sad(a, b, bits, masked=False):
    r = np.zeros(a.shape, dtype=np.uint32)
    m = np.uint32((1 << bits) - 1)
    for k in range(0, 32, bits):
        fa = ((a >> np.uint32(k)) & m).astype(np.int64)
        fb = ((b >> np.uint32(k)) & m).astype(np.int64)
        d = np.abs(fa - fb)
        if masked:
            d = np.where(fb == 0, 0, d)
        r += d.astype(np.uint32)
    return r


def _lerp(a, b, c):
    r = np.zeros(a.shape, dtype=np.uint32)
    for k in range(0, 32, 8):
        fa = ((a >> np.uint32(k)) & np.uint32(0xFF)).astype(np.uint32)
        fb = ((b >> np.uint32(k)) & np.uint32(0xFF)).astype(np.uint32)
        r |= (((fa + fb + ((c >> np.uint32(k)) & np.uint32(1))) >> np.uint32(1)) & np.uint32(0xFF)) << np.uint32(k)
    return r
HANDLERS["v_cvt_pk_u8_f32"] = vop("u32", ("f32", "u32", "u32"), lambda f, s, c: (c & ~(np.uint32(0xFF) << (8 * (s & 3)))) | (np.clip(np.rint(f), 0, 255).astype(np.uint32) << (8 * (s & 3))))


def _bfe(a, o, wd, signed):
    o = (o & 31).astype(U64)
    wd = (wd & 31).astype(U64)
    r = (a.astype(U64) >> o) & ((U64(1) << wd) - U64(1))
    if signed:
        sh = (U64(64) - wd)
        r = np.where(wd == 0, U64(0), ((r << sh).view(np.int64) >> sh.astype(np.int64)).view(U64))
    return r.astype(np.uint32) if not signed else (r & U64(0xFFFFFFFF)).astype(np.uint32)


def _perm_byte(a, b, sel):
    """v_perm_b32 byte selector (ISA guide V_PERM_B32): 0-7 pick bytes of {S0,S1}, 8-11
    replicate sign bits, 12 = 0x00, >= 13 = 0xff."""
    both = (a.astype(U64) << U64(32)) | b.astype(U64)
    s = sel.astype(np.int64)
    byte = ((both >> (8 * np.clip(s, 0, 7)).astype(U64)) & U64(0xFF)).astype(np.uint32)
    sign = lambda k: np.where(((both >> U64(k)) & U64(1)) != 0, np.uint32(0xFF), np.uint32(0))  # noqa: E731
    r = np.where(s <= 7, byte, 0)
    r = np.where(s == 8, sign(15), r)
    r = np.where(s == 9, sign(31), r)
    r = np.where(s == 10, sign(47), r)
    r = np.where(s == 11, sign(63), r)
    r = np.where(s == 12, 0, r)
    r = np.where(s >= 13, 0xFF, r)
    return r.astype(np.uint32)


def _perm(a, b, c):
    """All four selector bytes at once: a 14-entry byte table per lane (bytes of {S0,S1},
    sign replications 8-11, 0x00 for 12, 0xff for 13+), indexed by the selectors."""
    both = np.ascontiguousarray((a.astype(U64) << U64(32)) | b.astype(U64))
    by = both.view(np.uint8).reshape(both.shape + (8,))
    sign = lambda k: np.where(((both >> U64(k)) & U64(1)) != 0, np.uint8(0xFF), np.uint8(0))  # noqa: E731
    tbl = np.concatenate([by, np.stack([sign(15), sign(31), sign(47), sign(63), np.zeros(both.shape, np.uint8),
                                        np.full(both.shape, 0xFF, np.uint8)], axis=-1)], axis=-1)
    sel = np.minimum(np.ascontiguousarray(c.astype(np.uint32)).view(np.uint8).reshape(both.shape + (4,)), 13)
    out = np.take_along_axis(tbl, sel.astype(np.int64), axis=-1)
    return np.ascontiguousarray(out).view(np.uint32).reshape(both.shape)


HANDLERS["v_perm_b32"] = vop("u32", ("u32",) * 3, _perm)


def _bitrev32(a):
    a = a.astype(np.uint32)
    r = np.zeros_like(a)
    for i in range(32):
        r |= ((a >> np.uint32(i)) & np.uint32(1)) << np.uint32(31 - i)
    return r


def _clz32(a):
    a = a.astype(np.uint32)
    r = np.full(a.shape, 0xFFFFFFFF, dtype=np.uint32)
    for i in range(32):
        r = np.where((a >> np.uint32(i)) & np.uint32(1) != 0, np.uint32(31 - i), r)
    return r


def _ctz32(a):
    a = a.astype(np.uint32)
    r = np.full(a.shape, 0xFFFFFFFF, dtype=np.uint32)
    for i in range(31, -1, -1):
        r = np.where((a >> np.uint32(i)) & np.uint32(1) != 0, np.uint32(i), r)
    return r


def _popc32(a):
    a = a.astype(np.uint32)
    c = np.zeros_like(a)
    for i in range(32):
        c += (a >> np.uint32(i)) & np.uint32(1)
    return c


def _lane_mask_below(half):
    lanes = np.arange(64)
    bits = np.clip(lanes - 32 * half, 0, 32)
    return np.where(bits >= 32, np.uint32(0xFFFFFFFF), ((np.uint64(1) << bits.astype(np.uint64)) - np.uint64(1)).astype(np.uint32))


HANDLERS["v_mbcnt_lo_u32_b32"] = vop("u32", ("u32", "u32"), lambda a, b: _popc32(a & _lane_mask_below(0)) + b)
HANDLERS["v_mbcnt_hi_u32_b32"] = vop("u32", ("u32", "u32"), lambda a, b: _popc32(a & _lane_mask_below(1)) + b)


# ---- carry / borrow ops: ops = vdst, sdst(carry out), src0, src1[, carry in] -------------------
def _carry_op(kind):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        a, extra = read_src(x, ins, w, 2, "u32", 0, lanes)
        b, _ = read_src(x, ins, w, 3, "u32", 1, lanes)
        mask = lanes if extra is None else lanes & extra
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
        cin = 0
        if kind in ("addc", "subb", "subbrev"):
            cin = mask_to_lanes(x.sread(ins.ops[4], w, 2)).astype(np.int64)
        if kind in ("add", "addc"):
            r = a64 + b64 + cin
            co = r > 0xFFFFFFFF
        elif kind in ("sub", "subb"):
            r = a64 - b64 - cin
            co = r < 0
        else:  # subrev, subbrev
            r = b64 - a64 - cin
            co = r < 0
        if "clamp" in ins.mods:
            r = np.clip(r, 0, 0xFFFFFFFF)
        x.vwrite(ins.ops[0], w, (r & 0xFFFFFFFF).astype(np.uint32), mask)
        x.swrite(ins.ops[1], w, lanes_to_mask(co & lanes), 2)

    return h


for _k, _names in {"add": ("v_add_co_u32", "v_add_i32_co"), "sub": ("v_sub_co_u32",), "subrev": ("v_subrev_co_u32",),
                   "addc": ("v_addc_co_u32",), "subb": ("v_subb_co_u32",), "subbrev": ("v_subbrev_co_u32",)}.items():
    for _n in _names:
        HANDLERS[_n] = _carry_op(_k)


def _mad64(signed):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        ty = "i32" if signed else "u32"
        a, _ = read_src(x, ins, w, 2, ty, 0, lanes)
        b, _ = read_src(x, ins, w, 3, ty, 1, lanes)
        c, _ = read_src(x, ins, w, 4, "u64", 2, lanes)
        if signed:
            p = a.astype(np.int64) * b.astype(np.int64)
            r = p.view(U64) + c
            hi = (p >> 63) != 0
        else:
            p = a.astype(U64) * b.astype(U64)
            r = p + c
        co = r < c if not signed else np.zeros(r.shape, bool)
        x.vwrite(ins.ops[0], w, r, lanes, 2)
        x.swrite(ins.ops[1], w, lanes_to_mask(co & lanes), 2)

    return h


HANDLERS["v_mad_u64_u32"] = _mad64(False)
HANDLERS["v_mad_i64_i32"] = _mad64(True)


# ---- v_cndmask, compares --------------------------------------------------------------------------
def v_cndmask(x, ins, w):
    lanes = x.exec_lanes(w)
    ty = "b32" if not ins.base.endswith("b16") else "b16"
    a, extra = read_src(x, ins, w, 1, ty if ty == "b16" else "f32" if (ins.ops[1].abs or ins.ops[1].neg) else "b32", 0, lanes)
    b, _ = read_src(x, ins, w, 2, ty if ty == "b16" else "f32" if (ins.ops[2].abs or ins.ops[2].neg) else "b32", 1, lanes)
    sel = mask_to_lanes(x.sread(ins.ops[3], w, 2))
    mask = lanes if extra is None else lanes & extra
    r = np.where(sel, b.view(np.uint32) if b.dtype != np.uint16 else b, a.view(np.uint32) if a.dtype != np.uint16 else a)
    x.vwrite(ins.ops[0], w, r.astype(np.uint32), mask, 1)


HANDLERS["v_cndmask_b32"] = v_cndmask

_FCMP = {
    "f": lambda a, b: np.zeros(a.shape, bool), "lt": lambda a, b: a < b, "eq": lambda a, b: a == b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "lg": lambda a, b: (a < b) | (a > b),
    "ge": lambda a, b: a >= b, "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "u": lambda a, b: np.isnan(a) | np.isnan(b), "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)),
    "ngt": lambda a, b: ~(a > b), "nle": lambda a, b: ~(a <= b), "neq": lambda a, b: ~(a == b),
    "nlt": lambda a, b: ~(a < b), "tru": lambda a, b: np.ones(a.shape, bool),
}
_ICMP = {"f": _FCMP["f"], "lt": _FCMP["lt"], "eq": _FCMP["eq"], "le": _FCMP["le"], "gt": _FCMP["gt"],
         "ne": lambda a, b: a != b, "ge": _FCMP["ge"], "t": _FCMP["tru"], "lg": lambda a, b: a != b}


def _class(a, m):
    m = m.astype(np.uint32)
    bits = np.zeros(a.shape, dtype=np.uint32)
    info = np.finfo(a.dtype)
    isnan = np.isnan(a)
    u = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    quiet_bit = {2: 9, 4: 22, 8: 51}[a.dtype.itemsize]
    quiet = ((u >> quiet_bit) & 1) != 0
    neg = np.signbit(a)
    fin = np.isfinite(a)
    den = fin & (a != 0) & (np.abs(a) < info.tiny)
    nor = fin & (np.abs(a) >= info.tiny)
    conds = [isnan & ~quiet, isnan & quiet, np.isinf(a) & neg, nor & neg, den & neg, (a == 0) & neg,
             (a == 0) & ~neg, den & ~neg, nor & ~neg, np.isinf(a) & ~neg]
    r = np.zeros(a.shape, bool)
    for i, cnd in enumerate(conds):
        r |= cnd & (((m >> np.uint32(i)) & np.uint32(1)) != 0)
    return r


def _vcmp(op, ty, setexec):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        a, extra = read_src(x, ins, w, 1, ty, 0, lanes)
        b, _ = read_src(x, ins, w, 2, "u32" if op == "class" else ty, 1, lanes)
        if ins.enc == "sdwa" and False:
            pass
        with np.errstate(all="ignore"):
            r = _class(a, b) if op == "class" else (_FCMP if ty in FLOATS else _ICMP)[op](a, b)
        valid = lanes if extra is None else lanes & extra
        m = lanes_to_mask(r & valid)
        dst = ins.ops[0]
        if dst.kind == "s":
            x.swrite(dst, w, m, 2)
        if setexec:
            x.swrite64(EXEC, w, m)

    return h


for _t in FLOATS:
    for _c in _FCMP:
        HANDLERS[f"v_cmp_{_c}_{_t}"] = _vcmp(_c, _t, False)
        HANDLERS[f"v_cmpx_{_c}_{_t}"] = _vcmp(_c, _t, True)
    HANDLERS[f"v_cmp_class_{_t}"] = _vcmp("class", _t, False)
    HANDLERS[f"v_cmpx_class_{_t}"] = _vcmp("class", _t, True)
for _t in ("i16", "u16", "i32", "u32", "i64", "u64"):
    for _c in _ICMP:
        HANDLERS[f"v_cmp_{_c}_{_t}"] = _vcmp(_c, _t, False)
        HANDLERS[f"v_cmpx_{_c}_{_t}"] = _vcmp(_c, _t, True)


# ---- lane access -----------------------------------------------------------------------------
def v_readlane(x, ins, w):
    lane = (x.sread(ins.ops[2], w) & np.uint32(63)).astype(np.int64) if ins.ops[2].kind != "imm" else \
        np.full(len(w), ins.ops[2].value & 63)
    v = x.vread(ins.ops[1], w, 1)
    x.swrite(ins.ops[0], w, v[np.arange(len(w)), lane])


def v_readfirstlane(x, ins, w):
    em = x.exec_mask(w)
    lanes = mask_to_lanes(em)
    first = np.where(em == 0, 0, np.argmax(lanes, axis=1))
    v = x.vread(ins.ops[1], w, 1)
    x.swrite(ins.ops[0], w, v[np.arange(len(w)), first])


def v_writelane(x, ins, w):
    # v_writelane_b32 vdst, ssrc0 (value), ssrc1 (lane): ignores EXEC
    val = x.sread(ins.ops[1], w)
    lane = x.sread(ins.ops[2], w).astype(np.int64) & 63
    mask = np.zeros((len(w), 64), bool)
    mask[np.arange(len(w)), lane] = True
    x.vwrite(ins.ops[0], w, np.repeat(val[:, None], 64, axis=1), mask, 1)


HANDLERS["v_readlane_b32"] = v_readlane
HANDLERS["v_readfirstlane_b32"] = v_readfirstlane
HANDLERS["v_writelane_b32"] = v_writelane


def v_accvgpr(x, ins, w):
    lanes = x.exec_lanes(w)
    x.vwrite(ins.ops[0], w, x.vread(ins.ops[1], w, 1), lanes, 1)


for _n in ("v_accvgpr_read_b32", "v_accvgpr_write_b32", "v_accvgpr_mov_b32"):
    HANDLERS[_n] = v_accvgpr


def v_swap(x, ins, w):
    lanes = x.exec_lanes(w)
    a, b = x.vread(ins.ops[0], w, 1), x.vread(ins.ops[1], w, 1)
    x.vwrite(ins.ops[0], w, b, lanes, 1)
    x.vwrite(ins.ops[1], w, a, lanes, 1)


HANDLERS["v_swap_b32"] = v_swap


def v_nop(x, ins, w):
    pass


HANDLERS["v_nop"] = v_nop
HANDLERS["v_clrexcp"] = v_nop


# ---- division helpers (ISA guide V_DIV_SCALE / V_DIV_FMAS / V_DIV_FIXUP) ------------------------
def _div_scale(ty):
    dt = TYPES[ty][0]
    big = 64 if ty == "f32" else 128

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        s0, _ = read_src(x, ins, w, 2, ty, 0, lanes)
        s1, _ = read_src(x, ins, w, 3, ty, 1, lanes)  # denominator
        s2, _ = read_src(x, ins, w, 4, ty, 2, lanes)  # numerator
        fi = np.finfo(dt)
        with np.errstate(all="ignore"):
            _, e1 = np.frexp(s1)
            _, e2 = np.frexp(s2)
            d = s0.copy()
            vcc = np.zeros(s0.shape, bool)
            zero = (s1 == 0) | (s2 == 0)
            wide = (e2 - e1) >= (96 if ty == "f32" else 768)
            den1 = (np.abs(s1) < fi.tiny) & (s1 != 0)
            q = s2.astype(F64) / s1.astype(F64)
            qden = (np.abs(q) < fi.tiny) & (q != 0)
            rden = np.abs(1.0 / s1.astype(F64)) < fi.tiny
            same1 = s0 == s1
            scale_up = np.ldexp(s0, big).astype(dt)
            d = np.where(wide & same1, scale_up, d)
            vcc |= wide
            d = np.where(~wide & den1, scale_up, d)
            c3 = ~wide & ~den1 & rden & qden
            vcc |= c3
            d = np.where(c3 & same1, scale_up, d)
            c4 = ~wide & ~den1 & rden & ~qden
            d = np.where(c4, np.ldexp(s0, -big).astype(dt), d)
            c5 = ~wide & ~den1 & ~rden & qden
            vcc |= c5
            d = np.where(c5 & (s0 == s2), scale_up, d)
            c6 = ~wide & ~den1 & ~rden & ~qden & (e2 - 1 <= (23 if ty == "f32" else 52) + fi.minexp)
            d = np.where(c6, scale_up, d)
            d = np.where(zero | np.isnan(s1) | np.isnan(s2), dt(np.nan), d)
        x.vwrite(ins.ops[0], w, from_typed(d, ty), lanes, TYPES[ty][1])
        x.swrite(ins.ops[1], w, lanes_to_mask(vcc & lanes), 2)

    return h


def _div_fmas(ty):
    dt = TYPES[ty][0]
    big = 64 if ty == "f32" else 128

    @ctx
    def f(c, a, b, d):
        vcc = mask_to_lanes(c.x.sread64(VCC, c.w))
        r = (a.astype(np.longdouble) * b.astype(np.longdouble) + d.astype(np.longdouble))
        # VCC set: the quotient was computed on scaled operands; scale back by 2**+-big,
        # up when the numerator's exponent is large (ISA guide pseudo-code).
        _, e = np.frexp(d)
        scale = np.where(e > 0, float(2.0 ** big), float(2.0 ** -big))
        return np.where(vcc, (r * scale).astype(dt), r.astype(dt))

    return vop(ty, (ty,) * 3, f)


def _div_fixup(ty):
    dt = TYPES[ty][0]

    def f(q, den, num):
        with np.errstate(all="ignore"):
            exact = (num.astype(F64) / den.astype(F64)).astype(dt)
        special = np.isnan(num) | np.isnan(den) | (den == 0) | np.isinf(den) | np.isinf(num) | (num == 0)
        sign = np.signbit(num) ^ np.signbit(den)
        r = np.where(special, exact, np.where(sign, -np.abs(q), np.abs(q)))
        # overflow/underflow of the estimate: the ISA's fixup returns the exact special value
        r = np.where(np.isinf(q) & ~special, exact, r)
        return r.astype(dt)

    return vop(ty, (ty,) * 3, f)


for _t in ("f32", "f64"):
    HANDLERS[f"v_div_scale_{_t}"] = _div_scale(_t)
    HANDLERS[f"v_div_fmas_{_t}"] = _div_fmas(_t)
    HANDLERS[f"v_div_fixup_{_t}"] = _div_fixup(_t)
HANDLERS["v_div_fixup_f16"] = _div_fixup("f16")
HANDLERS["v_div_fixup_legacy_f16"] = _div_fixup("f16")
HANDLERS["v_trig_preop_f64"] = vop("f64", ("f64", "u32"), lambda a, b: _trig_preop(a, b))


def _trig_preop(a, b):
    # 2/pi bits (ISA guide V_TRIG_PREOP_F64): 53-bit segment of 2/pi selected by S1 and S0's exponent
    twoopi = int("A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163ABDEBBC561B7246E3A424DD2E006492EEA09D1921CFE1DEB1CB129A73EE88235F52EBB4484E99C7026B45F7E413991D639835339F49C845F8BBDF9283B1FF897FFDE05980FEF2F118B5A0A6D1F6D367ECF27CB09B74F463F669E5FEA2D7527BAC7EBE5F17B3D0739F78A5292EA6BFB5FB11F8D5D0856033046FC7B6BABF0CFBC209AF4361DA9E391615EE61B086599855F14A068408DFFD8804D73273106061556CA73A8C960E27BC08C6B", 16)
    nbits = len("A2F9836E4E441529FC2757D1F534DDC0DB6295993C439041FE5163ABDEBBC561B7246E3A424DD2E006492EEA09D1921CFE1DEB1CB129A73EE88235F52EBB4484E99C7026B45F7E413991D639835339F49C845F8BBDF9283B1FF897FFDE05980FEF2F118B5A0A6D1F6D367ECF27CB09B74F463F669E5FEA2D7527BAC7EBE5F17B3D0739F78A5292EA6BFB5FB11F8D5D0856033046FC7B6BABF0CFBC209AF4361DA9E391615EE61B086599855F14A068408DFFD8804D73273106061556CA73A8C960E27BC08C6B") * 4
    out = np.zeros(a.shape, dtype=F64)
    exps = ((a.view(U64) >> U64(52)) & U64(0x7FF)).astype(np.int64) - 1075
    for idx in np.ndindex(a.shape):
        shift = max(int(exps[idx]), 0) + 53 * int(b[idx] & 31)
        seg = (twoopi >> max(nbits - shift - 53, 0)) & ((1 << 53) - 1)
        out[idx] = np.ldexp(float(seg), -shift - 53)
    return out

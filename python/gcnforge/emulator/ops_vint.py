"""Integer and bitwise VALU ops, carry/borrow arithmetic, v_cndmask, compares (VOPC, to VCC
or an SGPR pair, v_cmpx writing EXEC), and lane access (readlane/readfirstlane/writelane,
accvgpr moves). Semantics: MI300 ISA guide, "Vector ALU Operations".
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WAVE, lanes_to_mask, mask_to_lanes
from gcnforge.emulator.ops_vfloat import _med3
from gcnforge.emulator.program import EXEC
from gcnforge.emulator.valu_core import FLOATS, read_src, vop

HANDLERS: dict = {}
U64 = np.uint64

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
    lanes = np.arange(WAVE)
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
    lane = (x.sread(ins.ops[2], w) & np.uint32(WAVE - 1)).astype(np.int64) if ins.ops[2].kind != "imm" else \
        np.full(len(w), ins.ops[2].value & (WAVE - 1))
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
    lane = x.sread(ins.ops[2], w).astype(np.int64) & (WAVE - 1)
    mask = np.zeros((len(w), WAVE), bool)
    mask[np.arange(len(w)), lane] = True
    x.vwrite(ins.ops[0], w, np.repeat(val[:, None], WAVE, axis=1), mask, 1)


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

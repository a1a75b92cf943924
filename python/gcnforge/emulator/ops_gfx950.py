"""gfx950 (CDNA4) VALU semantics: the instructions gfx942 lacks (MFMAs aside: ``ops_mfma``) and
the FP8 conversions whose formats changed (gfx950 uses the OCP E4M3/E5M2 formats, gfx942 the
FNUZ ones). ``TARGET_HANDLERS["gfx950"]`` is laid over gfx942's handlers (``decode.handlers``).

Pseudo-code from the AMD CDNA4 ISA Reference Guide, 12.7 VOP1 and 12.11 VOP3A (V_CVT_SCALEF32_*,
V_CVT_PK_{F16,BF16}_F32, V_CVT_SR_*, V_PRNG_B32, V_BITOP3_*, V_PERMLANE{16,32}_SWAP_B32,
V_ASHR_PK_*, V_MINIMUM3/MAXIMUM3_F32), 12.10 VOP3P (V_PK_MINIMUM3/MAXIMUM3_F16); formats and
rounding in ``numerics_ocp``. OPSEL bits are read from the decoded field (the printed op_sel
list names fewer bits than the instruction uses: LLVM spells OPSEL[3] as the last entry).
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator import numerics_ocp as ocp
from gcnforge.emulator.core import WAVE, WaveFault
from gcnforge.emulator.numerics import f32_to_bf16_rne
from gcnforge.emulator.ops_vop3p import _dot, _mods
from gcnforge.emulator.valu_core import ctx, read_src, vop

U32 = np.uint32
F32 = np.float32
HANDLERS: dict = {}  # none for gfx942
G: dict = {}  # gfx950's
TARGET_HANDLERS = {"gfx950": G}


def _opsel(ins) -> int:
    di = ins._di
    return int(di.fields.get("op_sel", 0)) if di is not None else 0


def _mask(x, w, lanes):
    return None if x.exec_full(w) else lanes


def _raw(x, ins, w, k) -> np.ndarray:
    return np.asarray(x.vread(ins.ops[k], w, 1)).astype(U32)


def _mod_bits(raw, op, signs) -> np.ndarray:
    """abs/neg input modifiers as sign-bit operations (``signs``: the sign bits of the value(s))."""
    s = U32(signs)
    raw = raw & ~s if op.abs else raw
    return raw ^ s if op.neg else raw


def _f32(x, ins, w, k) -> np.ndarray:
    return _mod_bits(_raw(x, ins, w, k), ins.ops[k], 0x80000000).view(F32).astype(np.float64)


def _halves(x, ins, w, k, bf16: bool):
    """(lo, hi) of a packed f16/bf16 source as float64, with abs/neg on both halves."""
    raw = _mod_bits(_raw(x, ins, w, k), ins.ops[k], 0x80008000)
    out = []
    for sh in (0, 16):
        h = ((raw >> U32(sh)) & U32(0xFFFF)).astype(np.uint16)
        out.append((h.astype(U32) << U32(16)).view(F32).astype(np.float64) if bf16 else h.view(np.float16).astype(np.float64))
    return out


def _insert(old, val, shift, width):
    m = U32(((1 << width) - 1) << shift)
    return (old & ~m) | ((val.astype(U32) << U32(shift)) & m)


def prng(v) -> np.ndarray:
    """V_PRNG_B32: a Galois LFSR step, (in << 1) ^ (in[31] ? 197 : 0)."""
    v = np.asarray(v).astype(U32)
    return (v << U32(1)) ^ np.where(v >> U32(31), U32(197), U32(0))


def _fmt(name):
    return ocp.FORMATS[name]


def _src_fmt(src):
    return {"f32": None, "f16": ocp.F16, "bf16": ocp.BF16}[src]


# ---- to the small formats --------------------------------------------------------------------------
def _to8_pk(fmt, src):
    """v_cvt_scalef32_pk_{fp8,bf8}_{f32,f16,bf16}: two values -> 16 bits at OPSEL[3]*16."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        if src == "f32":
            a, b, sk = _f32(x, ins, w, 1), _f32(x, ins, w, 2), 3
        else:
            (a, b), sk = _halves(x, ins, w, 1, src == "bf16"), 2
        s = ocp.scale_exponent(_raw(x, ins, w, sk))
        sat = bool(x.fp16_ovfl)
        v = ocp.encode(a, f, sat, s).astype(U32) | (ocp.encode(b, f, sat, s).astype(U32) << U32(8))
        word = (_opsel(ins) >> 3) & 1
        x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), v, 16 * word, 16), _mask(x, w, lanes), 1)

    return h


def _to8_sr(fmt, src):
    """v_cvt_scalef32_sr_{fp8,bf8}_{f32,f16,bf16}: S0 (low half for f16/bf16), random S1, scale
    S2 -> the byte OPSEL[3:2]."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        # a 16-bit source is the half OPSEL[0] selects, as for other VOP3 16-bit sources
        a = _f32(x, ins, w, 1) if src == "f32" else _halves(x, ins, w, 1, src == "bf16")[_opsel(ins) & 1]
        rnd, s = _raw(x, ins, w, 2), ocp.scale_exponent(_raw(x, ins, w, 3))
        v = ocp.encode_sr(a, rnd, f, _src_fmt(src), bool(x.fp16_ovfl), s)
        byte = (_opsel(ins) >> 2) & 3
        x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), v, 8 * byte, 8), _mask(x, w, lanes), 1)

    return h


def _to4_pk(src, sr):
    """v_cvt_scalef32_[sr_]pk_fp4_{f32,f16,bf16}: two values -> one byte at OPSEL[3:2]; the
    stochastic forms round the second value with v_prng_b32 of the random word."""
    f = ocp.FP4

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        k = 2  # the operand after the values: the random word (sr) or the scale
        if src == "f32":
            if sr:  # S0 is a 64-bit pair
                pair = x.vread_n(ins.ops[1], w, 2).astype(U32)
                a = _mod_bits(pair[:, 0], ins.ops[1], 0x80000000).view(F32).astype(np.float64)
                b = _mod_bits(pair[:, 1], ins.ops[1], 0x80000000).view(F32).astype(np.float64)
            else:
                a, b = _f32(x, ins, w, 1), _f32(x, ins, w, 2)
                k = 3
        else:
            a, b = _halves(x, ins, w, 1, src == "bf16")
        if sr:
            rnd = _raw(x, ins, w, k)
            s = ocp.scale_exponent(_raw(x, ins, w, k + 1))
            sf = _src_fmt(src)
            lo, hi = ocp.encode_sr(a, rnd, f, sf, scale_e8m0=s), ocp.encode_sr(b, prng(rnd), f, sf, scale_e8m0=s)
        else:
            s = ocp.scale_exponent(_raw(x, ins, w, k))
            lo, hi = ocp.encode(a, f, scale_e8m0=s), ocp.encode(b, f, scale_e8m0=s)
        v = lo.astype(U32) | (hi.astype(U32) << U32(4))
        byte = (_opsel(ins) >> 2) & 3
        x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), v, 8 * byte, 8), _mask(x, w, lanes), 1)

    return h


def _pack_fields(codes, bits) -> np.ndarray:
    """(k, n, 64) codes of ``bits`` each, element 0 in the lowest bits -> (k, n*bits/32, 64) dwords."""
    k, n, _ = codes.shape
    b = ((codes[:, :, None, :].astype(U32) >> np.arange(bits, dtype=U32)[None, None, :, None]) & U32(1)).astype(np.uint8)
    b = b.reshape(k, n * bits, WAVE).transpose(0, 2, 1)  # (k, 64, bits)
    return np.ascontiguousarray(np.packbits(b, axis=2, bitorder="little")).view(U32).transpose(0, 2, 1)


def _unpack_fields(dwords, bits, n) -> np.ndarray:
    """(k, m, 64) dwords -> (k, n, 64) codes of ``bits``, element 0 in the lowest bits."""
    raw = np.ascontiguousarray(dwords.transpose(0, 2, 1)).view(np.uint8)  # (k, 64, 4m)
    b = np.unpackbits(raw, axis=2, bitorder="little")[:, :, : n * bits].reshape(len(dwords), WAVE, n, bits)
    return (b.astype(U32) << np.arange(bits, dtype=U32)).sum(axis=3, dtype=U32).transpose(0, 2, 1)


def _vals32(x, op, w, n, src):
    """n f32 values (n dwords) or n f16/bf16 values (n/2 dwords) of a register range: (k, n, 64)."""
    if src == "f32":
        return x.vread_n(op, w, n).astype(U32).view(F32).astype(np.float64)
    d = x.vread_n(op, w, n // 2).astype(U32)
    h = np.stack([d & U32(0xFFFF), d >> U32(16)], axis=2).reshape(d.shape[0], n, WAVE)  # lo, hi per dword
    h = h.astype(np.uint16)
    return (h.astype(U32) << U32(16)).view(F32).astype(np.float64) if src == "bf16" else h.view(np.float16).astype(np.float64)


def _to6_pk32(fmt, src, sr, two_x=False):
    """v_cvt_scalef32_[sr_]pk32_{fp6,bf6}_{f32,f16,bf16} and _2xpk16_*_f32: 32 values -> 6
    dwords of 6-bit codes (element 0 lowest; 2xpk16 interleaves S0[i], S1[i]); the stochastic
    forms step the random word with v_prng_b32 after each element."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        if two_x:
            a, b = _vals32(x, ins.ops[1], w, 16, "f32"), _vals32(x, ins.ops[2], w, 16, "f32")
            vals = np.stack([a, b], axis=2).reshape(a.shape[0], 32, WAVE)
            k = 3
        else:
            vals = _vals32(x, ins.ops[1], w, 32, src)
            k = 2
        if sr:
            rnd = _raw(x, ins, w, k)
            s = ocp.scale_exponent(_raw(x, ins, w, k + 1))
            codes = np.empty(vals.shape, np.uint8)
            for i in range(32):
                codes[:, i] = ocp.encode_sr(vals[:, i], rnd, f, _src_fmt(src), scale_e8m0=s)
                rnd = prng(rnd)
        else:
            s = ocp.scale_exponent(_raw(x, ins, w, k))
            codes = ocp.encode(vals, f, scale_e8m0=s[:, None, :])
        x.vwrite_n(ins.ops[0], w, _pack_fields(codes, 6), _mask(x, w, lanes))

    return h


# ---- from the small formats ------------------------------------------------------------------------
def _out(vals, dst):
    """float64 values -> dst bits (u32 for f32, u16 for f16/bf16)."""
    if dst == "f32":
        return ocp.to_f32(vals).view(U32)
    return ocp.to_f16_bits(vals) if dst == "f16" else ocp.to_bf16_bits(vals)


def _from_small(fmt, dst, count):
    """v_cvt_scalef32_[pk_]{f32,f16,bf16}_{fp8,bf8,fp4}: ``count`` codes from the source's byte
    OPSEL[1:0] (fp4 and single fp8) or word OPSEL[0] (packed fp8), scaled by S1's exponent."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        src = _raw(x, ins, w, 1)
        s = ocp.scale_exponent(_raw(x, ins, w, 2))
        osel = _opsel(ins)
        if fmt == "fp4" or count == 1:
            sh = 8 * (osel & 3)
        else:
            sh = 16 * (osel & 1)
        width = f.bits
        codes = [(src >> U32(sh + width * i)) & U32((1 << width) - 1) for i in range(count)]
        vals = [_out(ocp.decode(c, f, s), dst) for c in codes]
        m = _mask(x, w, lanes)
        if dst == "f32":
            if count == 1:
                x.vwrite(ins.ops[0], w, vals[0], m, 1)
            else:
                x.vwrite_n(ins.ops[0], w, np.stack(vals, axis=1), m)
            return
        if count == 1:  # v_cvt_scalef32_f16_{fp8,bf8}: the half OPSEL[3], the other kept
            half = (osel >> 3) & 1
            x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), vals[0], 16 * half, 16), m, 1)
            return
        x.vwrite(ins.ops[0], w, vals[0].astype(U32) | (vals[1].astype(U32) << U32(16)), m, 1)

    return h


def _from6_pk32(fmt, dst):
    """v_cvt_scalef32_pk32_{f32,f16,bf16}_{fp6,bf6}: 6 dwords of 6-bit codes -> 32 values."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        codes = _unpack_fields(x.vread_n(ins.ops[1], w, 6).astype(U32), 6, 32)
        s = ocp.scale_exponent(_raw(x, ins, w, 2))
        vals = _out(ocp.decode(codes, f, s[:, None, :]), dst)
        if dst != "f32":  # pairs into dwords
            vals = vals.astype(U32)
            vals = vals[:, 0::2] | (vals[:, 1::2] << U32(16))
        x.vwrite_n(ins.ops[0], w, vals.astype(U32), _mask(x, w, lanes))

    return h


for _f in ("fp8", "bf8"):
    for _s in ("f32", "f16", "bf16"):
        G[f"v_cvt_scalef32_pk_{_f}_{_s}"] = _to8_pk(_f, _s)
        G[f"v_cvt_scalef32_sr_{_f}_{_s}"] = _to8_sr(_f, _s)
    G[f"v_cvt_scalef32_pk_f32_{_f}"] = _from_small(_f, "f32", 2)
    G[f"v_cvt_scalef32_f32_{_f}"] = _from_small(_f, "f32", 1)
    G[f"v_cvt_scalef32_pk_f16_{_f}"] = _from_small(_f, "f16", 2)
    G[f"v_cvt_scalef32_pk_bf16_{_f}"] = _from_small(_f, "bf16", 2)
    G[f"v_cvt_scalef32_f16_{_f}"] = _from_small(_f, "f16", 1)
for _s in ("f32", "f16", "bf16"):
    G[f"v_cvt_scalef32_pk_fp4_{_s}"] = _to4_pk(_s, False)
    G[f"v_cvt_scalef32_sr_pk_fp4_{_s}"] = _to4_pk(_s, True)
for _d in ("f32", "f16", "bf16"):
    G[f"v_cvt_scalef32_pk_{_d}_fp4"] = _from_small("fp4", _d, 2)
for _f in ("fp6", "bf6"):
    G[f"v_cvt_scalef32_2xpk16_{_f}_f32"] = _to6_pk32(_f, "f32", False, two_x=True)
    G[f"v_cvt_scalef32_sr_pk32_{_f}_f32"] = _to6_pk32(_f, "f32", True)
    for _s in ("f16", "bf16"):
        G[f"v_cvt_scalef32_pk32_{_f}_{_s}"] = _to6_pk32(_f, _s, False)
        G[f"v_cvt_scalef32_sr_pk32_{_f}_{_s}"] = _to6_pk32(_f, _s, True)
    for _d in ("f32", "f16", "bf16"):
        G[f"v_cvt_scalef32_pk32_{_d}_{_f}"] = _from6_pk32(_f, _d)


# ---- gfx942 FP8 conversions, OCP formats on gfx950 ---------------------------------------------------
def _cvt_pk_fp8(fmt):
    """v_cvt_pk_{fp8,bf8}_f32: RNE, saturating with clamp or MODE.FP16_OVFL; the word by op_sel."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        sat = "clamp" in ins.mods or bool(x.fp16_ovfl)
        a, b = _f32(x, ins, w, 1), _f32(x, ins, w, 2)
        v = ocp.encode(a, f, sat).astype(U32) | (ocp.encode(b, f, sat).astype(U32) << U32(8))
        word = (_opsel(ins) >> 3) & 1
        x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), v, 16 * word, 16), _mask(x, w, lanes), 1)

    return h


def _cvt_sr_fp8(fmt):
    """v_cvt_sr_{fp8,bf8}_f32: S0 plus the random S1's low bits below the kept mantissa (the
    guide: the msbs of S1 are not used), truncated; the byte OPSEL[3:2]."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        sat = "clamp" in ins.mods or bool(x.fp16_ovfl)
        v = ocp.encode_sr(_f32(x, ins, w, 1), _raw(x, ins, w, 2), f, None, sat, lsb=True)
        byte = (_opsel(ins) >> 2) & 3
        x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), v, 8 * byte, 8), _mask(x, w, lanes), 1)

    return h


def _cvt_from8(fmt, pk):
    """v_cvt_[pk_]f32_{fp8,bf8}: the byte (word for pk) by SDWA src0_sel or VOP3 op_sel."""
    f = _fmt(fmt)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        raw = _raw(x, ins, w, 1)
        if ins.enc == "sdwa":
            sel = {"BYTE_0": 0, "BYTE_1": 1, "BYTE_2": 2, "BYTE_3": 3, "WORD_0": 0, "WORD_1": 2}.get(
                ins.mods.get("src0_sel", "DWORD"), 0)
        else:
            o = _opsel(ins)
            sel = 2 * (o & 1) if pk else (o & 1) * 2 + ((o >> 1) & 1)
        codes = [(raw >> U32(8 * (sel + i))) & U32(0xFF) for i in range(2 if pk else 1)]
        vals = [ocp.to_f32(ocp.decode(c, f)).view(U32) for c in codes]
        m = _mask(x, w, lanes)
        if pk:
            x.vwrite_n(ins.ops[0], w, np.stack(vals, axis=1), m)
        else:
            x.vwrite(ins.ops[0], w, vals[0], m, 1)

    return h


for _f in ("fp8", "bf8"):
    G[f"v_cvt_pk_{_f}_f32"] = _cvt_pk_fp8(_f)
    G[f"v_cvt_sr_{_f}_f32"] = _cvt_sr_fp8(_f)
    G[f"v_cvt_f32_{_f}"] = _cvt_from8(_f, False)
    G[f"v_cvt_pk_f32_{_f}"] = _cvt_from8(_f, True)


# ---- f32 -> f16/bf16 ---------------------------------------------------------------------------------
def _cvt_pk16(bf16):
    """v_cvt_pk_{f16,bf16}_f32: both values rounded to nearest even, packed (S0 low)."""

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        a, b = read_src(x, ins, w, 1, "f32", 0, lanes)[0], read_src(x, ins, w, 2, "f32", 1, lanes)[0]
        if "clamp" in ins.mods:
            a, b = (np.where(np.isnan(v), F32(0), np.clip(v, 0, 1)).astype(F32) for v in (a, b))
        if bf16:
            lo, hi = f32_to_bf16_rne(a), f32_to_bf16_rne(b)
        else:
            lo, hi = a.astype(np.float16).view(np.uint16), b.astype(np.float16).view(np.uint16)
        x.vwrite(ins.ops[0], w, lo.astype(U32) | (hi.astype(U32) << U32(16)), _mask(x, w, lanes), 1)

    return h


def _cvt_sr16(bf16):
    """v_cvt_sr_{f16,bf16}_f32: stochastic rounding with S1 (its low bits below the kept
    mantissa, as the other non-scaled SR conversions); the half OPSEL[3], the other kept."""
    fmt = ocp.BF16 if bf16 else ocp.F16

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        a = _f32(x, ins, w, 1)
        v = ocp.round_sr(a, _raw(x, ins, w, 2), fmt, lsb=True)
        bits = ocp.to_bf16_bits(v) if bf16 else ocp.to_f16_bits(v)
        half = (_opsel(ins) >> 3) & 1
        x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), bits, 16 * half, 16), _mask(x, w, lanes), 1)

    return h


G["v_cvt_pk_f16_f32"] = _cvt_pk16(False)
G["v_cvt_pk_bf16_f32"] = _cvt_pk16(True)
G["v_cvt_sr_f16_f32"] = _cvt_sr16(False)
G["v_cvt_sr_bf16_f32"] = _cvt_sr16(True)


@ctx
def _f32_of_bf16(c, h):
    """D = {S0.b16, 16'0}; abs/neg act on the sign (read_src leaves bf16 bits alone)."""
    op = c.ins.ops[1]
    return _mod_bits(h.view(np.uint16).astype(U32) << U32(16), op, 0x80000000).view(F32)


# through the VALU driver: SDWA source selects and DPP lane moves as for any VOP1
v_cvt_f32_bf16 = vop("f32", ("bf16",), _f32_of_bf16)
G["v_cvt_f32_bf16"] = v_cvt_f32_bf16


# ---- integer and bitwise -----------------------------------------------------------------------------
v_prng_b32 = vop("u32", ("u32",), prng)  # e32, e64, DPP and SDWA forms through the VALU driver


def _bitop3(width):
    def h(x, ins, w):
        from gcnforge.asm.vop_alu import _bitop3_of

        lanes = x.exec_lanes(w)
        tt = _bitop3_of(ins._di.fields)
        osel = _opsel(ins)
        s = []
        for i in range(3):
            r = _raw(x, ins, w, 1 + i)
            if width == 16 and (osel >> i) & 1:
                r = r >> U32(16)
            s.append(r)
        out = np.zeros_like(s[0])
        for idx in range(8):  # D[i] = TTBL[{S0[i], S1[i], S2[i]}]
            if tt >> idx & 1:
                t = [s[j] if idx >> (2 - j) & 1 else ~s[j] for j in range(3)]
                out |= t[0] & t[1] & t[2]
        if width == 16:
            half = (osel >> 3) & 1
            out = _insert(_raw(x, ins, w, 0), out & U32(0xFFFF), 16 * half, 16)
        x.vwrite(ins.ops[0], w, out, _mask(x, w, lanes), 1)

    return h


def _ashr_pk(unsigned):
    """v_ashr_pk_{i8,u8}_i32: (S0 >> S2[4:0], S1 >> S2[4:0]) saturated to 8 bits, packed into 16
    bits (the half OPSEL[3]; the other half kept, as other op_sel 16-bit results)."""
    lo, hi = (0, 255) if unsigned else (-128, 127)

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        sh = _raw(x, ins, w, 3) & U32(31)
        r = [np.clip(_raw(x, ins, w, k).view(np.int32).astype(np.int64) >> sh.astype(np.int64), lo, hi) & 0xFF
             for k in (1, 2)]
        v = (r[0] | (r[1] << 8)).astype(U32)
        half = (_opsel(ins) >> 3) & 1
        x.vwrite(ins.ops[0], w, _insert(_raw(x, ins, w, 0), v, 16 * half, 16), _mask(x, w, lanes), 1)

    return h


G["v_prng_b32"] = v_prng_b32
G["v_bitop3_b32"] = _bitop3(32)
G["v_bitop3_b16"] = _bitop3(16)
G["v_ashr_pk_i8_i32"] = _ashr_pk(False)
G["v_ashr_pk_u8_i32"] = _ashr_pk(True)


def _permlane_swap(rows):
    """v_permlane16_swap_b32 (odd 16-lane rows of VDST with even rows of SRC0) and
    v_permlane32_swap_b32 (rows 2, 3 of VDST with rows 0, 1 of SRC0): both registers are
    written. The ISA's pseudo-code swaps regardless of EXEC; here lanes whose EXEC bit is off
    keep their value in both registers (the swap of a pair needs both lanes)."""

    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        vd, s0 = ins.ops[0], ins.ops[1]
        if s0.kind not in ("v", "a"):
            raise WaveFault(f"{ins.base}: the source must be a VGPR")
        d, s = x.vread(vd, w, 1).copy(), x.vread(s0, w, 1).copy()
        lane = np.arange(WAVE)
        if rows == 16:
            a = lane[(lane // 16) % 2 == 1]  # VDST lanes swapped: rows 1 and 3
            b = a - 16  # SRC0 lanes: rows 0 and 2
        else:
            a = lane[32:]
            b = a - 32
        both = lanes[:, a] & lanes[:, b]
        nd, ns = d.copy(), s.copy()
        nd[:, a] = np.where(both, s[:, b], d[:, a])
        ns[:, b] = np.where(both, d[:, a], s[:, b])
        x.vwrite(vd, w, nd, None, 1)
        x.vwrite(s0, w, ns, None, 1)

    return h


G["v_permlane16_swap_b32"] = _permlane_swap(16)
G["v_permlane32_swap_b32"] = _permlane_swap(32)


# ---- IEEE minimum / maximum ------------------------------------------------------------------------
def _minmax(a, b, is_max):
    """IEEE 754-2019 minimum/maximum: NaN if either is NaN, -0 < +0."""
    r = np.maximum(a, b) if is_max else np.minimum(a, b)
    zeros = (a == 0) & (b == 0)
    neg = np.signbit(a) & np.signbit(b) if is_max else np.signbit(a) | np.signbit(b)
    r = np.where(zeros, np.where(neg, -a.dtype.type(0), a.dtype.type(0)), r)
    return np.where(np.isnan(a) | np.isnan(b), a.dtype.type(np.nan), r).astype(a.dtype)


def _minmax3_f32(is_max):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        s = [read_src(x, ins, w, 1 + i, "f32", i, lanes)[0] for i in range(3)]
        r = _minmax(_minmax(s[0], s[1], is_max), s[2], is_max)
        if "clamp" in ins.mods:
            r = np.where(np.isnan(r), F32(0), np.clip(r, 0, 1)).astype(F32)
        x.vwrite(ins.ops[0], w, r.view(U32), _mask(x, w, lanes), 1)

    return h


def _pk_minmax3_f16(is_max):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        osel, ohi, nlo, nhi = _mods(ins, 3)
        out = []
        for sel, neg in ((osel, nlo), (ohi, nhi)):
            v = []
            for i in range(3):
                raw = _raw(x, ins, w, 1 + i)
                h16 = ((raw >> U32(16 * sel[i])) & U32(0xFFFF)).astype(np.uint16).view(np.float16)
                v.append(-h16 if neg[i] else h16)
            r = _minmax(_minmax(v[0], v[1], is_max), v[2], is_max)
            if "clamp" in ins.mods:
                r = np.where(np.isnan(r), np.float16(0), np.clip(r, 0, 1)).astype(np.float16)
            out.append(r.view(np.uint16).astype(U32))
        x.vwrite(ins.ops[0], w, out[0] | (out[1] << U32(16)), _mask(x, w, lanes), 1)

    return h


G["v_minimum3_f32"] = _minmax3_f32(False)
G["v_maximum3_f32"] = _minmax3_f32(True)
G["v_pk_minimum3_f16"] = _pk_minmax3_f16(False)
G["v_pk_maximum3_f16"] = _pk_minmax3_f16(True)
G["v_dot2c_f32_bf16"] = _dot("bf16")

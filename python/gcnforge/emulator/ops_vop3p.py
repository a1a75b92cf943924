"""VOP3P packed math: v_pk_* (two 16-bit or two 32-bit halves), dot products, fma_mix.

ISA guide "VOP3P" encoding: for source i, ``op_sel[i]`` picks the half feeding the low
result, ``op_sel_hi[i]`` (default 1) the half feeding the high result; ``neg_lo``/``neg_hi``
negate float halves. Packed f32 ops work on 64-bit register pairs with the same bits
selecting dwords.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WAVE
from gcnforge.emulator.lanes import dpp_source
from gcnforge.emulator.numerics import bf16_to_f32

HANDLERS: dict = {}
F16, F32 = np.float16, np.float32


def _mods(ins, n):
    osel = ins.mods.get("op_sel", [0] * n)
    ohi = ins.mods.get("op_sel_hi", [1] * n)
    nlo = ins.mods.get("neg_lo", [0] * n)
    nhi = ins.mods.get("neg_hi", [0] * n)
    pad = lambda v, d: list(v) + [d] * (n - len(v))  # noqa: E731
    return pad(osel, 0), pad(ohi, 1), pad(nlo, 0), pad(nhi, 0)


_T16 = {"f16": np.float16, "i16": np.int16, "u16": np.uint16, "b16": np.uint16}


def _half(raw, sel, ty):
    v = ((raw >> np.uint32(16 * sel)) & np.uint32(0xFFFF)).astype(np.uint16)
    return v.view(_T16[ty])


def pk16(ty, fn, nsrc):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        osel, ohi, nlo, nhi = _mods(ins, nsrc)
        los, his = [], []
        for i in range(nsrc):
            raw = x.vread(ins.ops[1 + i], w, 1)
            lo, hi = _half(raw, osel[i], ty), _half(raw, ohi[i], ty)
            if ty == "f16":
                lo = -lo if nlo[i] else lo
                hi = -hi if nhi[i] else hi
            los.append(lo)
            his.append(hi)
        with np.errstate(all="ignore"):
            rl, rh = np.asarray(fn(*los)), np.asarray(fn(*his))
            if "clamp" in ins.mods:
                if ty == "f16":
                    rl, rh = np.clip(rl, 0, 1), np.clip(rh, 0, 1)
                else:
                    info = np.iinfo(_T16[ty])
                    rl, rh = np.clip(rl, info.min, info.max), np.clip(rh, info.min, info.max)
            if ty == "f16":
                bl, bh = rl.astype(F16).view(np.uint16), rh.astype(F16).view(np.uint16)
            else:
                bl = (rl.astype(np.int64) & 0xFFFF).astype(np.uint16)
                bh = (rh.astype(np.int64) & 0xFFFF).astype(np.uint16)
        r = bl.astype(np.uint32) | (bh.astype(np.uint32) << np.uint32(16))
        x.vwrite(ins.ops[0], w, r, lanes, 1)

    return h


def _fma16(a, b, c):
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(F16)


for _t in ("f16",):
    HANDLERS["v_pk_add_f16"] = pk16("f16", lambda a, b: a + b, 2)
    HANDLERS["v_pk_mul_f16"] = pk16("f16", lambda a, b: a * b, 2)
    HANDLERS["v_pk_fma_f16"] = pk16("f16", _fma16, 3)
    HANDLERS["v_pk_max_f16"] = pk16("f16", np.fmax, 2)
    HANDLERS["v_pk_min_f16"] = pk16("f16", np.fmin, 2)
for _t in ("i16", "u16"):
    HANDLERS[f"v_pk_add_{_t}"] = pk16(_t, lambda a, b: a.astype(np.int64) + b, 2)
    HANDLERS[f"v_pk_sub_{_t}"] = pk16(_t, lambda a, b: a.astype(np.int64) - b, 2)
    HANDLERS[f"v_pk_max_{_t}"] = pk16(_t, np.maximum, 2)
    HANDLERS[f"v_pk_min_{_t}"] = pk16(_t, np.minimum, 2)
    HANDLERS[f"v_pk_mad_{_t}"] = pk16(_t, lambda a, b, c: a.astype(np.int64) * b + c, 3)
HANDLERS["v_pk_mul_lo_u16"] = pk16("u16", lambda a, b: a.astype(np.int64) * b, 2)
HANDLERS["v_pk_lshlrev_b16"] = pk16("u16", lambda a, b: b.astype(np.int64) << (a & 15), 2)
HANDLERS["v_pk_lshrrev_b16"] = pk16("u16", lambda a, b: b >> (a & 15), 2)
HANDLERS["v_pk_ashrrev_i16"] = pk16("i16", lambda a, b: b >> (a.view(np.uint16) & 15).astype(np.int16), 2)



def v_pk_fmac_f16(x, ins, w):
    """d = s0 * s1 + d on both halves (VOP2 encoding, no op_sel)."""
    lanes = x.exec_lanes(w)
    a, b, d = (x.vread(ins.ops[i], w, 1) for i in (1, 2, 0))
    halves = lambda v: ((v & 0xFFFF).astype(np.uint16).view(F16), (v >> 16).astype(np.uint16).view(F16))  # noqa: E731
    (al, ah), (bl, bh), (dl, dh) = halves(a), halves(b), halves(d)
    rl, rh = _fma16(al, bl, dl), _fma16(ah, bh, dh)
    x.vwrite(ins.ops[0], w, rl.view(np.uint16).astype(np.uint32) | (rh.view(np.uint16).astype(np.uint32) << 16),
             lanes, 1)


HANDLERS["v_pk_fmac_f16"] = v_pk_fmac_f16


def _dword(x, op, w, sel, view=False):
    """Dword ``sel`` (0/1) of a 64-bit packed-f32 source; constants repeat in both dwords.
    ``view``: VGPRs may come back as a view of the register file (sources consumed before
    the destination is written)."""
    if op.kind in ("v", "a"):
        one = op.__class__(op.kind, op.index + sel, 1)
        return x.vview(one, w) if view else x.vread(one, w, 1)
    if op.kind == "s":
        one = op.__class__(op.kind, op.index + sel, 1)
    else:
        one = op.__class__("imm", 0, 1, op.value & 0xFFFFFFFF)
    s = x.sread(one, w, 1)[:, None]  # (n, 1): the same value in every lane
    return s if view else np.repeat(s, WAVE, axis=1)


def pk32(fn, nsrc):
    def h(x, ins, w):
        mask = None if x.exec_full(w) else x.exec_lanes(w)
        osel, ohi, nlo, nhi = _mods(ins, nsrc)
        los, his = [], []
        for i in range(nsrc):
            op = ins.ops[1 + i]
            lo = _dword(x, op, w, osel[i], view=True).view(F32)
            hi = _dword(x, op, w, ohi[i], view=True).view(F32)
            los.append(-lo if nlo[i] else lo)
            his.append(-hi if nhi[i] else hi)
        rl, rh = fn(*los), fn(*his)  # (floating-point warnings are off for the whole launch: Device.run)
        d = ins.ops[0]
        x.vwrite_f32(d.__class__(d.kind, d.index, 1), w, rl, mask)
        x.vwrite_f32(d.__class__(d.kind, d.index + 1, 1), w, rh, mask)

    return h


HANDLERS["v_pk_add_f32"] = pk32(lambda a, b: a + b, 2)
HANDLERS["v_pk_mul_f32"] = pk32(lambda a, b: a * b, 2)
def _fma_f64(a, b, c):
    """a * b + c in double precision (exact product of f32s), rounded once by the caller."""
    r = np.multiply(a, b, dtype=np.float64)
    r += c
    return r


HANDLERS["v_pk_fma_f32"] = pk32(_fma_f64, 3)


def v_pk_mov_b32(x, ins, w):
    lanes = x.exec_lanes(w)
    osel = ins.mods.get("op_sel", [0, 1])
    osel = list(osel) + [1] * (2 - len(osel))
    lo = _dword(x, ins.ops[1], w, osel[0])
    hi = _dword(x, ins.ops[2], w, osel[1])
    d = ins.ops[0]
    x.vwrite(d.__class__(d.kind, d.index, 1), w, lo, lanes, 1)
    x.vwrite(d.__class__(d.kind, d.index + 1, 1), w, hi, lanes, 1)


HANDLERS["v_pk_mov_b32"] = v_pk_mov_b32


# ---- dot products --------------------------------------------------------------------------------
def _dot(kind):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        accum_dst = ins.base.startswith(("v_dot2c", "v_dot4c", "v_dot8c"))
        a = x.vread(ins.ops[1], w, 1)
        b = x.vread(ins.ops[2], w, 1)
        c = x.vread(ins.ops[0] if accum_dst else ins.ops[3], w, 1)
        if ins.enc == "dpp":  # v_dot2c_*_dpp: src0 from the DPP-selected lane, writes where DPP allows
            a, ok = dpp_source(a, lanes, ins.mods)
            lanes = lanes & ok
        osel, ohi, nlo, nhi = _mods(ins, 3)
        if kind in ("f16", "bf16"):
            def halves(raw, i):
                lo, hi = (raw >> np.uint32(16 * osel[i])) & 0xFFFF, (raw >> np.uint32(16 * ohi[i])) & 0xFFFF
                if kind == "f16":
                    lo, hi = lo.astype(np.uint16).view(F16).astype(np.float64), hi.astype(np.uint16).view(F16).astype(np.float64)
                else:
                    lo, hi = bf16_to_f32(lo).astype(np.float64), bf16_to_f32(hi).astype(np.float64)
                return (-lo if nlo[i] else lo), (-hi if nhi[i] else hi)

            al, ah = halves(a, 0)
            bl, bh = halves(b, 1)
            cf = c.view(F32).astype(np.float64)
            r = (al * bl + ah * bh + cf).astype(F32).view(np.uint32)
        else:
            bits = {"i16": 16, "u16": 16, "i8": 8, "u8": 8, "i4": 4, "u4": 4}[kind]
            signed = kind[0] == "i"
            acc = c.view(np.int32).astype(np.int64) if signed else c.astype(np.int64)
            for k in range(32 // bits):
                fa = ((a >> np.uint32(k * bits)) & np.uint32((1 << bits) - 1)).astype(np.int64)
                fb = ((b >> np.uint32(k * bits)) & np.uint32((1 << bits) - 1)).astype(np.int64)
                if signed:
                    fa = np.where(fa >= 1 << (bits - 1), fa - (1 << bits), fa)
                    fb = np.where(fb >= 1 << (bits - 1), fb - (1 << bits), fb)
                acc = acc + fa * fb
            if "clamp" in ins.mods:
                acc = np.clip(acc, -(2**31), 2**31 - 1) if signed else np.clip(acc, 0, 2**32 - 1)
            r = (acc & 0xFFFFFFFF).astype(np.uint32)
        x.vwrite(ins.ops[0], w, r, lanes, 1)

    return h


for _name in ("v_dot2_f32_f16", "v_dot2c_i32_i16", "v_dot2c_f32_f16", "v_dot2_f32_bf16", "v_dot2_i32_i16", "v_dot2_u32_u16",
              "v_dot4_i32_i8", "v_dot4c_i32_i8", "v_dot4_u32_u8", "v_dot8_i32_i4", "v_dot8c_i32_i4", "v_dot8_u32_u4"):
    HANDLERS[_name] = _dot(_name.rsplit("_", 1)[1])  # the packed source type ends the mnemonic


# ---- fma_mix: f32 FMA whose sources are f32 or f16 (op_sel_hi[i] = 1 -> f16 half op_sel[i]) -------
def _mix(out):
    def h(x, ins, w):
        lanes = x.exec_lanes(w)
        osel = list(ins.mods.get("op_sel", [0, 0, 0])) + [0] * 4
        ohi = list(ins.mods.get("op_sel_hi", [0, 0, 0])) + [0] * 4
        vals = []
        for i in range(3):
            op = ins.ops[1 + i]
            raw = x.vread(op, w, 1)
            if ohi[i]:
                v = ((raw >> np.uint32(16 * osel[i])) & 0xFFFF).astype(np.uint16).view(F16).astype(np.float64)
            else:
                v = raw.view(F32).astype(np.float64)
            v = np.abs(v) if op.abs else v
            v = -v if op.neg else v
            vals.append(v)
        r = vals[0] * vals[1] + vals[2]
        if "clamp" in ins.mods:
            r = np.clip(r, 0, 1)
        if out == "f32":
            x.vwrite(ins.ops[0], w, r.astype(F32).view(np.uint32), lanes, 1)
            return
        h16 = r.astype(F16).view(np.uint16).astype(np.uint32)
        old = x.vread(ins.ops[0], w, 1)
        v = (old & np.uint32(0xFFFF0000)) | h16 if out == "lo" else (old & np.uint32(0xFFFF)) | (h16 << np.uint32(16))
        x.vwrite(ins.ops[0], w, v, lanes, 1)

    return h


for _p in ("fma", "mad"):
    HANDLERS[f"v_{_p}_mix_f32"] = _mix("f32")
    HANDLERS[f"v_{_p}_mixlo_f16"] = _mix("lo")
    HANDLERS[f"v_{_p}_mixhi_f16"] = _mix("hi")

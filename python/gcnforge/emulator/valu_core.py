"""The VALU driver shared by every vector ALU handler (VOP1, VOP2, VOP3, VOPC and their DPP/SDWA
forms): source reads with DPP, SDWA and VOP3 op_sel/neg/abs, type conversion, and the
destination write under EXEC with clamp/omod and SDWA/op_sel destination selection.

Semantics follow the pseudo-code of the AMD Instinct MI300 ISA Reference Guide, "Vector
ALU Operations". ``vop(dst_type, src_types, fn)`` builds a handler from a NumPy function.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WaveFault
from gcnforge.emulator.lanes import dpp_source, sdwa_dst, sdwa_select

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
        return raw.astype(np.uint64, copy=False).view(dt)
    r = raw.astype(np.uint32, copy=False)
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
            return v.astype(np.float32, copy=False).view(np.uint32)
        if dt == np.float16:
            return v.astype(np.float16).view(np.uint16).astype(np.uint32)
        if dt in (np.int16, np.uint16):
            return (v.astype(np.int64) & 0xFFFF).astype(np.uint32)
        if v.dtype == np.uint32 or v.dtype == np.int32:
            return v.view(np.uint32)
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
    raw = x.vview(op, w) if n == 1 else x.vread(op, w, n)  # consumed before the destination is written
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
    if ty == "f32" and x.ftz32:  # denormal results (exponent bits 0) flush to a signed zero
        raw = np.where((raw & np.uint32(0x7F800000)) == 0, raw & np.uint32(0x80000000), raw)
    if ins.enc == "sdwa":
        old = x.vread(op, w, 1)
        raw = sdwa_dst(old, raw, ins.mods.get("dst_sel", "DWORD"), ins.mods.get("dst_unused", "UNUSED_PAD"))
    elif TYPES[ty][1] == 1 and ty in ("f16", "i16", "u16", "b16") and _is_vop3(ins):
        if dst_opsel(ins):
            old = x.vread(op, w, 1)
            raw = (old & np.uint32(0xFFFF)) | (raw.astype(np.uint32) << np.uint32(16))
        elif ins.base in PRESERVE_HI16:
            old = x.vread(op, w, 1)
            raw = (old & np.uint32(0xFFFF0000)) | (raw.astype(np.uint32) & np.uint32(0xFFFF))
    if op.kind == "s":  # v_readlane-like scalar dst: not via this path
        raise WaveFault("internal: scalar destination in VALU write")
    x.vwrite(op, w, raw, mask, TYPES[ty][1])


# 16-bit results zero the high half of the VGPR on gfx9, except for the op_sel-capable VOP3
# forms introduced with gfx9, which keep it (LLVM GCNSubtarget::zeroesHigh16BitsOfDest; the
# *_legacy_* opcodes keep the older zeroing behaviour).
PRESERVE_HI16 = frozenset({"v_mad_f16", "v_mad_u16", "v_mad_i16", "v_fma_f16", "v_div_fixup_f16"})


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
        mask = None if x.exec_full(w) else lanes
        for i, ty in enumerate(srcs):
            v, extra = read_src(x, ins, w, first_src + i, ty, i, lanes)
            if extra is not None:
                mask = extra if mask is None else mask & extra
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

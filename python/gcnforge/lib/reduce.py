"""Wave and block reductions and scans.

* ``wave_reduce(k, x, op)``: ``op`` over the 64 lanes of a wave, every lane gets the result:
  DPP inside each row of 16 lanes (``quad_perm`` swaps, ``row_ror:4``, ``row_ror:8``; ISA guide
  "DPP", DPP_CTRL), then ``v_readlane_b32`` of the four row results.
* ``wave_reduce_swizzle(k, x, op)``: the same with ``ds_swizzle_b32`` butterflies (bitmask
  mode: lane ``l`` reads lane ``l ^ m`` inside each 32-lane half, m = 1, 2, 4, 8, 16; no LDS
  memory is touched) and ``v_readlane_b32`` of lanes 0 and 32.
* ``wave_scan(k, x)``: inclusive prefix sum over the 64 lanes (``op`` add, i32/u32 or f32):
  ``row_shr`` 1, 2, 4, 8 with ``bound_ctrl`` (a lane with no source lane reads 0, the identity
  of add) scans each row; the row totals (``v_readlane_b32`` of lanes 15, 31, 47) are added to
  the later rows.
* ``block_reduce(k, x, op, lds, waves, tid)``: ``wave_reduce`` in each wave, the wave results
  through LDS and one ``s_barrier``, combined so every work-item has the result.

``op``: add, max, min (f32), umin, umax (u32), iadd (u32 add).
"""

from __future__ import annotations

from gcnforge.builder.values import Reg
from gcnforge.lib.mask import lane_id
from gcnforge.lib.errors import fail as _fail

OPS = {"add": "v_add_f32", "max": "v_max_f32", "min": "v_min_f32", "umin": "v_min_u32", "umax": "v_max_u32",
       "iadd": "v_add_u32"}
# DPP steps that combine lanes inside each row of 16: after all four, every lane holds its
# row's result (ISA guide "DPP", DPP_CTRL: QUAD_PERM, ROW_ROR).
_ROW_STEPS = ({"quad_perm": [1, 0, 3, 2]}, {"quad_perm": [2, 3, 0, 1]}, {"row_ror": 4}, {"row_ror": 8})
# ds_swizzle_b32 offset, bitmask mode (offset[15] = 0): and_mask [4:0], or_mask [9:5], xor_mask [14:10]
_SWIZZLE_AND_ALL = 0x1F
_SWIZZLE_XOR_SHIFT = 10


def _mnemonic(op: str) -> str:
    if op not in OPS:
        raise _fail(f"unknown reduction '{op}' (expected one of {', '.join(OPS)})")
    return OPS[op]


def wave_reduce(k, x: Reg, op: str = "add") -> Reg:
    mn = _mnemonic(op)
    t = x
    for dpp in _ROW_STEPS:
        t = k.inst(mn, t, t, **dpp)  # src0 is read through the DPP lane pattern
    rows = [k.v_readlane_b32(t, lane) for lane in (0, 16, 32, 48)]
    v = k.v_mov_b32(rows[0])
    for s in rows[1:]:
        v = k.inst(mn, s, v)
    return v


def wave_reduce_swizzle(k, x: Reg, op: str = "add") -> Reg:
    mn = _mnemonic(op)
    t = x
    for m in (1, 2, 4, 8, 16):
        y, tok = k.ds_swizzle_b32(t, offset=_SWIZZLE_AND_ALL | m << _SWIZZLE_XOR_SHIFT)
        k.wait(tok)
        t = k.inst(mn, y, t)
    return k.inst(mn, k.v_readlane_b32(t, 32), k.v_mov_b32(k.v_readlane_b32(t, 0)))


def wave_scan(k, x: Reg, op: str = "add") -> Reg:
    """Inclusive scan: lane l gets x[0] + ... + x[l] (``op``: add (f32) or iadd (u32)), or
    max(x[0], ..., x[l]) (``umax``, u32)."""
    if op not in ("add", "iadd", "umax"):
        raise _fail("wave_scan supports add (f32), iadd and umax (u32): bound_ctrl supplies 0, their identity")
    mn = OPS[op]
    t = x
    for s in (1, 2, 4, 8):
        t = k.inst(mn, t, t, row_shr=s, bound_ctrl=True)
    lane = lane_id(k)
    totals = [k.v_readlane_b32(t, r) for r in (15, 31, 47)]
    for row, tot in enumerate(totals, start=1):
        # rows after ``row - 1`` add its total (read before any row was changed)
        add = k.v_cndmask_b32_e64(0, k.v_mov_b32(tot), k.v_cmp_le_u32_e64(16 * row, lane))  # one SGPR a VALU op
        t = k.inst(mn, add, t)
    return t


def block_reduce(k, x: Reg, op: str, lds, waves: int, tid: Reg) -> Reg:
    """Every work-item of a ``64 * waves`` work-group gets op over all of their ``x``.
    ``lds`` is a ``k.lds(4 * waves)`` slot used only by this reduction."""
    r = wave_reduce(k, x, op)
    if waves == 1:
        return r
    if waves not in (2, 4, 8, 16):
        raise _fail("block_reduce: waves must be 1, 2, 4, 8 or 16")
    slot = k.v_add_u32(lds, k.v_lshlrev_b32(2, k.v_lshrrev_b32(6, tid)))
    w = k.ds_write_b32(slot, r)  # every lane of the wave writes the same value
    k.wait(w)
    k.s_barrier()
    base = k.v_mov_b32(lds)
    parts = []
    for i in range(0, waves, 4):
        n = min(4, waves - i)
        v, t = k.inst(f"ds_read_b{32 * n}", base, offset=4 * i)
        k.wait(t)
        parts.extend(v.split() if n > 1 else [v])
    acc = parts[0]
    for p in parts[1:]:
        acc = k.inst(OPS[op], p, acc)
    return acc

"""Kernel-side helpers shared by the examples, as Python functions over the authoring API.

Each takes the kernel builder ``k`` and emits straight-line instructions; nothing here
names a physical register (the allocator places everything).

* ``exec_reg(k)``: the EXEC special register as a value, to restore a saved mask.
* ``masked(k, cond)``: ``with masked(k, cond):`` runs the body only in the lanes where the
  64-bit lane mask ``cond`` is set (``s_and_saveexec_b64`` ... ``s_mov_b64 exec``).
* ``buffer_rsrc(k, ptr, nbytes)``: a raw buffer resource descriptor (V#) in four SGPRs;
  loads past ``num_records`` bytes return 0 and stores there are dropped (MI300 ISA guide,
  "Buffer Instructions": range checking with stride 0 compares offset + size to
  num_records).
* ``wave_reduce(k, x, op)``: op over the 64 lanes of a wave with DPP (quad_perm, row_ror
  inside each row of 16 lanes) then ``v_readlane_b32`` of the four row results; every lane
  gets the result.
* ``block_reduce(k, x, op, lds, waves)``: ``wave_reduce`` in each wave, the wave results
  through LDS and one ``s_barrier``, combined again so every work-item has the result.
"""

from __future__ import annotations

import contextlib

from gcnforge.builder.values import Reg
from gcnforge.dialect.structure_ops import AllocaOp
from gcnforge.dialect.types import SpecialRegType

# Word 3 of a raw buffer descriptor on gfx9 / CDNA: DATA_FORMAT = 4 (32 bit) in bits
# [18:15], everything else 0 (no swizzle, no add_tid). Value used by AMD's Composable Kernel
# for gfx90a / gfx94x ("CK_BUFFER_RESOURCE_3RD_DWORD"); a zero DATA_FORMAT would make the
# hardware treat the buffer as invalid.
RSRC_WORD3 = 0x00020000

REDUCE_OPS = {"add": "v_add_f32", "max": "v_max_f32", "min": "v_min_f32", "umin": "v_min_u32", "umax": "v_max_u32"}
# DPP steps that combine lanes inside each row of 16: after all four, every lane holds its
# row's result (ISA guide "DPP", DPP_CTRL: QUAD_PERM, ROW_ROR).
_ROW_STEPS = ({"quad_perm": [1, 0, 3, 2]}, {"quad_perm": [2, 3, 0, 1]}, {"row_ror": 4}, {"row_ror": 8})


def exec_reg(k) -> Reg:
    return Reg(k.insert(AllocaOp(SpecialRegType.get("exec"))).result, k)


@contextlib.contextmanager
def masked(k, cond: Reg):
    """Lanes outside ``cond`` (a 64-bit SGPR mask, e.g. from ``v_cmp_*_e64``) do nothing
    inside the block; EXEC is restored after it."""
    saved = k.s_and_saveexec_b64(cond)
    yield
    k.s_mov_b64(exec_reg(k), saved)


def lane_mask_lt(k, v: Reg, bound) -> Reg:
    """64-bit lane mask of ``v < bound`` (unsigned; ``bound`` an SGPR or inline constant)."""
    return k.v_cmp_gt_u32_e64(bound, v)


def buffer_rsrc(k, ptr: Reg, nbytes) -> Reg:
    """V# for a raw byte buffer at ``ptr`` (SGPR pair) of ``nbytes`` bytes (SGPR or int)."""
    lo, hi = ptr.split()
    base_hi = k.s_and_b32(0xFFFF, hi)  # stride 0, no swizzle: only base[47:32] in word 1
    num = nbytes if isinstance(nbytes, Reg) else k.s_mov_b32(nbytes)
    word3 = k.s_mov_b32(RSRC_WORD3)
    # copies keep the descriptor's four words in consecutive SGPRs of their own
    return k.concat(k.s_mov_b32(lo), base_hi, k.s_mov_b32(num), word3)


def wave_reduce(k, x: Reg, op: str = "add") -> Reg:
    mn = REDUCE_OPS[op]
    t = x
    for dpp in _ROW_STEPS:
        t = k.inst(mn, t, t, **dpp)  # src0 is read through the DPP lane pattern
    rows = [k.v_readlane_b32(t, lane) for lane in (0, 16, 32, 48)]
    v = k.v_mov_b32(rows[0])
    for s in rows[1:]:
        v = k.inst(mn, s, v)
    return v


def block_reduce(k, x: Reg, op: str, lds, waves: int, tid: Reg) -> Reg:
    """Every work-item of a ``64 * waves`` work-group gets op over all of their ``x``.
    ``lds`` is a ``k.lds(4 * waves)`` slot used only by this reduction."""
    r = wave_reduce(k, x, op)
    if waves == 1:
        return r
    if waves not in (2, 4, 8, 16):
        raise ValueError("block_reduce: waves must be 1, 2, 4, 8 or 16")
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
        acc = k.inst(REDUCE_OPS[op], p, acc)
    return acc

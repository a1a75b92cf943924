"""Lane masks and masked regions, through the public builder only.

* ``lane_mask_lt(k, v, bound)``: the 64-bit lane mask (an SGPR pair) of ``v < bound``
  (unsigned); ``lane_mask_ge`` the opposite.
* ``with masked(k, cond):``: the body runs only in the lanes of ``cond`` (and of the current
  EXEC): ``s_and_saveexec_b64`` before, EXEC restored after.
* ``lane_id(k)``: each lane's index in its wave (0..63), ``v_mbcnt_hi(v_mbcnt_lo(-1))``.
"""

from __future__ import annotations

import contextlib

from gcnforge.builder.values import Reg


def lane_mask_lt(k, v: Reg, bound) -> Reg:
    return k.v_cmp_gt_u32_e64(bound, v)


def lane_mask_ge(k, v: Reg, bound) -> Reg:
    return k.v_cmp_le_u32_e64(bound, v)


@contextlib.contextmanager
def masked(k, cond: Reg):
    """Lanes outside ``cond`` do nothing inside the block; EXEC is restored after it."""
    saved = k.s_and_saveexec_b64(cond)
    yield
    k.s_mov_b64(k.special("exec"), saved)


def lane_id(k) -> Reg:
    """Lane number in the wave: count of set mask bits below the lane (ISA guide v_mbcnt)."""
    return k.v_mbcnt_hi_u32_b32(-1, k.v_mbcnt_lo_u32_b32(-1, 0))

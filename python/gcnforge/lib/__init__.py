"""Building blocks for kernel authors, over the public builder (``gcnforge.builder``) and the
ISA facts (``gcnforge.isa``) only.

* ``buffer``: ``make_buffer_rsrc`` and raw / structured buffer loads and stores whose ragged
  tails the hardware clamps.
* ``mask``: ``lane_mask_lt`` / ``lane_mask_ge``, ``with masked(k, cond):``, ``lane_id``.
* ``reduce``: ``wave_reduce`` (DPP), ``wave_reduce_swizzle`` (``ds_swizzle_b32``), ``wave_scan``,
  ``block_reduce`` (LDS + ``s_barrier``).
* ``layout``: MFMA operand/result fragment layouts of every MFMA of gfx942 and gfx950
  (``mfma_fragment``, host-side ``pack`` / ``unpack``), LDS tiles with padding or XOR
  swizzles (``LdsLayout``, ``Swizzle``) and the bank-conflict check (``lds_passes``,
  ``bank_conflicts``; bank count from ``isa.target``).
* ``tile``: ``global_to_lds``, ``lds_to_fragment``, ``fragment_to_global``, ``store_result_tile``.

Every helper takes the kernel builder ``k`` first and names no physical register.
"""

from gcnforge.lib.buffer import buffer_load, buffer_store, load_idx, make_buffer_rsrc, store_idx
from gcnforge.lib.layout import LdsLayout, Swizzle, bank_conflicts, lds_passes, mfma_fragment, pack, unpack
from gcnforge.lib.mask import lane_id, lane_mask_ge, lane_mask_lt, masked
from gcnforge.lib.reduce import block_reduce, wave_reduce, wave_reduce_swizzle, wave_scan
from gcnforge.lib.tile import fragment_to_global, global_to_lds, lds_to_fragment, store_result_tile

__all__ = [
    "make_buffer_rsrc", "buffer_load", "buffer_store", "load_idx", "store_idx",
    "lane_mask_lt", "lane_mask_ge", "masked", "lane_id",
    "wave_reduce", "wave_reduce_swizzle", "wave_scan", "block_reduce",
    "mfma_fragment", "pack", "unpack", "LdsLayout", "Swizzle", "lds_passes", "bank_conflicts",
    "global_to_lds", "lds_to_fragment", "fragment_to_global", "store_result_tile",
]

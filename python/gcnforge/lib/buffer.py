"""Buffer resources and the loads and stores through them whose tails the hardware clamps.

A buffer access checks every lane against the V#'s ``num_records`` (MI300 ISA guide, "Buffer
Instructions", range checking): raw (``offen``) lanes whose ``soffset + offset`` (a 32-bit sum
that wraps: emulator/ops_mem.py) is at or past ``num_records`` bytes read 0 and drop their
stores, dword by dword for x2/x4 accesses;
structured (``idxen``) lanes whose index is at or past ``num_records`` records do the same. So
a ragged tail needs no EXEC mask: give the V# the real size.

* ``make_buffer_rsrc(k, ptr, nbytes, stride=0)``: the V# (four SGPRs) of a buffer at ``ptr``
  (an SGPR pair); ``nbytes`` an SGPR value or int (a structured V#: ``stride`` bytes per
  record and ``nbytes`` records).
* ``buffer_load(k, rsrc, offset, dwords=1)`` / ``buffer_store(k, value, rsrc, offset)``: raw,
  ``offset`` a VGPR of byte offsets; ``load_idx`` / ``store_idx``: structured, by record index.
"""

from __future__ import annotations

from gcnforge.builder.values import Reg
from gcnforge.isa import buffer_rsrc
from gcnforge.lib.errors import fail as _fail

_WIDTH = {1: "dword", 2: "dwordx2", 3: "dwordx3", 4: "dwordx4"}


def make_buffer_rsrc(k, ptr: Reg, nbytes, stride: int = 0) -> Reg:
    """V# for the buffer at ``ptr`` (SGPR pair): ``nbytes`` bytes (raw) or records (stride > 0)."""
    lo, hi = ptr.split()
    word1 = k.s_and_b32(0xFFFF, hi)  # only base[47:32] in word 1 (no swizzle)
    if stride:
        word1 = k.s_or_b32(buffer_rsrc.word1_hi(stride), word1)
    num = nbytes if isinstance(nbytes, Reg) else k.s_mov_b32(nbytes)
    word3 = k.s_mov_b32(buffer_rsrc.RAW_WORD3)
    # copies keep the descriptor's four words in consecutive SGPRs of their own
    return k.concat(k.s_mov_b32(lo), word1, k.s_mov_b32(num), word3)


def _width(dwords: int) -> str:
    if dwords not in _WIDTH:
        raise _fail(f"buffer accesses move 1, 2, 3 or 4 dwords, not {dwords}")
    return _WIDTH[dwords]


def buffer_load(k, rsrc: Reg, offset: Reg, dwords: int = 1, soffset=0, imm: int = 0):
    """``buffer_load_dword[xN] offset, rsrc, soffset offen offset:imm`` -> (value, token)."""
    return k.inst(f"buffer_load_{_width(dwords)}", offset, rsrc, soffset, offen=True, offset=imm)


def buffer_store(k, value: Reg, rsrc: Reg, offset: Reg, soffset=0, imm: int = 0):
    """``buffer_store_dword[xN] value, offset, rsrc, soffset offen offset:imm`` -> token."""
    return k.inst(f"buffer_store_{_width(value.width)}", value, offset, rsrc, soffset, offen=True, offset=imm)


def load_idx(k, rsrc: Reg, index: Reg, dwords: int = 1, soffset=0, imm: int = 0):
    """Structured load of record ``index`` (a VGPR) at byte ``imm`` inside it -> (value, token)."""
    return k.inst(f"buffer_load_{_width(dwords)}", index, rsrc, soffset, idxen=True, offset=imm)


def store_idx(k, value: Reg, rsrc: Reg, index: Reg, soffset=0, imm: int = 0):
    return k.inst(f"buffer_store_{_width(value.width)}", value, index, rsrc, soffset, idxen=True, offset=imm)

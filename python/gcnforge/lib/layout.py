"""Layouts: where MFMA operands and results live in lanes and registers, and where tiles live
in LDS.

* ``mfma_fragment(mnemonic, matrix, fmt=None)``: the operand/result fragment layout of any
  MFMA of gfx942 or gfx950 (``gcnforge.isa.mfma_layout``, the one home of those facts): for
  element ``[block, i, j]`` its register, lane and bit offset. ``pack(frag, mat)`` /
  ``unpack(frag, regs)`` move a NumPy matrix into the ``(registers, 64)`` dword image a
  kernel's VGPRs hold and back (host side: test vectors, reference checks).
* ``LdsLayout(rows, cols, esize, pad=0, swizzle=None)``: a row-major tile in LDS, rows
  ``cols * esize + pad`` bytes apart, optionally XOR-swizzled: ``Swizzle(bits, base, shift)``
  flips address bits ``[base, base + bits)`` with bits ``[base + shift, base + shift + bits)``
  (the CuTe ``Swizzle<B, M, S>`` form), so a column of a tile spreads over the banks.
  ``offset(i, j)`` on the host, ``emit_offset(k, row, col)`` in a kernel.
* ``lds_passes(addrs, nbytes, target)`` / ``bank_conflicts(...)``: how many LDS passes one
  wave's access takes with the target's bank count (``isa.target``: 4-byte banks; lanes go
  in groups that move ``4 * banks`` bytes, each group as many passes as its busiest bank has
  distinct dwords; a broadcast is free), and the conflict factor over the conflict-free count.
"""

from __future__ import annotations

import numpy as np

from gcnforge.isa.lds_banks import lds_passes  # noqa: F401  (part of gcnforge.lib)
from gcnforge.isa.mfma_layout import Fragment, fragment
from gcnforge.lib.errors import fail as _fail


def mfma_fragment(mnemonic: str, matrix: str, fmt: str | None = None) -> Fragment:
    return fragment(mnemonic, matrix, fmt)


def pack(frag: Fragment, mat: np.ndarray) -> np.ndarray:
    """The ``(registers, 64)`` uint32 image of ``mat`` (shape ``frag.shape`` or without the
    block axis; 8/16/32-bit elements as their bit patterns, 64-bit over two registers)."""
    m = np.asarray(mat).reshape(frag.shape)
    bits = frag.bits
    raw = m.view({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]).astype(np.uint64)
    out = np.zeros((frag.registers, 64), np.uint64)
    if bits == 64:
        np.bitwise_or.at(out, (frag.reg, frag.lane), raw & np.uint64(0xFFFFFFFF))
        np.bitwise_or.at(out, (frag.reg + 1, frag.lane), raw >> np.uint64(32))
    else:
        np.bitwise_or.at(out, (frag.reg, frag.lane), raw << frag.lo.astype(np.uint64))
    return out.astype(np.uint32)


def unpack(frag: Fragment, regs: np.ndarray, dtype=np.float32) -> np.ndarray:
    """The matrix (``frag.shape``) a ``(registers, 64)`` dword image holds, as ``dtype``."""
    r = np.asarray(regs).astype(np.uint64)
    if frag.bits == 64:
        raw = r[frag.reg, frag.lane] | (r[frag.reg + 1, frag.lane] << np.uint64(32))
    else:
        raw = (r[frag.reg, frag.lane] >> frag.lo.astype(np.uint64)) & np.uint64((1 << frag.bits) - 1)
    it = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[frag.bits]
    return raw.astype(it).view(dtype)


class Swizzle:
    """XOR swizzle of byte addresses: bits ``[base, base + bits)`` ^= bits ``[base + shift, ...)``."""

    def __init__(self, bits: int, base: int, shift: int):
        if bits < 0 or base < 0 or shift < bits:
            raise _fail("Swizzle(bits, base, shift) needs shift >= bits (the two fields must not overlap)")
        self.bits, self.base, self.shift = bits, base, shift

    def __call__(self, addr):
        mask = (1 << self.bits) - 1
        return addr ^ (((addr >> (self.base + self.shift)) & mask) << self.base)

    def __repr__(self) -> str:
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"


class LdsLayout:
    """A ``rows x cols`` tile of ``esize``-byte elements in LDS (row-major, padded, swizzled)."""

    def __init__(self, rows: int, cols: int, esize: int, pad: int = 0, swizzle: Swizzle | None = None):
        self.rows, self.cols, self.esize, self.pad, self.swizzle = rows, cols, esize, pad, swizzle
        self.row_bytes = cols * esize + pad
        if swizzle is not None and pad:
            raise _fail("use padding or a swizzle, not both")

    @property
    def nbytes(self) -> int:
        return self.rows * self.row_bytes

    def offset(self, i, j):
        """Byte offset of element ``[i, j]`` (ints or NumPy arrays)."""
        a = np.asarray(i) * self.row_bytes + np.asarray(j) * self.esize
        return self.swizzle(a) if self.swizzle is not None else a

    def contiguous_bytes(self) -> int:
        """Bytes of a row that stay consecutive after the swizzle (a vector access must fit)."""
        return self.row_bytes if self.swizzle is None else 1 << self.swizzle.base

    def emit_offset(self, k, row, col):
        """VGPR of ``offset(row, col)`` for per-lane ``row`` and ``col`` (VGPRs or ints)."""
        a = _mad(k, row, self.row_bytes, _scale(k, col, self.esize))
        sw = self.swizzle
        if sw is None or sw.bits == 0:
            return a
        y = k.v_bfe_u32(a, sw.base + sw.shift, sw.bits)
        return k.v_xor_b32(k.v_lshlrev_b32(sw.base, y), a)


def _scale(k, v, c: int):
    if isinstance(v, int):
        return v * c
    if c & (c - 1) == 0:
        return v if c == 1 else k.v_lshlrev_b32(c.bit_length() - 1, v)
    return k.v_mul_u32_u24(c, v)


def _mad(k, v, c: int, add):
    """v * c + add (ints fold; VGPRs get the fewest instructions)."""
    if isinstance(v, int) and isinstance(add, int):
        return k.v_mov_b32(v * c + add)
    if isinstance(v, int):
        return add if v * c == 0 else k.v_add_u32(v * c, add)
    s = _scale(k, v, c)
    return s if isinstance(add, int) and add == 0 else k.v_add_u32(s, add)


def bank_conflicts(addrs, nbytes: int, target: str = "gfx942") -> float:
    """Passes taken over passes a conflict-free access of the same lanes takes (1.0: none)."""
    n = np.asarray(addrs).size
    ideal = lds_passes(np.arange(n) * nbytes, nbytes, target)
    return lds_passes(addrs, nbytes, target) / max(1, ideal)

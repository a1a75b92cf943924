"""Typed buffer data: MUBUF ``buffer_*_format_*`` (format from the V#) and MTBUF
``tbuffer_*`` (format from the instruction's ``format`` field, dfmt | nfmt << 4).

AMD Instinct MI300 (CDNA3) ISA guide, "Buffer Instructions" (data format from the resource
or the instruction; MTBUF's DST_SEL is the identity X000/XY00/XYZ0/XYZW) and "Buffer
Resource" (Table 48: dst_sel_x..w in bits 107:96 as 0=0, 1=1, 4..7=X..W; num format in
110:108, data format in 114:111). Data formats with components of 8, 16 or 32 bits are
modelled (DFMT 1-5, 10-14 of the gfx9 encoding, LLVM SIDefines / AMDGPU asm syntax
BUF_DATA_FORMAT_*); the packed 10/11-bit ones are not. Numeric formats on load: UNORM
x / (2^n - 1), SNORM max(x / (2^(n-1) - 1), -1), USCALED / SSCALED the integer as a float,
UINT / SINT the integer, FLOAT the IEEE value (16 or 32 bits). Stores are modelled where the
conversion is exact or IEEE-rounded (UINT/SINT/FLOAT of 32 bits, FLOAT of 16 bits); the
other store conversions stop with a fault rather than guess a rounding/clamping rule.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WAVE, Unsupported, WaveFault

# DFMT -> component bit widths (gfx9 BUF_DATA_FORMAT_*; 0 is INVALID, 15 reserved)
DFMT_BITS = {1: (8,), 2: (16,), 3: (8, 8), 4: (32,), 5: (16, 16), 10: (8, 8, 8, 8), 11: (32, 32),
             12: (16, 16, 16, 16), 13: (32, 32, 32), 14: (32, 32, 32, 32)}
DFMT_NAMES = {6: "10_11_11", 7: "11_11_10", 8: "10_10_10_2", 9: "2_10_10_10"}
NFMT_NAMES = {0: "UNORM", 1: "SNORM", 2: "USCALED", 3: "SSCALED", 4: "UINT", 5: "SINT", 7: "FLOAT"}
_FLOATY = (0, 1, 2, 3, 7)  # numeric formats that load as floats


class Format:
    def __init__(self, dfmt: int, nfmt: int, dst_sel: tuple[int, ...] | None):
        if dfmt not in DFMT_BITS:
            name = DFMT_NAMES.get(dfmt, "INVALID" if dfmt == 0 else f"#{dfmt}")
            raise Unsupported(f"buffer data format {name} ({dfmt}) is not modelled by the emulator")
        if nfmt not in NFMT_NAMES:
            raise Unsupported(f"buffer numeric format {nfmt} is not modelled by the emulator")
        self.dfmt, self.nfmt = dfmt, nfmt
        self.bits = DFMT_BITS[dfmt]
        if nfmt == 7 and self.bits[0] == 8:
            raise WaveFault("buffer format with 8-bit FLOAT components is not a valid format")
        self.nbytes = sum(self.bits) // 8
        # identity selection for MTBUF (and missing components read 0)
        self.dst_sel = dst_sel if dst_sel is not None else tuple(4 + i if i < len(self.bits) else 0 for i in range(4))

    def load(self, raw: np.ndarray, count: int) -> np.ndarray:
        """(k, 64, nbytes) bytes -> (k, count, 64) uint32 register values (before d16 packing)."""
        k = raw.shape[0]
        comps = []
        off = 0
        for b in self.bits:
            nb = b // 8
            u = np.ascontiguousarray(raw[:, :, off:off + nb]).view({1: np.uint8, 2: np.uint16, 4: np.uint32}[nb])
            comps.append(self._to_reg(u.reshape(k, WAVE), b))
            off += nb
        one = np.uint32(0x3F800000) if self.nfmt in _FLOATY else np.uint32(1)
        out = np.zeros((k, count, WAVE), np.uint32)
        for i in range(count):
            s = self.dst_sel[i]
            if s == 1:
                out[:, i, :] = one
            elif 4 <= s < 4 + len(comps):
                out[:, i, :] = comps[s - 4]
        return out

    def _to_reg(self, u: np.ndarray, b: int) -> np.ndarray:
        n = self.nfmt
        signed = u.view({8: np.int8, 16: np.int16, 32: np.int32}[b]).astype(np.int64)
        uns = u.astype(np.int64)
        if n == 4:
            return uns.astype(np.uint32)
        if n == 5:
            return signed.astype(np.uint32)
        if n == 7:
            return u.astype(np.uint32) if b == 32 else u.view(np.float16).astype(np.float32).view(np.uint32)
        f = {0: uns / float((1 << b) - 1), 1: np.maximum(signed / float((1 << (b - 1)) - 1), -1.0),
             2: uns.astype(np.float64), 3: signed.astype(np.float64)}[n]
        return f.astype(np.float32).view(np.uint32)

    def store(self, vals: np.ndarray) -> np.ndarray:
        """(k, ncomp, 64) uint32 register values -> (k, 64, nbytes) bytes."""
        k = vals.shape[0]
        parts = []
        for i, b in enumerate(self.bits):
            v = vals[:, i, :] if i < vals.shape[1] else np.zeros((k, WAVE), np.uint32)
            if b == 32 and self.nfmt in (4, 5, 7):
                c = v.astype(np.uint32)
            elif b == 16 and self.nfmt == 7:
                c = v.view(np.float32).astype(np.float16).view(np.uint16)  # IEEE round to nearest even
            else:
                raise Unsupported(f"store conversion to {b}-bit {NFMT_NAMES[self.nfmt]} is not modelled by the emulator")
            parts.append(np.ascontiguousarray(c).view(np.uint8).reshape(k, WAVE, b // 8))
        return np.concatenate(parts, axis=2)


def _f16_bits(v: np.ndarray, floaty: bool) -> np.ndarray:
    """32-bit register values -> 16-bit halves for d16 (floats to f16, integers' low bits)."""
    if floaty:
        return v.view(np.float32).astype(np.float16).view(np.uint16).astype(np.uint32)
    return v & np.uint32(0xFFFF)


def d16_pack(vals: np.ndarray, floaty: bool) -> np.ndarray:
    """(k, count, 64) register values -> (k, ceil(count/2), 64): two 16-bit values a VGPR."""
    k, c, _ = vals.shape
    h = _f16_bits(vals, floaty)
    out = np.zeros((k, (c + 1) // 2, WAVE), np.uint32)
    for i in range(c):
        out[:, i // 2, :] |= h[:, i, :] << np.uint32(16 * (i % 2))
    return out


def d16_unpack(packed: np.ndarray, count: int, floaty: bool) -> np.ndarray:
    """(k, ceil(count/2), 64) packed halves -> (k, count, 64) 32-bit register values."""
    k = packed.shape[0]
    out = np.zeros((k, count, WAVE), np.uint32)
    for i in range(count):
        h = (packed[:, i // 2, :] >> np.uint32(16 * (i % 2))) & np.uint32(0xFFFF)
        out[:, i, :] = h.astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32) if floaty else h
    return out


def rsrc_format(word3: np.ndarray) -> tuple[int, int, tuple[int, ...]]:
    """dfmt, nfmt and dst_sel of one V#'s word 3 (Table 48 bits 114:96)."""
    w3 = int(word3)
    sel = tuple((w3 >> (3 * i)) & 7 for i in range(4))
    return (w3 >> 15) & 0xF, (w3 >> 12) & 7, sel

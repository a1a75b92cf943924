"""MFMA (matrix fused multiply-add) for every dense gfx942 shape family and gfx950's new ones, and
the SMFMACs (4:2 sparse A) of both.

Which lane and register hold each element of A, B, C and D is not computed here: it is
read from ``gcnforge.isa.mfma_layout`` (``isa/data/mfma_layouts.json``, generated from AMD's Matrix
Instruction Calculator, and, for the MFMAs and SMFMACs new in gfx950 (CDNA4),
``isa/data/mfma_layouts_gfx950.json``: same generator, CDNA4 ISA guide rule; see
isa/data/mfma_layouts.md). Per instruction, index arrays gather
A[block][i][k] and B[block][k][j] from the source registers, D = A x B + C is computed per
block in float64 (int64 for i8) and rounded once to the destination type, then scattered to
the destination registers. (The guides do not specify the order or width of the hardware's
internal sums, so the one rounding is gcnforge's model, exact for every product and every
sum that fits float64's 53 bits.)

Modifiers (MI300 ISA guide, "VOP3P-MAI"): CBSZ/ABID broadcast block ABID of each group of
2**CBSZ blocks of A to the whole group; BLGP remaps the lanes B is read from
(1: lanes 0-31 feed both halves, 2: lanes 32-63 feed both halves, 3: rotate by 16 lanes,
4-7: lanes 16*(BLGP-4)..+15 feed every group of 16); both rules are checked against the
calculator's own output for modifiers in tests/emulator/test_mfma_layouts.py. For f64 MFMA
the BLGP bits are NEG[2:0] instead, negating A, B and C (bits 61-63 of the encoding, which
llvm-mc fills from ``neg:[a,b,c]``; tests/emulator/test_mfma_f64_neg.py).

gfx950: FP8/BF8 operands are the OCP formats (e4m3fn, e5m2), not gfx942's FNUZ ones; the
target is the one the code was decoded for (``isa.table.active_target()`` when the handler
is bound). ``v_mfma_*_f8f6f4``: CBSZ and BLGP name the FORMAT of A and B (0 fp8, 1 bf8,
2 fp6, 3 bf6, 4 fp4), not a broadcast. ``v_mfma_scale_*_f8f6f4`` (asm/vop_scale.py pairs
``v_mfma_ld_scale_b32`` with the MFMA): per 32 K-elements one E8M0 scale 2^(e-127) for each
row of A and column of B (code 0xFF: NaN); the scale of A row i, K-block b sits in lane
i + M*b of scale_src0 (of B column j: lane j + N*b of scale_src1), in the byte
op_sel[n] | op_sel_hi[n] << 1 selects (n = 0 for A, 1 for B; clang's OPSEL_A/OPSEL_B
arguments encode that way). D = C + sum_b scaleA[i,b] * scaleB[b,j] * (A_b x B_b).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from gcnforge.emulator import numerics_ocp as ocp
from gcnforge.emulator.core import WAVE, WaveFault, rows
from gcnforge.emulator.numerics import bf16_to_f32, fp8_to_f32
from gcnforge.isa import mfma_layout

HANDLERS: dict = {}
OCP_FP8 = ("gfx950",)  # targets whose FP8/BF8 are the OCP formats


_table = mfma_layout.entries  # the layouts' one home (gcnforge.isa.mfma_layout)


def info_for(base: str):
    return _table().get(base)


class Layout:
    """Gather/scatter indices of one matrix: arrays over (block, row, col)."""

    def __init__(self, lay: dict, blocks: int, rows: int, cols: int):
        shape = (blocks, rows, cols)
        self.reg = np.full(shape, -1, np.int64)
        self.lane = np.zeros(shape, np.int64)
        self.lo = np.zeros(shape, np.int64)
        self.bits = lay["cols"][0][2]
        for lane, c, i, j, b in lay["cells"]:
            reg, lo, _ = lay["cols"][c]
            self.reg[b, i, j], self.lane[b, i, j], self.lo[b, i, j] = reg, lane, lo
        if (self.reg < 0).any():
            raise ValueError("incomplete MFMA layout")
        self.flat = self.element_index(self.lane)
        # rows whose elements sit in consecutive lanes of one register (C/D of most shapes):
        # gather and scatter whole rows at once
        self.rows = None
        if self.flat is not None and self.bits == 32:
            first = self.flat[:, :, :1]
            if ((self.flat - first) == np.arange(cols)).all() and not (first % cols).any():
                self.rows = first[:, :, 0] // cols
        # one block whose rows fill the registers exactly: the matrix in register order is
        # a reshape of the registers, and ``order`` lists the matrix row of each register row
        self.order = None
        if self.rows is not None and blocks == 1 and sorted(self.rows[0].tolist()) == list(range(rows)):
            self.order = np.argsort(self.rows[0])

    def element_index(self, lane: np.ndarray) -> np.ndarray | None:
        """Index of each element in the source registers seen as an array of ``bits``-wide
        elements (registers of 64 lanes, little-endian parts), or None for 64-bit elements
        (which span two registers)."""
        if self.bits == 64:
            return None
        per = 32 // self.bits
        return (self.reg * WAVE + lane) * per + self.lo // self.bits


@cache
def _layouts(base: str):
    t = _table()[base]
    m, n, k, nb = t["m"], t["n"], t["k"], t["blocks"]
    la, lb, ld = Layout(t["A"], nb, m, k), Layout(t["B"], nb, k, n), Layout(t["D"], nb, m, n)
    # A's elements gathered with its rows already in D's register order (see mfma)
    la.flat_dorder = None if ld.order is None or la.flat is None else la.flat[0][ld.order]
    return t, la, lb, ld


def _decode(raw_bits: np.ndarray, ty: str, ocp_fp8: bool = False) -> np.ndarray:
    """Element bit patterns (uint64) -> float64/int64 values (FP8/BF8: OCP with ``ocp_fp8``)."""
    if ty == "FP32":
        return raw_bits.astype(np.uint32, copy=False).view(np.float32).astype(np.float64)
    if ty == "FP16":
        return raw_bits.astype(np.uint16, copy=False).view(np.float16).astype(np.float64)
    if ty == "BF16":
        return bf16_to_f32(raw_bits.astype(np.uint16, copy=False)).astype(np.float64)
    if ty == "FP64":
        return raw_bits.astype(np.uint64).view(np.float64)
    if ty == "int8":
        return raw_bits.astype(np.uint8, copy=False).view(np.int8).astype(np.int64)
    if ty == "int32":
        return raw_bits.astype(np.uint32, copy=False).view(np.int32).astype(np.int64)
    if ty in ("FP8", "BF8") and ocp_fp8:
        return ocp.decode(raw_bits, ocp.BF8 if ty == "BF8" else ocp.FP8)
    if ty in ("FP8", "BF8"):
        return fp8_to_f32(raw_bits.astype(np.uint8, copy=False), ty == "BF8").astype(np.float64)
    raise ValueError(ty)


def _xf32(v: np.ndarray) -> np.ndarray:
    """XF32 inputs keep 10 mantissa bits (rounded to nearest even), like TF32."""
    u = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0xFFF + ((u >> 13) & 1)) >> 13) << 13
    return (r & 0xFFFFFFFF).astype(np.uint32).view(np.float32).astype(np.float64)


_UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32}


def _gather(regs: np.ndarray, lay: Layout, lane_src=None) -> np.ndarray:
    """regs (n, nregs, 64) uint32 -> element bits (n, blocks, rows, cols), unsigned of the
    element's width (uint64 for 64-bit elements)."""
    lane = lay.lane if lane_src is None else lane_src[lay.lane]
    if lay.bits == 64:
        lo32 = regs[:, lay.reg, lane].astype(np.uint64)
        hi = regs[:, lay.reg + 1, lane].astype(np.uint64)
        return lo32 | (hi << np.uint64(32))
    elems = np.ascontiguousarray(regs).view(_UINT[lay.bits])
    if lane_src is None and lay.rows is not None:
        return elems.reshape(len(regs), -1, lay.flat.shape[-1])[:, lay.rows]
    flat = lay.flat if lane_src is None else lay.element_index(lane)
    return elems.reshape(len(regs), -1)[:, flat]


_BLGP = {0: lambda L: L, 1: lambda L: L % 32, 2: lambda L: 32 + L % 32, 3: lambda L: (L + 16) % 64,
         4: lambda L: L % 16, 5: lambda L: 16 + L % 16, 6: lambda L: 32 + L % 16, 7: lambda L: 48 + L % 16}


def mfma(x, ins, w, ocp_fp8=False):
    t, la, lb, ld = _layouts(ins.base)
    types = t["types"]
    gA, gB, gD = t["gprs"]["A"], t["gprs"]["B"], t["gprs"]["D"]
    dst, a_op, b_op, c_op = ins.ops[:4]
    nb = t["blocks"]
    cbsz, abid, blgp = ins.mods.get("cbsz", 0), ins.mods.get("abid", 0), ins.mods.get("blgp", 0)
    is_f64 = types["Src0"] == "FP64"
    A_regs = _regs(x, a_op, w, gA)
    B_regs = _regs(x, b_op, w, gB)
    lane = np.arange(WAVE)
    b_src = None if is_f64 or not blgp else _BLGP[blgp](lane)
    fast = ld.order is not None and types["Vdst"] != "FP64"
    if fast and la.flat_dorder is not None:
        elems = np.ascontiguousarray(A_regs).view(_UINT[la.bits]).reshape(len(A_regs), -1)
        A = _decode(elems[:, la.flat_dorder], types["Src0"], ocp_fp8)[:, None]  # (n, 1, m, k), rows in D's order
    else:
        A = _decode(_gather(A_regs, la), types["Src0"], ocp_fp8)
        if fast:
            A = A[:, :, ld.order]
    B = _decode(_gather(B_regs, lb, b_src), types["Src1"], ocp_fp8)
    if not is_f64 and cbsz:
        grp = 1 << cbsz
        if grp > nb:  # the broadcast group must fit the blocks (AMD's Matrix Instruction Calculator: cbsz <= log2(blocks))
            raise WaveFault(f"cbsz:{cbsz} broadcasts within groups of {grp} blocks; {ins.base} has {nb} "
                            f"block{'s' if nb > 1 else ''} (cbsz must be at most {nb.bit_length() - 1})")
        src_block = (np.arange(nb) & ~(grp - 1)) | (abid & (grp - 1))
        A = A[:, src_block]
    if ins.base.endswith("_xf32"):
        A, B = _xf32(A), _xf32(B)
    n = len(w)
    if fast:
        # D in register order: A's rows permuted, C and D reshapes of the registers
        A = A[:, 0]
        r = rows(w)
        if isinstance(r, slice) and types["Src2"] == types["Vdst"] == "FP32" and c_op.kind in ("v", "a") \
                and dst.kind in ("v", "a"):
            # the common f32 accumulator: C added from the registers and D rounded into them in place
            ic, idst = x.vindex(c_op), x.vindex(dst)
            if max(ic, idst) + gD > x.nv:
                raise WaveFault(f"register range {dst if idst >= ic else c_op} runs past the {x.nv} allocated VGPRs")
            D = np.matmul(A, B[:, 0])
            D += x.V[r, ic : ic + gD].view(np.float32).reshape(D.shape)
            np.copyto(x.V[r, idst : idst + gD].view(np.float32).reshape(D.shape), D, casting="same_kind")
            return
        if c_op.kind == "imm":
            C = _decode(np.full((n,) + A.shape[1:2] + ld.reg.shape[2:], c_op.value, np.uint64), types["Src2"])
        else:
            C = _decode(_regs(x, c_op, w, gD).reshape(n, A.shape[1], -1), types["Src2"])
        D = np.matmul(A, B[:, 0]) + C
        bits = (D.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32) if types["Vdst"] == "int32" \
            else D.astype(np.float32).view(np.uint32)
        x.vwrite_n(dst, w, bits.reshape(n, gD, WAVE), None)
        return
    if c_op.kind == "imm":
        cval = c_op.value
        C_bits = np.full((n,) + ld.reg.shape, cval, dtype=np.uint64)
        if types["Src2"] == "FP64" and cval <= 0xFFFFFFFF and cval not in (0,):
            C_bits = C_bits  # 64-bit inline constants already arrive as 64-bit patterns
    else:
        C_bits = _gather(_regs(x, c_op, w, gD), ld)
    C = _decode(C_bits, types["Src2"])
    if is_f64:  # the BLGP field is NEG[2:0]: bit 0 negates A, bit 1 B, bit 2 C (LLVM's neg:[A,B,C])
        if blgp & 1:
            A = -A
        if blgp & 2:
            B = -B
        if blgp & 4:
            C = -C
    D = np.matmul(A, B) + C
    out = np.zeros((n, gD, WAVE), np.uint32)
    if types["Vdst"] == "FP64":
        bits = D.astype(np.float64).view(np.uint64)
        out[:, ld.reg, ld.lane] = (bits & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        out[:, ld.reg + 1, ld.lane] = (bits >> np.uint64(32)).astype(np.uint32)
    else:
        bits = (D.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32) if types["Vdst"] == "int32" \
            else D.astype(np.float32).view(np.uint32)
        if ld.rows is not None:
            out.reshape(n, -1, ld.flat.shape[-1])[:, ld.rows] = bits
        else:
            out.reshape(n, -1)[:, ld.flat] = bits
    x.vwrite_n(dst, w, out, None)


def _regs(x, op, w, n):
    if op.kind in ("v", "a"):
        return x.vread_n(op, w, n)
    # a scalar/constant source broadcasts to every lane and register
    v = x.vread(op.__class__(op.kind, op.index, 1, op.value), w, 1)
    return np.repeat(v[:, None, :], n, axis=1)


# ---- SMFMAC: A compressed with 4:2 structured sparsity ------------------------------------------------
# For every 4-element chunk of a row of A, two values are stored (one register slot of the A
# layout holds the pair: first value in its low half, second in its high half) and a 4-bit
# index (bits [1:0] position of the first, [3:2] of the second) sits in the Src2 VGPR at the
# place the calculator's compression (K) layout gives. D += A x B; with CBSZ == 0, ABID
# picks which 8-bit (16-bit inputs) or 16-bit (8-bit inputs) part of Src2 holds the indices.
# (AMD Matrix Instruction Calculator README, "Printing Compression Index Information".)
# gfx950's SMFMACs (isa/data/mfma_layouts_gfx950.json, "index_bits") use 16-bit sets (16-bit inputs, ABID
# 0-1) and one 32-bit set (8-bit inputs), as their lanes hold twice as many groups.


@cache
def _sparse_layouts(base: str):
    t = _table()[base]
    m, k = t["m"], t["k"]
    nchunk = k // 4
    a_reg = np.zeros((m, nchunk), np.int64)
    a_lane = np.zeros((m, nchunk), np.int64)
    a_lo = np.zeros((m, nchunk), np.int64)
    a_bits = 0
    for lane, c, i, j, _b in t["A"]["cells"]:
        reg, lo, bits = t["A"]["cols"][c]
        a_reg[i, j // 4], a_lane[i, j // 4], a_lo[i, j // 4] = reg, lane, lo
        a_bits = bits // 2
    k_reg = np.zeros((m, nchunk), np.int64)
    k_lane = np.zeros((m, nchunk), np.int64)
    k_lo = np.zeros((m, nchunk), np.int64)
    for lane, c, i, j, _b in t["K"]["cells"]:
        reg, lo, _bits = t["K"]["cols"][c]
        k_reg[i, j // 4], k_lane[i, j // 4], k_lo[i, j // 4] = reg, lane, lo
    lb = Layout(t["B"], 1, k, t["n"])
    ld = Layout(t["D"], 1, m, t["n"])
    return t, (a_reg, a_lane, a_lo, a_bits), (k_reg, k_lane, k_lo), lb, ld


def smfmac(x, ins, w, ocp_fp8=False):
    t, (a_reg, a_lane, a_lo, a_bits), (k_reg, k_lane, k_lo), lb, ld = _sparse_layouts(ins.base)
    types = t["types"]
    dst, a_op, b_op, idx_op = ins.ops[:4]
    m, k = t["m"], t["k"]
    nchunk = k // 4
    cbsz, abid = ins.mods.get("cbsz", 0), ins.mods.get("abid", 0)
    A_regs = _regs(x, a_op, w, t["gprs"]["A"])
    K_regs = _regs(x, idx_op, w, 1)
    mask = np.uint64((1 << a_bits) - 1)
    pair = A_regs[:, a_reg, a_lane].astype(np.uint64) >> a_lo.astype(np.uint64)
    v0, v1 = pair & mask, (pair >> np.uint64(a_bits)) & mask
    # one index set a lane: 8 bits (16-bit sources) / 16 bits (8-bit) on gfx942, the whole run of the
    # lane's groups on gfx950 ("index_bits": 16 / 32; LLVM PR #193541); ABID picks the set when CBSZ == 0
    set_bits = t.get("index_bits", 8 if a_bits == 16 else 16)
    sel = abid if cbsz == 0 else 0
    if "index_bits" in t and sel >= 32 // set_bits:
        raise WaveFault(f"{ins.mnemonic}: abid:{abid} selects index set {sel}, but Src2 holds {32 // set_bits} "
                        f"set{'s' if set_bits < 32 else ''} of {set_bits} bits (the CDNA4 guide defines no other)")
    seg = set_bits * sel
    field = (K_regs[:, k_reg, k_lane].astype(np.uint64) >> (k_lo + seg).astype(np.uint64)) & np.uint64(0xF)
    i0, i1 = (field & np.uint64(3)).astype(np.int64), (field >> np.uint64(2)).astype(np.int64)
    n = len(w)
    dense = np.zeros((n, m, k), np.float64)
    rows = np.arange(m)[None, :, None]
    base_k = (4 * np.arange(nchunk))[None, None, :]
    wv = np.arange(n)[:, None, None]
    dense[wv, rows, base_k + i0] = _decode(v0, types["Src0"], ocp_fp8)
    dense[wv, rows, base_k + i1] = _decode(v1, types["Src0"], ocp_fp8)
    B = _decode(_gather(_regs(x, b_op, w, t["gprs"]["B"]), lb), types["Src1"], ocp_fp8)[:, 0]
    C = _decode(_gather(_regs(x, dst, w, t["gprs"]["D"]), ld), types["Vdst"])[:, 0]
    D = np.einsum("wik,wkj->wij", dense, B) + C
    if types["Vdst"] == "int32":
        bits = (D.astype(np.int64) & 0xFFFFFFFF).astype(np.uint64)
    else:
        bits = D.astype(np.float32).view(np.uint32).astype(np.uint64)
    out = np.zeros((n, t["gprs"]["D"], WAVE), np.uint32)
    out[:, ld.reg[0], ld.lane[0]] = bits.astype(np.uint32)
    x.vwrite_n(dst, w, out, None)


# ---- gfx950 f8f6f4: A and B in fp8/bf8/fp6/bf6/fp4, optionally block-scaled ----------------------------
_F8F6F4_CODES = {0: "FP8", 1: "BF8", 2: "FP6", 3: "BF6", 4: "FP4"}
_OCP = {"FP8": ocp.FP8, "BF8": ocp.BF8, "FP6": ocp.FP6, "BF6": ocp.BF6, "FP4": ocp.FP4}
SCALE_BLOCK = 32  # K-elements per E8M0 scale (CDNA4 ISA guide; the OCP MX block)


@cache
def _packed(base: str, fmt: str, matrix: str):
    """(reg, lane, lo) index arrays over (rows, cols) of A (m, k) or B (k, n) in format ``fmt``,
    its element width and register count; elements may cross a dword (fp6)."""
    t = _table()[base]
    f = t["formats"][fmt]
    lay = f[matrix]
    shape = (t["m"], t["k"]) if matrix == "A" else (t["k"], t["n"])
    reg, lane, lo = (np.zeros(shape, np.int64) for _ in range(3))
    for ln, c, i, j, _b in lay["cells"]:
        r, b, _ = lay["cols"][c]
        reg[i, j], lane[i, j], lo[i, j] = r, ln, b
    return reg, lane, lo.astype(np.uint64), f["bits"], f["gprs"]


def _unpack(regs: np.ndarray, reg, lane, lo, bits: int) -> np.ndarray:
    """Element codes (n, rows, cols) from (n, nregs, 64) registers: two dwords joined so an
    element crossing into the next register reads its high bits there."""
    padded = np.concatenate([regs, np.zeros_like(regs[:, :1])], axis=1).astype(np.uint64)
    pair = padded[:, reg, lane] | (padded[:, reg + 1, lane] << np.uint64(32))
    return (pair >> lo) & np.uint64((1 << bits) - 1)


def _format(code: int, which: str, name: str) -> str:
    if code not in _F8F6F4_CODES:
        raise WaveFault(f"{name}: {which}:{code} names no operand format (0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4)")
    return _F8F6F4_CODES[code]


def _sel_bit(mods: dict, key: str, i: int, default: int) -> int:
    """Bit ``i`` of a VOP3P select modifier as program.record gives it: a list of per-source
    bits, or absent when at its default (op_sel 0, op_sel_hi all ones)."""
    v = mods.get(key)
    if v is None:
        return default
    return int(v[i]) if i < len(v) else 0


def mfma_f8f6f4(x, ins, w, ocp_fp8=True):
    scaled = ins.base.startswith("v_mfma_scale_")
    base = ins.base.replace("v_mfma_scale_", "v_mfma_", 1)
    t = _table()[base]
    m, n_, k = t["m"], t["n"], t["k"]
    dst, a_op, b_op, c_op = ins.ops[:4]
    fa = _format(ins.mods.get("cbsz", 0), "cbsz", ins.mnemonic)
    fb = _format(ins.mods.get("blgp", 0), "blgp", ins.mnemonic)
    ra, la_, loa, ba, ga = _packed(base, fa, "A")
    rb, lb_, lob, bb, gb = _packed(base, fb, "B")
    A = ocp.decode(_unpack(_regs(x, a_op, w, ga), ra, la_, loa, ba), _OCP[fa])  # (n, m, k)
    B = ocp.decode(_unpack(_regs(x, b_op, w, gb), rb, lb_, lob, bb), _OCP[fb])  # (n, k, n)
    nw = len(w)
    nb = k // SCALE_BLOCK
    if scaled:
        byte_a = _sel_bit(ins.mods, "op_sel", 0, 0) | _sel_bit(ins.mods, "op_sel_hi", 0, 1) << 1
        byte_b = _sel_bit(ins.mods, "op_sel", 1, 0) | _sel_bit(ins.mods, "op_sel_hi", 1, 1) << 1
        sa = (_regs(x, ins.ops[4], w, 1)[:, 0] >> np.uint32(8 * byte_a)) & np.uint32(0xFF)  # (n, 64)
        sb = (_regs(x, ins.ops[5], w, 1)[:, 0] >> np.uint32(8 * byte_b)) & np.uint32(0xFF)
        blk = np.arange(nb)
        scale_a = ocp.e8m0_to_f32(sa[:, np.arange(m)[:, None] + m * blk]).astype(np.float64)  # (n, m, nb)
        scale_b = ocp.e8m0_to_f32(sb[:, np.arange(n_)[None, :] + n_ * blk[:, None]]).astype(np.float64)  # (n, nb, n)
        part = np.einsum("wibk,wbkj->wbij", A.reshape(nw, m, nb, SCALE_BLOCK),
                         B.reshape(nw, nb, SCALE_BLOCK, n_))  # per-block products
        prod = np.einsum("wib,wbj,wbij->wij", scale_a, scale_b, part)
    else:
        prod = np.matmul(A, B)
    ld = Layout(t["D"], 1, m, n_)
    gD = t["gprs"]["D"]
    if c_op.kind == "imm":
        C = _decode(np.full((nw, m, n_), c_op.value, np.uint64), "FP32")
    else:
        C = _decode(_gather(_regs(x, c_op, w, gD), ld), "FP32")[:, 0]
    with np.errstate(invalid="ignore", over="ignore"):
        bits = (prod + C).astype(np.float32).view(np.uint32)
    out = np.zeros((nw, gD, WAVE), np.uint32)
    out.reshape(nw, -1)[:, ld.flat[0]] = bits
    x.vwrite_n(dst, w, out, None)


def _bind(fn, ocp_fp8: bool):
    if not ocp_fp8:
        return fn
    return lambda x, ins, w: fn(x, ins, w, ocp_fp8=True)


def ld_scale_alone(x, ins, w):
    """``v_mfma_ld_scale_b32`` not followed by a scaled f8f6f4 MFMA (the decoder pairs that case into
    ``v_mfma_scale_*``, asm/vop_scale.py). Its only documented meaning is as that prefix: it writes no
    register, and neither the CDNA4 guide nor LLVM 22 says what a lone one does to later MFMAs (whether
    a scale latch persists), so the emulator stops rather than guess."""
    raise WaveFault(f"{ins.mnemonic} is only defined as the first half of v_mfma_scale_f32_*_f8f6f4 (an f8f6f4 "
                    "MFMA with abid bit 0 set must follow it); the effect of a lone one is not documented")


def lookup(base: str):
    if not base.startswith(("v_mfma", "v_smfmac")):
        return None  # (without loading the layout data)
    if base == "v_mfma_ld_scale_b32":
        return ld_scale_alone
    from gcnforge.isa import table

    ocp_fp8 = table.processor(table.active_target()) in OCP_FP8  # the target the code is decoded for
    if base.startswith("v_mfma_scale_"):
        base = base.replace("v_mfma_scale_", "v_mfma_", 1)
    t = _table().get(base)
    if t is None:
        return None
    if "formats" in t:
        return mfma_f8f6f4
    return _bind(smfmac if t.get("sparse") else mfma, ocp_fp8)

"""Tile moves: global memory -> LDS -> MFMA operand registers, and MFMA results -> global.

* ``global_to_lds(k, rsrc, goff, grow_bytes, lds, layout, tid, threads, vec=16)``: the work-group
  copies a ``layout.rows x layout.cols`` tile whose row ``r`` starts at byte ``goff + r *
  grow_bytes`` of the buffer ``rsrc`` into LDS at ``lds`` (in ``layout``), ``vec`` bytes per lane
  and access (``buffer_load_dwordx4`` / ``ds_write_b128`` for 16); loads past the buffer's end
  read 0 (the V# clamps). Returns the LDS write tokens (wait on them, then ``s_barrier``).
* ``lds_to_fragment(k, lds, layout, mnemonic, matrix)``: one wave reads the A (``m x k``) or B
  operand of an MFMA from an LDS tile; the tile holds A row-major (``m`` rows of ``k``) and B
  transposed (``n`` rows of ``k``), so each lane's K-run is one ``ds_read``. Returns the operand
  registers and the read tokens.
* ``fragment_to_global(k, acc, rsrc, goff, grow_bytes, mnemonic)``: stores the f32/i32 result
  ``acc`` (``m x n``) to rows ``grow_bytes`` apart from byte ``goff``; lanes past the buffer's
  end are dropped by the V#. ``store_result_tile(k, acc, ptr, row0, col0, ld, mnemonic)``: the
  same into a row-major matrix of ``ld`` columns at ``ptr``, the tile at (``row0``, ``col0``).

Per-lane rows and columns come from the MFMA layout facts (``gcnforge.isa.mfma_layout``): each
is a sum of bit fields of the lane id (``fit_lane_function``), emitted with ``v_bfe_u32`` and
shifts; a layout that is not of that form is refused.
"""

from __future__ import annotations

import numpy as np

from gcnforge.lib.buffer import buffer_load, buffer_store
from gcnforge.lib.layout import LdsLayout, _mad, mfma_fragment
from gcnforge.lib.mask import lane_id
from gcnforge.lib.errors import fail as _fail

_LANES = np.arange(64)


def fit_lane_function(values) -> list[tuple[int, int, int]] | None:
    """``values[L]`` (64 ints) as ``c0 + sum(bits b..b+w of L) * weight`` fields ``(bit, width,
    weight)``, or None when it is not linear in the lane's bits."""
    v = np.asarray(values, np.int64)
    w = [int(v[1 << b] - v[0]) for b in range(6)]
    pred = v[0] + sum(((_LANES >> b) & 1) * w[b] for b in range(6))
    if not (pred == v).all():
        return None
    fields: list[tuple[int, int, int]] = []
    for b in range(6):
        if w[b] == 0:
            continue
        if fields and fields[-1][0] + fields[-1][1] == b and fields[-1][2] << fields[-1][1] == w[b]:
            s, n, c = fields[-1]
            fields[-1] = (s, n + 1, c)
        else:
            fields.append((b, 1, w[b]))
    return fields


def emit_lane_function(k, lane, const: int, fields):
    """A VGPR of ``const + sum(field(lane) * weight)`` (see ``fit_lane_function``)."""
    acc = None
    for b, n, c in fields:
        f = k.v_bfe_u32(lane, b, n) if b or n < 6 else lane
        t = _mad(k, f, c, 0)
        acc = t if acc is None else k.v_add_u32(t, acc)
    if acc is None:
        return k.v_mov_b32(const)
    return acc if const == 0 else k.v_add_u32(const, acc)


def _lane_value(k, lane, values, what: str):
    fields = fit_lane_function(values)
    if fields is None:
        raise _fail(f"{what} is not a sum of lane-id bit fields")
    return emit_lane_function(k, lane, int(values[0]), fields)


def global_to_lds(k, rsrc, goff, grow_bytes: int, lds, layout: LdsLayout, tid, threads: int, vec: int = 16):
    if vec not in (4, 8, 16) or (layout.cols * layout.esize) % vec or vec > layout.contiguous_bytes():
        raise _fail(f"global_to_lds: {vec}-byte pieces must tile a row and stay contiguous in {layout.swizzle}")
    per_row = layout.cols * layout.esize // vec
    total = layout.rows * per_row
    if total % threads or per_row & (per_row - 1):
        raise _fail(f"global_to_lds: {total} pieces do not split over {threads} threads in whole rows")
    shift = per_row.bit_length() - 1
    tokens = []
    for n in range(total // threads):
        c = tid if n == 0 else k.v_add_u32(n * threads, tid)
        row = k.v_lshrrev_b32(shift, c)
        col = k.v_and_b32(per_row - 1, c)
        g = _mad(k, row, grow_bytes, k.v_lshlrev_b32((vec).bit_length() - 1, col))
        v, t = buffer_load(k, rsrc, g, vec // 4, soffset=goff)
        k.wait(t)
        a = layout.emit_offset(k, row, _mad(k, col, vec // layout.esize, 0))
        tokens.append(k.inst(f"ds_write_b{8 * vec}", k.v_add_u32(lds, a), v))
    return tokens


def lds_to_fragment(k, lds, layout: LdsLayout, mnemonic: str, matrix: str, k0: int = 0, fmt: str | None = None):
    """The A or B operand registers of ``mnemonic`` read from ``layout`` (block 0), K starting
    at column ``k0`` of the tile -> (registers, read token)."""
    fr = mfma_fragment(mnemonic, matrix, fmt)
    if fr.bits > 32 or fr.shape[0] != 1:
        raise _fail(f"lds_to_fragment: {mnemonic} {matrix} ({fr.bits}-bit, {fr.shape[0]} blocks) is not supported")
    per = 32 // fr.bits
    n = fr.registers * per  # elements of a lane, in register order
    # K (A: axis 2, B: axis 1) of each lane's elements, in register order, and its M/N index
    kk = fr.reg * per + fr.lo // fr.bits
    order = np.lexsort((kk[0].ravel(),))
    if matrix == "A":
        mi, ki = np.broadcast_to(np.arange(fr.shape[1])[:, None], fr.shape[1:]), np.broadcast_to(np.arange(fr.shape[2]), fr.shape[1:])
    else:
        mi, ki = np.broadcast_to(np.arange(fr.shape[2]), fr.shape[1:]), np.broadcast_to(np.arange(fr.shape[1])[:, None], fr.shape[1:])
    row = np.zeros(64, np.int64)
    col = np.zeros(64, np.int64)
    lane, slot = fr.lane[0].ravel()[order], kk[0].ravel()[order]
    for L in range(64):
        sel = lane == L
        ks = ki.ravel()[order][sel]
        if not (slot[sel] == np.arange(n)).all() or not (ks == ks[0] + np.arange(n)).all():
            raise _fail(f"lds_to_fragment: a lane's {matrix} elements of {mnemonic} are not one K-run")
        row[L], col[L] = mi.ravel()[order][sel][0], ks[0]
    nbytes = n * fr.bits // 8
    if nbytes > layout.contiguous_bytes():
        raise _fail(f"lds_to_fragment: {nbytes}-byte lane runs cross the swizzle's {layout.contiguous_bytes()}-byte chunks")
    lid = lane_id(k)
    r = _lane_value(k, lid, row, f"{mnemonic} {matrix} row")
    c = _lane_value(k, lid, col + k0, f"{mnemonic} {matrix} column")
    addr = k.v_add_u32(lds, layout.emit_offset(k, r, c))
    return k.inst(f"ds_read_b{8 * nbytes}", addr)


def fragment_to_global(k, acc, rsrc, goff, grow_bytes: int, mnemonic: str):
    """Store the 32-bit result registers ``acc`` of ``mnemonic`` (block 0) as an ``m x n`` tile."""
    fr = mfma_fragment(mnemonic, "D")
    if fr.bits != 32 or fr.shape[0] != 1:
        raise _fail(f"fragment_to_global: {mnemonic} results are not one block of 32-bit values")
    regs = acc.split() if acc.width > 1 else [acc]
    # element at (register r, lane L): row i = rbase[r] + ilane[L], column j = jlane[L]
    pos = {}
    for i in range(fr.shape[1]):
        for j in range(fr.shape[2]):
            pos[(int(fr.reg[0, i, j]), int(fr.lane[0, i, j]))] = (i, j)
    rows = np.array([[pos[(r, L)][0] for L in range(64)] for r in range(len(regs))])
    cols = np.array([[pos[(r, L)][1] for L in range(64)] for r in range(len(regs))])
    if not (cols == cols[0]).all() or not (rows - rows[:, :1] == rows[0] - rows[0, 0]).all():
        raise _fail(f"fragment_to_global: {mnemonic}'s result layout is not row(reg) + row(lane)")
    lid = lane_id(k)
    base = _mad(k, _lane_value(k, lid, rows[0] - rows[0, 0], "result row"), grow_bytes,
                k.v_lshlrev_b32(2, _lane_value(k, lid, cols[0], "result column")))
    tokens = []
    for r, v in enumerate(regs):
        off = int(rows[r, 0]) * grow_bytes
        if off < 4096:
            tokens.append(buffer_store(k, v, rsrc, base, soffset=goff, imm=off))
        else:
            tokens.append(buffer_store(k, v, rsrc, k.v_add_u32(off, base), soffset=goff))
    return tokens


def store_result_tile(k, acc, ptr, row0, col0, ld: int, mnemonic: str, nbytes=0xFFFFFFFF):
    """``acc`` (the 32-bit result of ``mnemonic``) into the row-major matrix at ``ptr`` (an SGPR
    pair; ``ld`` columns, ``nbytes`` long: rows past it are dropped) with its tile's first
    element at row ``row0``, column ``col0`` (SGPRs or ints)."""
    from gcnforge.lib.buffer import make_buffer_rsrc

    if isinstance(row0, int) and isinstance(col0, int):
        goff = 4 * (row0 * ld + col0)
    else:
        r = k.s_mul_i32(row0, k.s_mov_b32(ld)) if not isinstance(row0, int) else row0 * ld
        goff = k.s_lshl_b32(k.s_add_u32(r, col0), 2)
    return fragment_to_global(k, acc, make_buffer_rsrc(k, ptr, nbytes), goff, 4 * ld, mnemonic)

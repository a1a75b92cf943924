"""Cross-lane source modifiers: DPP and SDWA (ISA guide "DPP" and "SDWA" operand formats).

``dpp_source`` returns, for every lane, the value of the lane it reads and whether that
source lane is valid (inside the row/wave and enabled in EXEC). The write mask combines
``row_mask``/``bank_mask``, EXEC and validity: invalid sources read 0 with
``bound_ctrl:0`` (BOUND_CTRL=1) and otherwise leave the destination lane unwritten.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WAVE

LANE = np.arange(WAVE)
ROW = LANE // 16
IN_ROW = LANE % 16


def dpp_lanes(ctrl: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(source lane per lane, valid per lane) for a DPP control as LLVM prints it."""
    kind, arg = ctrl
    src = LANE.copy()
    ok = np.ones(WAVE, dtype=bool)
    if kind == "quad_perm":
        src = (LANE & ~3) + np.array(arg)[LANE & 3]
    elif kind == "row_shl":
        s = IN_ROW + arg
        ok = s < 16
        src = ROW * 16 + np.minimum(s, 15)
    elif kind == "row_shr":
        s = IN_ROW - arg
        ok = s >= 0
        src = ROW * 16 + np.maximum(s, 0)
    elif kind == "row_ror":
        src = ROW * 16 + (IN_ROW - arg) % 16
    elif kind in ("wave_shl", "wave_shl:1"):
        src = LANE + 1
        ok = src < WAVE
        src = np.minimum(src, WAVE - 1)
    elif kind in ("wave_shr", "wave_shr:1"):
        src = LANE - 1
        ok = src >= 0
        src = np.maximum(src, 0)
    elif kind in ("wave_rol", "wave_rol:1"):
        src = (LANE + 1) % WAVE
    elif kind in ("wave_ror", "wave_ror:1"):
        src = (LANE - 1) % WAVE
    elif kind == "row_mirror":
        src = ROW * 16 + 15 - IN_ROW
    elif kind == "row_half_mirror":
        src = (LANE & ~7) + 7 - (LANE & 7)
    elif kind == "row_bcast":
        if arg == 15:  # lane 15 of each row feeds the next row (rows 1-3)
            src = np.where(ROW > 0, (ROW - 1) * 16 + 15, LANE)
            ok = ROW > 0
        elif arg == 31:  # lane 31 feeds rows 2 and 3
            src = np.where(ROW >= 2, 31, LANE)
            ok = ROW >= 2
        else:
            raise ValueError(f"row_bcast:{arg}")
    elif kind == "row_newbcast":
        # gfx90a+: lane ``arg`` of each row of 16 feeds the whole row (LLVM AMDGPUModifierSyntax
        # "dpp32_ctrl"/"dpp64_ctrl": "Broadcast a thread within a row to the whole row"); the only
        # control 64-bit (DP ALU) DPP has
        src = ROW * 16 + arg
    else:
        raise ValueError(f"unknown DPP control {kind}")
    return src.astype(np.int64), ok


def dpp_masks(row_mask: int, bank_mask: int) -> np.ndarray:
    return (((row_mask >> ROW) & 1) & ((bank_mask >> ((LANE >> 2) & 3)) & 1)).astype(bool)


def dpp_source(raw: np.ndarray, exec_lanes: np.ndarray, mods: dict):
    """raw (n, 64) -> (values (n, 64), write_ok (n, 64))."""
    src, ok = dpp_lanes(mods["dpp"])
    vals = raw[:, src]
    valid = ok[None, :] & exec_lanes[:, src]
    bound_zero = "bound_ctrl" in mods
    if bound_zero:
        vals = np.where(valid, vals, 0).astype(raw.dtype)
        write = np.ones_like(valid)
    else:
        write = valid
    write = write & dpp_masks(mods.get("row_mask", 0xF), mods.get("bank_mask", 0xF))[None, :]
    return vals, write


SDWA_SEL = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8),
            "WORD_0": (0, 16), "WORD_1": (16, 16), "DWORD": (0, 32)}


def sdwa_select(raw: np.ndarray, sel: str, sext: bool, as_float16: bool) -> np.ndarray:
    """Extract the selected byte/word of a uint32 array (zero/sign-extended to 32 bits)."""
    off, bits = SDWA_SEL.get(sel, (0, 32))
    if bits == 32:
        return raw
    v = (raw.astype(np.uint32) >> np.uint32(off)) & np.uint32((1 << bits) - 1)
    if as_float16:
        return v
    if sext:
        sign = np.uint32(1 << (bits - 1))
        v = ((v ^ sign).astype(np.int64) - int(sign)).astype(np.uint32)
    return v


def sdwa_dst(old: np.ndarray, new: np.ndarray, sel: str, unused: str) -> np.ndarray:
    off, bits = SDWA_SEL.get(sel, (0, 32))
    if bits == 32:
        return new
    m = np.uint32(((1 << bits) - 1) << off)
    placed = (new.astype(np.uint32) << np.uint32(off)) & m
    if unused == "UNUSED_PRESERVE":
        return (old & ~m) | placed
    if unused == "UNUSED_SEXT":
        sign = (placed >> np.uint32(off + bits - 1)) & np.uint32(1)
        hi = np.uint32((0xFFFFFFFF << (off + bits)) & 0xFFFFFFFF)
        return placed | np.where(sign != 0, hi, np.uint32(0))
    return placed

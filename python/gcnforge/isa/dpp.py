"""DPP_CTRL, the 9-bit control in a DPP instruction's second dword: every value with its name
and argument as LLVM's AMDGPU assembler spells them (AMD Instinct MI300 ISA Reference Guide,
"DPP_CTRL Enumeration"; gfx90a+ ``row_newbcast``, 0x150-0x15F, from LLVM's SIDefines.h
``DppCtrl::ROW_NEWBCAST_FIRST/LAST``, "Broadcast a thread within a row to the whole row" in
AMDGPUModifierSyntax). The one table the assembler, the builder, the translator and the
emulator read.
"""

from __future__ import annotations

QUAD_PERM_LAST = 0xFF  # 0x00-0xFF: quad_perm, two bits per lane of a quad
ROW_SHIFT = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120}  # + 1..15 lanes within a row
WAVE = {"wave_shl": 0x130, "wave_rol": 0x134, "wave_shr": 0x138, "wave_ror": 0x13C}  # by 1 lane
FLAG = {"row_mirror": 0x140, "row_half_mirror": 0x141}
ROW_BCAST = {15: 0x142, 31: 0x143}  # lane 15 of each row to the next; lane 31 to rows 2 and 3
ROW_NEWBCAST = 0x150  # + lane 0..15 of each row to its whole row (gfx90a+)
DP_ALU = range(ROW_NEWBCAST, ROW_NEWBCAST + 16)  # the only controls 64-bit (DP ALU) DPP takes
NAMES = ("quad_perm", *ROW_SHIFT, *WAVE, *FLAG, "row_bcast", "row_newbcast")


def decode(v: int) -> tuple[str, object] | None:
    """``(name, argument)`` of a control value: quad_perm ``[a, b, c, d]``; row_shl/row_shr/
    row_ror and row_newbcast the lane count or lane; wave_* 1; row_mirror/row_half_mirror
    None; row_bcast 15 or 31. None for a value no control uses."""
    if 0 <= v <= QUAD_PERM_LAST:
        return "quad_perm", [(v >> (2 * i)) & 3 for i in range(4)]
    for name, base in ROW_SHIFT.items():
        if base < v <= base + 15:
            return name, v - base
    for name, code in WAVE.items():
        if v == code:
            return name, 1
    for name, code in FLAG.items():
        if v == code:
            return name, None
    for lane, code in ROW_BCAST.items():
        if v == code:
            return "row_bcast", lane
    if v in DP_ALU:
        return "row_newbcast", v - ROW_NEWBCAST
    return None


def text(v: int) -> str | None:
    """LLVM's spelling of a control value (``row_newbcast:3``), None for an unused value."""
    got = decode(v)
    if got is None:
        return None
    name, arg = got
    if name == "quad_perm":
        return "quad_perm:[" + ",".join(str(x) for x in arg) + "]"
    return name if arg is None else f"{name}:{arg}"


def encode(name: str, arg: object = None) -> int:
    """The control value of ``name`` with its argument (as ``decode`` returns them); ValueError
    naming what the control takes when the argument does not fit."""
    if name == "quad_perm":
        if not (isinstance(arg, list | tuple) and len(arg) == 4 and all(isinstance(x, int) and 0 <= x <= 3
                                                                        for x in arg)):
            raise ValueError(f"quad_perm takes 4 lane selects in 0..3, got {arg!r}")
        return arg[0] | arg[1] << 2 | arg[2] << 4 | arg[3] << 6
    if name in ROW_SHIFT:
        if not (isinstance(arg, int) and 1 <= arg <= 15):
            raise ValueError(f"{name} takes a shift in 1..15, got {arg!r}")
        return ROW_SHIFT[name] + arg
    if name in WAVE:
        if arg not in (1, True):
            raise ValueError(f"{name} only shifts by 1, got {arg!r}")
        return WAVE[name]
    if name in FLAG:
        return FLAG[name]
    if name == "row_bcast":
        if arg not in ROW_BCAST or isinstance(arg, bool):
            raise ValueError(f"row_bcast takes 15 or 31, got {arg!r}")
        return ROW_BCAST[arg]
    if name == "row_newbcast":
        if not (isinstance(arg, int) and not isinstance(arg, bool) and 0 <= arg <= 15):
            raise ValueError(f"row_newbcast takes a lane in 0..15, got {arg!r}")
        return ROW_NEWBCAST + arg
    raise ValueError(f"unknown DPP control {name!r}")

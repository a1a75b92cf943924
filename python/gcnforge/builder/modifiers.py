"""Friendly spellings for packed instruction fields, turned into the table's fields.

* DPP controls (AMD Instinct MI300 ISA Reference Guide, "DPP" / ``DPP_CTRL`` enumeration;
  spellings as LLVM's AMDGPU assembler): ``quad_perm=[a, b, c, d]``, ``row_shl=n``,
  ``row_shr=n``, ``row_ror=n`` (n in 1..15), ``wave_shl=1``, ``wave_rol=1``, ``wave_shr=1``,
  ``wave_ror=1``, ``row_mirror=True``, ``row_half_mirror=True``, ``row_bcast=15|31``
  -> ``dpp_ctrl``.
* ``s_waitcnt`` counters (packed by ``gcnforge.isa.waitcnt``; a counter not given waits
  for nothing: its maximum) -> the ``simm16`` immediate.

Both are checked against ``llvm-mc`` encodings in ``tests/builder/test_modifiers.py``.
"""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import waitcnt as _waitcnt

_ROW_SHIFTS = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120}
_WAVE = {"wave_shl": 0x130, "wave_rol": 0x134, "wave_shr": 0x138, "wave_ror": 0x13C}
_FLAGS = {"row_mirror": 0x140, "row_half_mirror": 0x141}
_BCAST = {15: 0x142, 31: 0x143}
DPP_SPELLINGS = frozenset({"quad_perm", "row_bcast", *_ROW_SHIFTS, *_WAVE, *_FLAGS})


def dpp_ctrl(mods: dict) -> int | None:
    """Pop DPP spellings from ``mods``; return the ``dpp_ctrl`` value (None if none given)."""
    given = [k for k in mods if k in DPP_SPELLINGS]
    if not given:
        return None
    if len(given) > 1:
        raise Diagnostic(f"one DPP control at a time, got {', '.join(given)}")
    k = given[0]
    v = mods.pop(k)
    if k == "quad_perm":
        if not (isinstance(v, list | tuple) and len(v) == 4 and all(isinstance(x, int) and 0 <= x <= 3 for x in v)):
            raise Diagnostic(f"quad_perm takes 4 lane selects in 0..3, got {v!r}")
        return v[0] | v[1] << 2 | v[2] << 4 | v[3] << 6
    if k in _ROW_SHIFTS:
        if not (isinstance(v, int) and 1 <= v <= 15):
            raise Diagnostic(f"{k} takes a shift in 1..15, got {v!r}")
        return _ROW_SHIFTS[k] + v
    if k in _WAVE:
        if v not in (1, True):
            raise Diagnostic(f"{k} only shifts by 1, got {v!r}")
        return _WAVE[k]
    if k in _FLAGS:
        if v is not True:
            raise Diagnostic(f"{k} is a flag: {k}=True")
        return _FLAGS[k]
    if v not in _BCAST:
        raise Diagnostic(f"row_bcast takes 15 or 31, got {v!r}")
    return _BCAST[v]


WAITCNT_MAX = _waitcnt.MAX


def waitcnt(vmcnt: int | None = None, expcnt: int | None = None, lgkmcnt: int | None = None) -> int:
    """The ``s_waitcnt`` immediate for these counters."""
    vals = {"vmcnt": vmcnt, "expcnt": expcnt, "lgkmcnt": lgkmcnt}
    for name, v in vals.items():
        if v is not None and not (isinstance(v, int) and 0 <= v <= WAITCNT_MAX[name]):
            raise Diagnostic(f"s_waitcnt {name} must be in 0..{WAITCNT_MAX[name]}, got {v!r}")
    return _waitcnt.pack(vmcnt, expcnt, lgkmcnt)

"""Friendly spellings for packed instruction fields, turned into the table's fields.

* DPP controls (AMD Instinct MI300 ISA Reference Guide, "DPP" / ``DPP_CTRL`` enumeration;
  spellings as LLVM's AMDGPU assembler): ``quad_perm=[a, b, c, d]``, ``row_shl=n``,
  ``row_shr=n``, ``row_ror=n`` (n in 1..15), ``wave_shl=1``, ``wave_rol=1``, ``wave_shr=1``,
  ``wave_ror=1``, ``row_mirror=True``, ``row_half_mirror=True``, ``row_bcast=15|31``,
  ``row_newbcast=n`` (n in 0..15, gfx90a+; the only control of 64-bit DPP) -> ``dpp_ctrl``
  (values: ``gcnforge.isa.dpp``).
* ``s_waitcnt`` counters (packed by ``gcnforge.isa.waitcnt``; a counter not given waits
  for nothing: its maximum) -> the ``simm16`` immediate.

Both are checked against ``llvm-mc`` encodings in ``tests/builder/test_modifiers.py``.
"""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import dpp
from gcnforge.isa import waitcnt as _waitcnt

DPP_SPELLINGS = frozenset(dpp.NAMES)


def dpp_ctrl(mods: dict) -> int | None:
    """Pop DPP spellings from ``mods``; return the ``dpp_ctrl`` value (None if none given)."""
    given = [k for k in mods if k in DPP_SPELLINGS]
    if not given:
        return None
    if len(given) > 1:
        raise Diagnostic(f"one DPP control at a time, got {', '.join(given)}")
    k = given[0]
    v = mods.pop(k)
    if k in dpp.FLAG and v is not True:
        raise Diagnostic(f"{k} is a flag: {k}=True")
    try:
        return dpp.encode(k, v)
    except ValueError as e:
        raise Diagnostic(str(e)) from None


WAITCNT_MAX = _waitcnt.MAX


def waitcnt(vmcnt: int | None = None, expcnt: int | None = None, lgkmcnt: int | None = None) -> int:
    """The ``s_waitcnt`` immediate for these counters."""
    vals = {"vmcnt": vmcnt, "expcnt": expcnt, "lgkmcnt": lgkmcnt}
    for name, v in vals.items():
        if v is not None and not (isinstance(v, int) and 0 <= v <= WAITCNT_MAX[name]):
            raise Diagnostic(f"s_waitcnt {name} must be in 0..{WAITCNT_MAX[name]}, got {v!r}")
    return _waitcnt.pack(vmcnt, expcnt, lgkmcnt)

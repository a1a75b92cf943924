"""Where each matrix element of an MFMA / SMFMAC lives: register, bit offset and lane.

The one home of the operand and result fragment layouts (``isa/data/mfma_layouts.json``:
gfx942, printed by AMD's Matrix Instruction Calculator; ``isa/data/mfma_layouts_gfx950.json``:
the MFMAs new in gfx950, from the CDNA4 ISA guide's rule; provenance and what no AMD example
confirms: ``isa/data/mfma_layouts.md``). The emulator executes MFMAs through these layouts and
``gcnforge.lib.layout`` gives kernel authors the same facts; nothing else restates them.

``raw(mnemonic)`` is the JSON entry (shape ``m n k blocks``, ``types``, ``gprs`` and per matrix
``cols`` = register slots ``[register, bit offset, bits]`` and ``cells`` = ``[lane, slot, i, j,
block]``); ``fragment(mnemonic, "A"|"B"|"C"|"D")`` the same as NumPy arrays indexed by
``(block, i, j)``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from gcnforge.record import FrozenRecord

DATA = Path(__file__).parent / "data" / "mfma_layouts.json"
DATA_GFX950 = Path(__file__).parent / "data" / "mfma_layouts_gfx950.json"


@cache
def entries() -> dict:
    """Layouts by mnemonic: gfx942's, plus the MFMAs new in gfx950 (their names are new; which
    target has which instruction is the instruction table's business, ``isa.mfma.names``)."""
    t = dict(json.loads(DATA.read_text())["instructions"])
    t.update(json.loads(DATA_GFX950.read_text())["instructions"])
    return t


def raw(mnemonic: str) -> dict | None:
    """The layout entry of an MFMA (``_e64`` / ``_vgprcd`` ignored), or None."""
    from gcnforge.isa.mfma import base_name

    return entries().get(base_name(mnemonic))


def names() -> tuple[str, ...]:
    return tuple(entries())


class Fragment(FrozenRecord):
    """One matrix's fragment: for element ``[b, i, j]`` (block, row, column) the register
    ``reg`` (dword index within the operand), the lane and the bit offset ``lo`` inside the
    register; ``bits`` per element. A is ``m x k``, B ``k x n``, C and D ``m x n``."""

    __slots__ = _fields = ("mnemonic", "matrix", "shape", "bits", "registers", "reg", "lane", "lo")

    def __init__(self, mnemonic, matrix, shape, bits, registers, reg, lane, lo) -> None:
        for f, v in zip(self._fields, (mnemonic, matrix, shape, bits, registers, reg, lane, lo)):
            object.__setattr__(self, f, v)


@cache
def fragment(mnemonic: str, matrix: str, fmt: str | None = None) -> Fragment:
    """The layout of ``matrix`` (A, B, C or D; C shares D's) of an MFMA. ``fmt``: for gfx950's
    f8f6f4 MFMAs the A/B operand format (FP8, BF8, FP6, BF6, FP4; default FP8)."""
    import numpy as np

    t = raw(mnemonic)
    if t is None:
        raise KeyError(f"no MFMA layout for '{mnemonic}'")
    key = "D" if matrix == "C" else matrix
    if t.get("sparse") and key == "A":
        raise KeyError(f"'{mnemonic}': A is 2:4 compressed (two of each four K per slot): see raw()")
    lay, gprs = t.get(key), t["gprs"].get(key) if "gprs" in t else None
    if "formats" in t and key in ("A", "B"):
        f = t["formats"][fmt or "FP8"]
        lay, gprs = f[key], f["gprs"][key] if isinstance(f["gprs"], dict) else f["gprs"]
    m, n, k, nb = t["m"], t["n"], t["k"], t["blocks"]
    shape = {"A": (nb, m, k), "B": (nb, k, n), "D": (nb, m, n)}[key]
    reg, lane, lo = (np.full(shape, -1, np.int64) for _ in range(3))
    for ln, c, i, j, b in lay["cells"]:
        r, off, _ = lay["cols"][c]
        reg[b, i, j], lane[b, i, j], lo[b, i, j] = r, ln, off
    return Fragment(mnemonic, matrix, shape, lay["cols"][0][2], gprs, reg, lane, lo)

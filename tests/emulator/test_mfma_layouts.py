"""The emulator's CBSZ/ABID/BLGP rules reproduce the layouts AMD's Matrix Instruction
Calculator prints under those modifiers (the vectors stored with the layout data)."""

import json

import numpy as np
import pytest

from gcnforge.emulator import ops_mfma
from gcnforge.isa import mfma_layout

DATA = json.loads(mfma_layout.DATA.read_text())


def _mapping(cells):
    """{(lane, col): set of (i, j, block)} from calculator cells."""
    m = {}
    for lane, c, i, j, b in cells:
        m.setdefault((lane, c), set()).add((i, j, b))
    return m


@pytest.mark.parametrize("vec", DATA["modifier_vectors"], ids=lambda v: f"{v['inst']}{''.join(v['mods'])}")
def test_modifier_rule_matches_calculator(vec):
    t = DATA["instructions"][vec["inst"]]
    base = _mapping(t[vec["matrix"]]["cells"])
    mods = dict(zip(vec["mods"][::2], (int(x) for x in vec["mods"][1::2])))
    # predicted: which elements each (lane, col) register slot feeds under the modifier
    pred = {}
    nb = t["blocks"]
    lane_of = {}  # (i, j, block) -> (lane, col) without modifiers
    for key, elems in base.items():
        for e in elems:
            lane_of[e] = key
    if vec["matrix"] == "B":
        src = ops_mfma._BLGP[mods["--blgp"]](np.arange(64))
        for (lane, c), elems in base.items():
            for e in elems:  # element normally at `lane` is read from lane src[lane]
                pred.setdefault((int(src[lane]), c), set()).add(e)
    else:
        grp = 1 << mods["--cbsz"]
        for (i, j, b), (lane, c) in lane_of.items():
            sb = (b & ~(grp - 1)) | (mods["--abid"] & (grp - 1))
            slane, sc = lane_of[(i, j, sb)]
            pred.setdefault((slane, sc), set()).add((i, j, b))
    assert pred == _mapping(vec["cells"])


def test_layouts_cover_every_element_once():
    for name, t in DATA["instructions"].items():
        for mat, (r, c) in (("A", ("m", "k")), ("B", ("k", "n")), ("D", ("m", "n"))):
            cells = t[mat]["cells"]
            elems = {(i, j, b) for _, _, i, j, b in cells}
            assert len(elems) == t[r] * t[c] * t["blocks"] == len(cells), (name, mat)

"""``isa.dpp``: every DPP_CTRL value gcnforge names, spelled as ``text`` gives it, assembles
with llvm-mc 22 (gfx942) back to that value; names and values round-trip."""

from __future__ import annotations

import re
import subprocess

import pytest

from gcnforge.isa import dpp
from gcnforge.testing import require_llvm

DEFINED = [v for v in range(0x200) if dpp.decode(v) is not None]


def test_every_named_control_is_what_llvm_mc_encodes():
    tools = require_llvm("llvm-mc")
    lines = [f"v_mov_b32_dpp v0, v1 {dpp.text(v)} row_mask:0xf bank_mask:0xf" for v in DEFINED]
    out = subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120, check=True).stdout
    encs = [[int(b, 16) for b in m.split(",")] for m in re.findall(r"encoding: \[([^\]]*)\]", out)]
    assert len(encs) == len(lines)
    for v, enc in zip(DEFINED, encs, strict=True):
        assert (int.from_bytes(bytes(enc[4:8]), "little") >> 8) & 0x1FF == v, dpp.text(v)


def test_names_round_trip_and_the_count():
    # 256 quad_perm, 3 x 15 row shifts, 4 wave shifts, 2 mirrors, 2 row_bcast, 16 row_newbcast
    assert len(DEFINED) == 256 + 45 + 4 + 2 + 2 + 16
    for v in DEFINED:
        assert dpp.encode(*dpp.decode(v)) == v
    assert dpp.decode(0x100) is None and dpp.decode(0x144) is None and dpp.decode(0x160) is None
    assert list(dpp.DP_ALU) == list(range(0x150, 0x160))
    with pytest.raises(ValueError, match="0..15"):
        dpp.encode("row_newbcast", 16)

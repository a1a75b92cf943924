"""DPP control and s_waitcnt spellings of the builder, checked against llvm-mc's encodings
(one llvm-mc run for all cases)."""

from __future__ import annotations

import re
import subprocess
from itertools import product

import pytest

from gcnforge.builder import Module
from gcnforge.builder.modifiers import dpp_ctrl, waitcnt
from gcnforge.diagnostics import Diagnostic
from gcnforge.testing import require_llvm

DPP_CASES = [
    ("quad_perm:[1,0,3,2]", {"quad_perm": [1, 0, 3, 2]}),
    ("quad_perm:[3,3,3,3]", {"quad_perm": [3, 3, 3, 3]}),
    *((f"row_shl:{n}", {"row_shl": n}) for n in (1, 7, 15)),
    *((f"row_shr:{n}", {"row_shr": n}) for n in (1, 8, 15)),
    *((f"row_ror:{n}", {"row_ror": n}) for n in (1, 15)),
    ("wave_shl:1", {"wave_shl": 1}),
    ("wave_rol:1", {"wave_rol": 1}),
    ("wave_shr:1", {"wave_shr": 1}),
    ("wave_ror:1", {"wave_ror": 1}),
    ("row_mirror", {"row_mirror": True}),
    ("row_half_mirror", {"row_half_mirror": True}),
    ("row_bcast:15", {"row_bcast": 15}),
    ("row_bcast:31", {"row_bcast": 31}),
    *((f"row_newbcast:{n}", {"row_newbcast": n}) for n in (0, 3, 15)),
]
WAIT_CASES = [
    dict(zip(("vmcnt", "expcnt", "lgkmcnt"), vals, strict=True))
    for vals in product((None, 0, 5, 15, 16, 63), (None, 0, 7), (None, 0, 15))
    if any(v is not None for v in vals)
]


def _wait_text(c: dict) -> str:
    return "s_waitcnt " + " ".join(f"{k}({v})" for k, v in c.items() if v is not None)


def test_against_llvm_mc():
    tools = require_llvm("llvm-mc")
    lines = [f"v_mov_b32_dpp v0, v1 {spelling} row_mask:0xf bank_mask:0xf" for spelling, _ in DPP_CASES]
    lines += [_wait_text(c) for c in WAIT_CASES]
    out = subprocess.run(
        [tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120, check=True,
    ).stdout
    encs = [[int(b, 16) for b in m.split(",")] for m in re.findall(r"encoding: \[([^\]]*)\]", out)]
    assert len(encs) == len(lines)
    for (spelling, kw), enc in zip(DPP_CASES, encs, strict=False):
        hi = int.from_bytes(bytes(enc[4:8]), "little")
        assert dpp_ctrl(dict(kw)) == (hi >> 8) & 0x1FF, spelling
    for c, enc in zip(WAIT_CASES, encs[len(DPP_CASES):], strict=True):
        assert waitcnt(**c) == int.from_bytes(bytes(enc[0:2]), "little"), _wait_text(c)


def test_builder_uses_them():
    m = Module()
    with m.kernel("k") as k:
        a = k.vgpr()
        mov = k.v_mov_b32(a, row_shr=1)
        k.s_waitcnt(vmcnt=0, lgkmcnt=0)
    op = mov.value.owner
    assert op.mnemonic == "v_mov_b32_dpp"
    assert op.modifiers["dpp_ctrl"] == 0x111 and op.modifiers["row_mask"] == 0xF
    wait = next(o for o in m.top.walk() if getattr(o, "mnemonic", None) == "s_waitcnt")
    assert wait.imm_values == (waitcnt(vmcnt=0, lgkmcnt=0),)


@pytest.mark.parametrize("kw", [{"row_shr": 0}, {"row_shr": 16}, {"quad_perm": [4, 0, 0, 0]}, {"row_bcast": 7},
                                {"row_shr": 1, "row_shl": 1}])
def test_bad_dpp(kw):
    m = Module()
    with m.kernel("k") as k:
        a = k.vgpr()
        with pytest.raises(Diagnostic) as e:
            k.v_mov_b32(a, **kw)
        assert e.value.loc.file == __file__
        k.s_endpgm()


def test_bad_waitcnt():
    with pytest.raises(Diagnostic, match="vmcnt must be in 0..63"):
        waitcnt(vmcnt=64)

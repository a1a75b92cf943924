"""No opcode that LLVM 22 decodes for gfx942 is missing from the table (scalar and memory
encodings; ``python -m tools.isa_gen.coverage`` prints all encodings incl. vector)."""

from __future__ import annotations

import pytest

from gcnforge.isa import table
from gcnforge.testing import require_llvm
from tools.isa_gen import coverage as cov

MINE = ["SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM", "DS", "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF"]


@pytest.mark.slow  # sweeps every LLVM opcode, ~25 s: CI's full pass
def test_no_llvm_opcode_missing():
    require_llvm("llvm-mc")
    res = cov.coverage(MINE)
    missing = {e: m for e, (_, m) in res.items() if m}
    assert not missing, missing
    assert all(n > 0 for n, _ in res.values())


def test_checker_detects_a_gap(monkeypatch):
    require_llvm("llvm-mc")
    real = table.by_opcode
    hidden = table.by_mnemonic("s_add_u32")
    monkeypatch.setattr(table, "by_opcode", lambda e, o: None if (e, o) == ("SOP2", hidden.opcode) else real(e, o))
    res = cov.coverage(["SOP2"])
    assert [m for _, m in res["SOP2"][1]] == ["s_add_u32"]


def test_no_gfx950_opcode_missing():
    require_llvm("llvm-mc")
    res = cov.coverage(MINE, mcpu="gfx950")
    missing = {e: m for e, (_, m) in res.items() if m}
    assert not missing, missing


def test_llvm_crash_does_not_hide_later_probes():
    """llvm-mc -show-encoding segfaults on some decoded MFMAs (see common.CRASHED); the probes
    after the crashing one in the same batch must still be decoded."""
    require_llvm("llvm-mc")
    from tools.isa_gen.common import disassemble

    crash = bytes([0x27, 0x8A, 0xC1, 0xD3, 0xC4, 0x8C, 0x1B, 0xEE])
    nop = bytes([0x00, 0x00, 0x80, 0xBF])
    res = disassemble([nop, crash, nop])
    assert res[1] is None and res[0] is not None and res[2] is not None and res[2].mnemonic == "s_nop"

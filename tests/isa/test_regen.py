"""``python -m tools.isa_gen`` regenerates the committed scalar and memory tables bit for bit
(live against the installed LLVM 22; each takes about a second), and the gfx950 deltas."""

from __future__ import annotations

import pytest

from gcnforge.isa.table import DATA_DIR
from gcnforge.testing import require_llvm
from tools.isa_gen.__main__ import generate


@pytest.mark.parametrize("group", ["scalar", "memory"])
def test_regenerates_bit_for_bit(group):
    require_llvm("llvm-mc")
    committed = (DATA_DIR / f"gfx942_{group}.json").read_text()
    assert generate(group) == committed, f"gfx942_{group}.json is stale: run python -m tools.isa_gen --only {group}"


@pytest.mark.parametrize("group", ["scalar", "memory", "vector"])
def test_gfx950_delta_regenerates_bit_for_bit(group):
    """The gfx950 table, generated from llvm-mc -mcpu=gfx950, is gfx942's plus the committed delta."""
    require_llvm("llvm-mc")
    committed = (DATA_DIR / f"gfx950_{group}.delta.json").read_text()
    assert generate(group, "gfx950") == committed, (
        f"gfx950_{group}.delta.json is stale: run python -m tools.isa_gen --mcpu gfx950 --only {group}")

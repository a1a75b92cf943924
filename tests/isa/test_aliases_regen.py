"""``python -m tools.isa_gen.aliases`` regenerates the committed alias files bit for bit
(gfx942's, and gfx950's delta over it), live against the installed LLVM 22."""

from __future__ import annotations

import pytest

from gcnforge.isa import table
from gcnforge.testing import require_llvm
from tools.isa_gen import aliases


@pytest.mark.slow  # probes llvm-mc for every candidate, ~25 s per target: CI's full pass
@pytest.mark.parametrize("target", table.known_targets())
def test_aliases_regenerate_bit_for_bit(target):
    require_llvm("llvm-mc")
    path = aliases.out_path(target)
    assert aliases.render(target) == path.read_text(), (
        f"{path.name} is stale: run python -m tools.isa_gen.aliases --mcpu {target}")

"""``gcnforge.isa.mfma``: the committed data regenerates bit for bit from AMD's Matrix
Instruction Calculator output, and every MFMA/SMFMAC of the instruction table has its facts."""

from __future__ import annotations

from gcnforge.isa import mfma, table
from tools.isa_gen import mfma as gen


def test_regenerates_bit_for_bit():
    assert gen.OUT.read_text() == gen.render(), "gfx942.mfma.json is stale: run python -m tools.isa_gen.mfma"


def test_every_table_mfma_has_facts():
    ms = {i.mnemonic for i in table.instructions() if i.sem == "mfma"}
    assert ms and all(mfma.info(m) is not None for m in ms)
    for m in ms:
        i = mfma.info(m)
        assert i.passes * 4 == i.cycles and i.passes in (2, 4, 8, 16), m
        assert i.sparse == m.startswith("v_smfmac")

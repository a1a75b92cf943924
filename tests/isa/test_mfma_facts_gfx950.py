"""gfx950's MFMA facts (``isa/data/gfx950.mfma.json``, a delta over gfx942's): regenerated bit
for bit from LLVM 22's gfx950 scheduling model (``llvm-mca -mcpu=gfx950``), the method held
to gfx942 (llvm-mca's RThroughput is the calculator's pass count for every gfx942 MFMA),
every gfx950 MFMA has facts and gfx950's table lacks the removed ones, and the new shapes
agree with the emulator's gfx950 layout data (written from the CDNA4 ISA guide)."""

from __future__ import annotations

import json

from gcnforge.isa import mfma, table
from gcnforge.testing import require_llvm
from tools.isa_gen import mfma as gen


def test_regenerates_bit_for_bit():
    require_llvm("llvm-mca")
    path = gen.OUT.with_name("gfx950.mfma.json")
    assert path.read_text() == gen.render_gfx950(), "stale: run python -m tools.isa_gen.mfma --mcpu gfx950"


def test_method_reproduces_gfx942_passes():
    require_llvm("llvm-mca")
    got = gen.mca_passes(gen.mfma_lines("gfx942"), "gfx942")
    assert len(got) == len(mfma.names("gfx942")) and got == {n: mfma.passes(n, "gfx942") for n in got}


def test_every_gfx950_mfma_has_facts():
    ms = {i.mnemonic for i in table.instructions("gfx950") if i.sem == "mfma"}
    assert set(mfma.names("gfx950")) == ms
    for m in ms:
        i = mfma.info(m, "gfx950")
        assert i.passes * 4 == i.cycles and i.passes in (2, 4, 8, 16), m
        assert i.sparse == m.startswith("v_smfmac")
    assert mfma.info("v_mfma_f32_16x16x8_xf32", "gfx950") is None
    assert mfma.info("v_mfma_f32_16x16x8_xf32", "gfx942") is not None
    with table.use_target("gfx950"):  # the active target is the default
        assert mfma.passes("v_mfma_f64_16x16x4_f64") == 16 and mfma.info("v_mfma_f32_16x16x32_f16").k == 32


def test_new_shapes_agree_with_the_emulator_layouts():
    lay = json.loads((table.DATA_DIR / "mfma_layouts_gfx950.json").read_text())
    for name, v in lay["instructions"].items():
        i = mfma.info(name, "gfx950")
        assert (i.m, i.n, i.k, i.blocks) == (v["m"], v["n"], v["k"], v["blocks"]), name

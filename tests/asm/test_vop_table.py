"""The vector-ALU table against LLVM 22, live: it regenerates bit for bit, and every
(encoding, opcode) LLVM decodes for gfx942 in the vector op spaces is in it."""

from __future__ import annotations

import collections

from gcnforge.isa import table
from gcnforge.isa.table import DATA_DIR
from gcnforge.testing import require_llvm


def test_vector_table_regenerates_bit_for_bit():
    require_llvm("llvm-mc")
    from tools.isa_gen.__main__ import generate

    committed = (DATA_DIR / "gfx942_vector.json").read_text()
    assert generate("vector") == committed, "gfx942_vector.json is stale: run python -m tools.isa_gen --only vector"


def test_every_opcode_llvm_decodes_is_in_the_table():
    """Sweep every opcode value of VOP1 (8-bit), VOP2 (6-bit), VOPC (8-bit), VOP3 (10-bit),
    VOP3P/MAI (7-bit) and the DPP/SDWA forms through llvm-mc --disassemble (sentinel
    templates, see tools/isa_gen/vector.py) and compare with the table."""
    require_llvm("llvm-mc")
    from tools.isa_gen.vector import discover, split_text

    fam_enc = {"VOP1": ("VOP1",), "VOP2": ("VOP2",), "VOPC": ("VOPC",), "VOP3": ("VOP3A", "VOP3B"),
               "VOP3P": ("VOP3P", "VOP3P_MAI")}
    missing = []
    per_family: collections.Counter = collections.Counter()
    for rec in discover():
        mnem = split_text(rec["text"])[0]
        fam = rec["family"]
        encs = fam_enc.get(fam, (fam,))
        found = [i for e in encs if (i := table.by_opcode(e, rec["opcode"])) is not None]
        per_family[fam] += 1
        if mnem == "v_nop" and fam in ("VOP3", "VOP1_SDWA"):  # printed as plain v_nop, assembled by this name
            mnem = "v_nop_e64" if fam == "VOP3" else "v_nop_sdwa"
        if not found or found[0].mnemonic != mnem:
            missing.append((fam, rec["opcode"], mnem))
    assert per_family["VOP1"] > 80 and per_family["VOP3"] > 400 and per_family["VOP3P"] > 70
    assert not missing, f"{len(missing)} LLVM opcodes missing from the table: {missing[:10]}"


def test_table_shape():
    vec = [i for i in table.instructions() if i.encoding.startswith("VOP")]
    by_enc = collections.Counter(i.encoding for i in vec)
    # every MFMA has AV operands and a semantic class; every e32 VOPC names vcc
    for i in vec:
        assert i.sem in ("valu", "trans", "valu_dp", "mfma"), i.mnemonic
        if i.encoding == "VOPC":
            assert i.operands[0].text == "vcc" and "vcc" in i.implicit_defs
        if i.base.startswith("v_cmpx_"):
            assert "exec" in i.implicit_defs
    assert by_enc["VOP3P_MAI"] >= 40
    mfma = [i for i in vec if i.sem == "mfma"]
    assert any("fp8" in i.mnemonic for i in mfma) and any("xf32" in i.mnemonic for i in mfma)
    assert table.by_mnemonic("v_exp_f32_e32").sem == "trans"
    assert table.by_mnemonic("v_fma_f64").sem == "valu_dp"
    assert table.variants("v_add_f32") and {i.encoding for i in table.variants("v_add_f32")} == {
        "VOP2", "VOP3A", "VOP2_DPP", "VOP2_SDWA"}

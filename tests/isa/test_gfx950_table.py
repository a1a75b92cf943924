"""The gfx950 table: gfx942's records with the generated delta applied; lookups pick the
table by ``target=`` or ``use_target``; gfx942 is untouched. Expected instruction sets come
from llvm-mc (the oracle), not from the table."""

from __future__ import annotations

import json

import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import table
from gcnforge.testing import require_llvm
from tools.isa_gen.common import assemble


def test_gfx942_table_is_its_own_files():
    direct = [table.instruction_from_dict(d) for p in sorted(table.DATA_DIR.glob("gfx942_*.json"))
              for d in json.loads(p.read_text())["instructions"]]
    assert list(table.instructions("gfx942")) == direct
    assert table.instructions() == table.instructions("gfx942")  # the default


def test_use_target_switches_and_restores():
    assert table.by_mnemonic("v_prng_b32_e32") is None
    with table.use_target("gfx950:sramecc+:xnack-") as t:
        assert t == "gfx950" and table.active_target() == "gfx950"
        assert table.by_mnemonic("v_prng_b32_e32") is not None
        assert table.by_mnemonic("v_mfma_f32_16x16x8_xf32") is None  # removed on gfx950
    assert table.active_target() == "gfx942"
    assert table.by_mnemonic("v_mfma_f32_16x16x8_xf32") is not None
    with pytest.raises(Diagnostic, match="no instruction table for target 'gfx1100'"):
        with table.use_target("gfx1100"):
            pass


def test_shared_records_are_one_fact():
    """A record gfx950 does not change is stored once (in gfx942's files) and equal in both."""
    delta_keys = {table.record_key(d) for p in table.DATA_DIR.glob("gfx950_*.delta.json")
                  for d in json.loads(p.read_text())["instructions"]}
    a = {(i.encoding, i.opcode, i.mnemonic): i for i in table.instructions("gfx942")}
    b = {(i.encoding, i.opcode, i.mnemonic): i for i in table.instructions("gfx950")}
    shared = set(a) & set(b) - delta_keys
    assert len(shared) > 1800 and all(a[k] == b[k] for k in shared)


@pytest.mark.parametrize("line,gfx950_only", [
    ("v_prng_b32 v1, v2", True),
    ("v_permlane16_swap_b32 v1, v2", True),
    ("v_bitop3_b32 v0, v1, v2, v3", True),
    ("v_cvt_scalef32_pk_fp8_f32 v0, v1, v2, v3", True),
    ("v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[8:11], v[12:15]", True),
    ("v_mfma_i32_16x16x64_i8 v[0:3], v[4:7], v[8:11], v[12:15]", True),
    ("ds_read_b64_tr_b8 v[0:1], v1", True),
    ("global_load_lds_dwordx4 v[0:1], off", True),
    ("v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[8:11]", False),  # gfx942 only
])
def test_membership_follows_llvm(line, gfx950_only):
    require_llvm("llvm-mc")
    mnem = line.split()[0]
    on942 = assemble([line], "gfx942")[0][0] is not None
    on950 = assemble([line], "gfx950")[0][0] is not None
    assert (on942, on950) == ((False, True) if gfx950_only else (True, False))
    assert bool(table.variants(mnem, "gfx942") or table.by_mnemonic(mnem, "gfx942")) == on942
    assert bool(table.variants(mnem, "gfx950") or table.by_mnemonic(mnem, "gfx950")) == on950

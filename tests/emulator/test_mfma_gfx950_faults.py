"""gfx950 f8f6f4 MFMAs with a CBSZ/BLGP value that names no operand format (5-7: llvm-mc accepts
them with 8-dword operands) stop the wave with a located error, not a silent result."""

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.emulator import Device, EmulationError

ASM = """.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.globl k
.p2align 8
.type k,@function
k:
  v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3] {mods}
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 20
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 20
.end_amdhsa_kernel
"""


@pytest.mark.parametrize("mods,word", [("cbsz:5", "cbsz:5"), ("blgp:7", "blgp:7")])
def test_unknown_format_code_is_an_error(mods, word):
    co = read_code_object(assemble(ASM.format(mods=mods), target="gfx950"))
    with pytest.raises(EmulationError) as e:
        Device().run(co, "k", b"", (1, 1, 1), (64, 1, 1))
    assert word in e.value.message and "names no operand format" in e.value.message
    assert "pc=" in str(e.value)



SPARSE = ASM.replace("v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3] {mods}",
                     "{op} v[0:3], v[4:7], v[8:15], v16 {mods}")


@pytest.mark.parametrize("op,mods,sets", [("v_smfmac_f32_16x16x64_f16", "abid:2", 2),
                                          ("v_smfmac_i32_16x16x128_i8", "abid:1", 1)])
def test_smfmac_index_set_out_of_range_is_an_error(op, mods, sets):
    """gfx950 SMFMAC index sets are 16 bits (16-bit sources: two) or 32 bits (8-bit: one); an ABID
    past them selects nothing the CDNA4 guide defines."""
    co = read_code_object(assemble(SPARSE.format(op=op, mods=mods), target="gfx950"))
    with pytest.raises(EmulationError) as e:
        Device().run(co, "k", b"", (1, 1, 1), (64, 1, 1))
    assert mods in e.value.message and f"holds {sets} set" in e.value.message
    assert "pc=" in str(e.value)


@pytest.mark.parametrize("op,mods", [("v_smfmac_f32_16x16x64_f16", "abid:1"), ("v_smfmac_i32_16x16x128_i8", "")])
def test_smfmac_index_set_in_range_runs(op, mods):
    co = read_code_object(assemble(SPARSE.format(op=op, mods=mods), target="gfx950"))
    Device().run(co, "k", b"", (1, 1, 1), (64, 1, 1))


LONE = ASM.replace("v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3] {mods}",
                   "v_mfma_ld_scale_b32 v20, v21\n  {next}").replace("next_free_vgpr 20", "next_free_vgpr 24")


@pytest.mark.parametrize("nxt", ["s_nop 0", "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3]"])
def test_lone_ld_scale_is_an_error(nxt):
    """v_mfma_ld_scale_b32 has a documented meaning only as the prefix of a scaled MFMA (abid bit 0
    set on the f8f6f4 MFMA after it); alone (llvm-objdump prints it as its own instruction) the
    emulator stops with a located error instead of guessing what it does."""
    co = read_code_object(assemble(LONE.format(next=nxt), target="gfx950"))
    with pytest.raises(EmulationError) as e:
        Device().run(co, "k", b"", (1, 1, 1), (64, 1, 1))
    assert "v_mfma_ld_scale_b32 is only defined as the first half" in e.value.message and "pc=" in str(e.value)


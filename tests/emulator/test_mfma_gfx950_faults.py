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


"""Segment addresses when the read-only part of the object crosses a page: ld.lld starts a
new PT_LOAD at alignTo(dot, page) + dot % page, so .text moves a whole page further than a
plain page alignment would put it (found by the random-descriptor test: 22 kernels)."""

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.testing import require_llvm

from .corpus import kernel_source


@pytest.mark.parametrize("kernels", [1, 22, 40, 70])
def test_text_address_and_descriptors_match_lld(kernels):
    require_llvm("llvm-mc", "ld.lld")
    text = '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n' + "".join(
        kernel_source(f"k{i}", ["\t\t.amdhsa_next_free_vgpr 0", "\t\t.amdhsa_accum_offset 4",
                                "\t\t.amdhsa_next_free_sgpr 0"]) for i in range(kernels))
    ours, ref = read_code_object(assemble(text)), read_code_object(assemble(text, toolchain="llvm"))
    assert ours.text_address == ref.text_address
    assert all(ours.kernels[k].descriptor == ref.kernels[k].descriptor for k in ref.kernels)

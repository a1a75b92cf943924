"""An instruction the emulator does not model stops a launch with a located diagnostic, never a
Python error (``ds_read_addtid_b32`` has no address operand and used to end in an IndexError;
found by the issue-28 fuzz run)."""

from __future__ import annotations

import pytest

import gcnforge
from gcnforge.diagnostics import Diagnostic

SRC = """
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_mov_b32 m0, 0
  ds_read_addtid_b32 v1
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 2
  .amdhsa_next_free_sgpr 2
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
"""


def test_ds_read_addtid_is_a_located_not_implemented():
    k = gcnforge.load(gcnforge.assemble(SRC))["k"]
    with pytest.raises(Diagnostic, match=r"pc=0x[0-9a-f]+ 'ds_read_addtid_b32 v1'.*not implemented by the emulator"):
        k(grid=1, block=64, device="emulator")

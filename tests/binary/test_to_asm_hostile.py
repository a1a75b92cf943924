"""Code objects whose data-section headers lie (found by fuzz/harness.py, minimized): turning
them back into assembly (``raise``, ``python -m gcnforge.binary --to-asm``) is a Diagnostic,
not an IndexError, a byte-by-byte loop over a 2**60-byte section, or a section name that
cannot round-trip through the IR's strings."""

from __future__ import annotations

import io
import struct

import pytest
from elftools.elf.elffile import ELFFile

from gcnforge.binary import assemble
from gcnforge.binary.reader import read_code_object
from gcnforge.binary.to_asm import code_object_to_asm
from gcnforge.diagnostics import Diagnostic

SRC = """\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
\t.text
\t.globl k
\t.p2align 8
\t.type k,@function
k:
\ts_endpgm
\t.data
\t.globl table
table:
\t.long 1, 2, 3, 4
\t.rodata
\t.p2align 6
\t.amdhsa_kernel k
\t\t.amdhsa_next_free_vgpr 1
\t\t.amdhsa_next_free_sgpr 1
\t\t.amdhsa_accum_offset 4
\t.end_amdhsa_kernel
"""


def _patched(field: str) -> bytes:
    data = bytearray(assemble(SRC))
    elf = ELFFile(io.BytesIO(bytes(data)))
    shoff, shentsize = elf["e_shoff"], elf["e_shentsize"]
    for i, sec in enumerate(elf.iter_sections()):
        if sec.name == ".data":
            hdr = shoff + i * shentsize
            if field == "size":  # ELF64 Shdr: sh_size at +32
                struct.pack_into("<Q", data, hdr + 32, sec["sh_size"] + 4096)
            elif field == "compressed":  # sh_flags at +8: SHF_COMPRESSED without a compression header
                struct.pack_into("<Q", data, hdr + 8, sec["sh_flags"] | 0x800)
            else:  # the name bytes in .shstrtab
                strtab = elf.get_section(elf["e_shstrndx"])
                data[strtab["sh_offset"] + sec["sh_name"] + 1] = 0xFF
            return bytes(data)
    raise AssertionError("no .data section")


def test_unpatched_object_converts():
    assert "\t.long" in code_object_to_asm(read_code_object(assemble(SRC))) or ".byte" in \
        code_object_to_asm(read_code_object(assemble(SRC)))


@pytest.mark.parametrize("field, words", [("size", "declares"), ("name", "cannot be written"),
                                          ("compressed", "compression")])
def test_lying_section_header_is_a_diagnostic(field, words):
    co = read_code_object(_patched(field))
    with pytest.raises(Diagnostic, match=words):
        code_object_to_asm(co)

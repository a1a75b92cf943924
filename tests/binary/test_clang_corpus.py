"""Acceptance: clang 22's .s for OpenCL C kernels, built-in toolchain vs llvm-mc + ld.lld (live);
and the round trip clang + ld.lld code object -> disassemble -> reassemble (built-in)."""

from __future__ import annotations

import subprocess

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.binary.to_asm import code_object_to_asm
from gcnforge.testing import require_llvm

from .conftest import OPENCL_KERNELS


def _same_objects(ours, ref, name):
    assert ours.target == ref.target
    assert ours.code_object_version == ref.code_object_version
    assert ours.text == ref.text, name
    assert set(ours.kernels) == set(ref.kernels)
    for k in ref.kernels:
        assert ours.kernels[k].descriptor.to_bytes() == ref.kernels[k].descriptor.to_bytes(), (name, k)
        assert ours.kernels[k].code == ref.kernels[k].code
    assert ours.metadata == ref.metadata
    assert ours.relocations == ref.relocations
    for sec in (".note", ".dynsym", ".dynstr", ".rela.dyn", ".rodata", ".text", ".dynamic", ".data"):
        if sec not in ref.sections:
            continue
        a, b = ours.sections[sec], ref.sections[sec]
        assert a[0] == b[0], (name, sec)  # ld.lld's addresses
        if sec in (".rodata", ".data", ".rela.dyn", ".dynamic"):
            assert ours.data[a[1]:a[1] + a[2]] == ref.data[b[1]:b[1] + b[2]], (name, sec)
    for sname, s in ref.symbols.items():
        if s.binding != "LOCAL":
            assert ours.symbols[sname] == s, (name, sname)
    assert _phdrs(ours.data) == _phdrs(ref.data)


def _phdrs(data: bytes) -> list[tuple]:
    """Program headers without memsz (ld.lld pads the relro segment to a page with .relro_padding)."""
    import io

    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(data))
    return [(s["p_type"], s["p_flags"], s["p_offset"], s["p_vaddr"], s["p_filesz"], s["p_align"])
            for s in elf.iter_segments()]


def _llvm_tools_silent(path):
    tools = require_llvm("llvm-readelf", "llvm-objdump")
    for cmd in ([tools["llvm-readelf"], "-a", str(path)],
                [tools["llvm-objdump"], "-d", "--mcpu=gfx942", str(path)]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr == "", (cmd, r.stderr)


@pytest.mark.parametrize("name", sorted(OPENCL_KERNELS))
def test_clang_asm_builtin_matches_llvm(name, clang_asm, tmp_path):
    require_llvm("llvm-mc", "ld.lld")
    text = clang_asm[name]
    ours_bytes = assemble(text, filename=f"{name}.s")
    ours = read_code_object(ours_bytes)
    ref = read_code_object(assemble(text, toolchain="llvm", filename=f"{name}.s"))
    _same_objects(ours, ref, name)
    p = tmp_path / f"{name}.hsaco"
    p.write_bytes(ours_bytes)
    _llvm_tools_silent(p)


@pytest.mark.parametrize("name", sorted(OPENCL_KERNELS))
def test_roundtrip_clang_object(name, clang_objects):
    """clang + ld.lld object -> read -> disassemble -> reassemble: same .text and descriptors.
    (``calls`` and ``const_table`` hold ``sym@rel32@hi`` literals that link to 0xffffffff, an
    inline constant's pattern: they round-trip only through ``lit(0xffffffff)``.)"""
    co = read_code_object(clang_objects[name])
    text = code_object_to_asm(co)
    again = read_code_object(assemble(text, filename=f"{name}.roundtrip.s"))
    assert again.text == co.text
    for k, info in co.kernels.items():
        assert again.kernels[k].descriptor.to_bytes() == info.descriptor.to_bytes(), k
    assert again.metadata == co.metadata
    assert again.text_address == co.text_address


ROUNDTRIP_DATA = """
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl	k
	.protected k
	.p2align	8
	.type	k,@function
k:
	s_load_dwordx2 s[0:1], s[4:5], 0x0
	s_cbranch_scc0 .Lout
	s_waitcnt lgkmcnt(0)
.Lout:
	s_endpgm
.Lk_end:
	.size	k, .Lk_end-k
	.section .rodata,"a",@progbits
	.p2align 4
	.globl table
	.protected table
	.type table,@object
table:
	.long 1, 2, 3, 0xdeadbeef
	.size table, 16
	.p2align 6
	.amdhsa_kernel k
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 9
		.amdhsa_accum_offset 4
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_kernarg_size 8
	.end_amdhsa_kernel
	.section .data,"aw",@progbits
	.p2align 3
	.globl ptrs
	.type ptrs,@object
ptrs:
	.quad table
	.quad .Lanon
.Lanon:
	.long 42
	.size ptrs, 20
	.section .bss,"aw",@nobits
	.p2align 2
	.zero 40
"""


def test_roundtrip_data_sections_and_relocations(tmp_path):
    """llvm-mc + ld.lld object with .rodata/.data/.bss data and RELATIVE64 pointers -> asm -> built-in: same."""
    require_llvm("llvm-mc", "ld.lld")
    co = read_code_object(assemble(ROUNDTRIP_DATA, toolchain="llvm"))
    assert len(co.relocations) == 2
    again = read_code_object(assemble(code_object_to_asm(co)))
    p = tmp_path / "data.hsaco"
    p.write_bytes(again.data)
    _llvm_tools_silent(p)
    assert again.text == co.text and again.relocations == co.relocations
    for sec in (".rodata", ".data", ".bss", ".text", ".dynamic", ".rela.dyn"):
        a, b = again.sections[sec], co.sections[sec]
        assert a[0] == b[0] and a[2] == b[2], sec
        if sec != ".bss":
            assert again.data[a[1]:a[1] + a[2]] == co.data[b[1]:b[1] + b[2]], sec
    assert again.kernels["k"].descriptor == co.kernels["k"].descriptor

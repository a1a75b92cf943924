"""Code objects damaged the way the fuzz harness (``fuzz/harness.py``, obj target with the
emulator launch) damaged them: each launch ends in a located ``Diagnostic`` /
``EmulationError``, never another exception. Inputs are hand-written assembly assembled by
llvm-mc and linked by ld.lld, then (for the ELF cases) one header field patched."""

from __future__ import annotations

import io
import struct
import subprocess

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator import Device
from gcnforge.emulator.executor import EmulationError
from gcnforge.testing import require_llvm

SRC = """
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  v_mov_b32 v0, 0
  {body}
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
  {directives}
.end_amdhsa_kernel
"""


def build(tmp_path, body: str, directives: str = "") -> bytes:
    t = require_llvm("llvm-mc", "ld.lld")
    (tmp_path / "k.s").write_text(SRC.format(body=body, directives=directives))
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj",
                    str(tmp_path / "k.s"), "-o", str(tmp_path / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(tmp_path / "k.o"), "-o", str(tmp_path / "k.so")], check=True)
    return (tmp_path / "k.so").read_bytes()


def launch(code: bytes, grid=(1, 1, 1), block=(64, 1, 1), max_instructions=1000):
    return Device().run(code, "k", b"", grid, block, max_instructions=max_instructions)


def test_clean_kernel_runs(tmp_path):
    assert launch(build(tmp_path, "")).wave_instructions == 2


@pytest.mark.parametrize("cbsz, blocks", [(1, 1), (3, 2)])
def test_mfma_broadcast_larger_than_its_blocks_is_a_fault(tmp_path, cbsz, blocks):
    # llvm-mc encodes any 3-bit cbsz; a group of 2^cbsz blocks needs that many blocks
    # (fuzz seed 1 #10: IndexError in ops_mfma.py)
    mn = "v_mfma_f32_32x32x8_f16 a[0:15]" if blocks == 1 else "v_mfma_f32_32x32x4_2b_f16 a[0:31]"
    text = f"{mn}, v[0:1], v[2:3], 0 cbsz:{cbsz} abid:1"
    with pytest.raises(EmulationError) as e:
        launch(build(tmp_path, text))
    assert f"cbsz:{cbsz}" in e.value.message and f"has {blocks} block" in e.value.message
    assert e.value.loc.text.startswith(mn.split()[0]) and e.value.loc.wave == 0


def _section_header_offset(code: bytes, name: str) -> int:
    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(code))
    for i, sec in enumerate(elf.iter_sections()):
        if sec.name == name:
            return elf["e_shoff"] + i * elf["e_shentsize"]
    raise AssertionError(name)


@pytest.mark.parametrize("sh_type", [0, 1])  # SHT_NULL, SHT_PROGBITS (fuzz seed 1 #836, seed 2 #555)
def test_symbol_table_with_damaged_type(tmp_path, sh_type):
    code = bytearray(build(tmp_path, ""))
    off = _section_header_offset(bytes(code), ".symtab") + 4  # Elf64_Shdr.sh_type
    code[off : off + 4] = struct.pack("<I", sh_type)
    # .symtab is no symbol table any more: the kernel's symbols still come from .dynsym
    assert launch(bytes(code)).wave_instructions == 2
    off = _section_header_offset(bytes(code), ".dynsym") + 4
    code[off : off + 4] = struct.pack("<I", sh_type)
    with pytest.raises(Diagnostic) as e:  # .hash links to .dynsym: pyelftools' own error, as a Diagnostic
        launch(bytes(code))
    assert not isinstance(e.value, EmulationError) and "ELF" in e.value.message


def test_huge_kernarg_size_is_a_located_diagnostic(tmp_path):
    # fuzz seed 2 #792: a damaged kernarg_size became gigabytes of zeros written at launch (a hang)
    code = build(tmp_path, "", ".amdhsa_kernarg_size 4294967295")
    with pytest.raises(Diagnostic) as e:
        launch(code)
    assert "kernarg_size 4294967295" in e.value.message and str(e.value.loc) == "k.kd+0x8 (kernarg_size)"
    assert launch(build(tmp_path, "", ".amdhsa_kernarg_size 4096")).wave_instructions == 2


def test_grid_past_the_dispatch_packet_is_a_diagnostic(tmp_path):
    # hsa_kernel_dispatch_packet_t.grid_size_x is 32 bits (was struct.error)
    with pytest.raises(Diagnostic, match="more than 2.32-1 work-items"):
        launch(build(tmp_path, ""), grid=(1 << 26, 1, 1))


def test_huge_grid_is_ended_by_the_budget_not_listed(tmp_path):
    # 2^25 x 2^25 x 2^25 work-groups: the launch budget ends it after a few batches (the
    # work-group ids used to be listed up front: memory and time without bound); the message
    # names the launch's budget, not what the last batch had left; since the up-front estimate
    # (issue 26) it ends after the first batch, with the estimate
    with pytest.raises(EmulationError, match="over the emulator's budget of 1,000\n"):
        launch(build(tmp_path, ""), grid=(1 << 25,) * 3, block=(64, 1, 1), max_instructions=1000)


@pytest.mark.parametrize("length, offset, what", [
    (14, 4, "past the 64-byte kernarg segment"),  # 56 bytes from offset 0 fit; from offset 16 they do not
    (30, 0, "exceed the 31 user SGPRs"),  # 2 (kernarg_segment_ptr) + 30
])
def test_kernarg_preload_outside_the_segment_is_a_located_diagnostic(tmp_path, length, offset, what):
    # fuzz emu target: a damaged kernarg_preload word read past the kernarg segment
    # ("host read ... not inside a live allocation", no location)
    ok = build(tmp_path, "", ".amdhsa_user_sgpr_kernarg_preload_length 14")
    assert Device().run(ok, "k", bytes(64), (1, 1, 1), (64, 1, 1)).wave_instructions == 2
    code = bytearray(ok)
    kd = _symbol_offset(bytes(code), "k.kd")
    word = length | offset << 7  # user_sgpr_kernarg_preload_length [6:0], _offset [15:7]
    code[kd + 0x3A : kd + 0x3C] = struct.pack("<H", word)
    with pytest.raises(Diagnostic) as e:
        Device().run(bytes(code), "k", bytes(64), (1, 1, 1), (64, 1, 1))
    assert what in e.value.message and str(e.value.loc) == "k.kd+0x3a (kernarg_preload)"


def _symbol_offset(code: bytes, name: str) -> int:
    """File offset of a symbol's bytes (its section's offset + the symbol's place in it)."""
    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(code))
    sym = elf.get_section_by_name(".symtab").get_symbol_by_name(name)[0]
    sec = elf.get_section(sym["st_shndx"])
    return sec["sh_offset"] + sym["st_value"] - sec["sh_addr"]


def test_wide_lds_read_without_lds_reads_zero(tmp_path):
    # fuzz emu seed 7 #4711: ds_read_b64 in a kernel whose descriptor gives it no LDS indexed past
    # the emulator's LDS array (IndexError); out of range, LDS reads return 0 (CDNA3 ISA, "LDS")
    body = """s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_mov_b32 v2, 5
  v_mov_b32 v3, 7
  ds_read_b64 v[2:3], v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx2 v0, v[2:3], s[0:1]
  s_waitcnt vmcnt(0)"""
    dev = Device()
    buf = dev.memory.alloc(8)
    dev.memory.write(buf, b"\xff" * 8)
    dev.run(build(tmp_path, body), "k", struct.pack("<Q", buf), (1, 1, 1), (64, 1, 1))
    assert dev.memory.read(buf, 8) == bytes(8)


def test_huge_kernarg_size_through_the_runtime_is_a_diagnostic(tmp_path):
    # with an explicit layout the runtime pads the kernarg bytes up to the descriptor's
    # kernarg_size: a damaged 4 GiB field must not become 4 GiB of padding before the launch
    import gcnforge
    from gcnforge.runtime.kernargs import ArgLayout

    layout = ArgLayout.slots16(["n:u32"])
    k = gcnforge.load(build(tmp_path, "", ".amdhsa_kernarg_size 4294967295"), device="emulator")["k"]
    with pytest.raises(Diagnostic) as e:
        k.with_layout(layout)(1, grid=(1, 1, 1), block=(64, 1, 1))
    # the runtime refuses it before padding (the emulator would refuse it only after 4 GiB of zeros)
    assert "kernarg segment of 4294967295 bytes" in e.value.message and str(e.value.loc) == "k.kd+0x8 (kernarg_size)"
    ok = gcnforge.load(build(tmp_path, "", ".amdhsa_kernarg_size 64"), device="emulator")["k"]
    ok.with_layout(layout)(1, grid=(1, 1, 1), block=(64, 1, 1))


def test_exec_hi_source_under_the_sanitizer(tmp_path):
    # fuzz --mcpu gfx950 emu seed 2 #4132: s_mov_b32 with exec_hi (the last row of the SGPR file)
    # as its source made the sanitizer read a 64-bit pair past the file (IndexError); exec_hi of a
    # full wave64 is 0xffffffff (CDNA3 ISA, "EXEC")
    body = """s_load_dwordx2 s[0:1], s[0:1], 0x0
  s_mov_b32 s3, exec_hi
  v_mov_b32 v2, s3
  s_waitcnt lgkmcnt(0)
  global_store_dword v0, v2, s[0:1]
  s_waitcnt vmcnt(0)"""
    dev = Device()
    buf = dev.memory.alloc(4)
    dev.memory.write(buf, bytes(4))
    dev.run(build(tmp_path, body), "k", struct.pack("<Q", buf), (1, 1, 1), (64, 1, 1), sanitize=True)
    assert dev.memory.read(buf, 4) == b"\xff" * 4

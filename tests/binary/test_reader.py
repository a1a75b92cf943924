"""read_code_object on code objects built live by clang + ld.lld, checked against llvm-readelf."""

from __future__ import annotations

import json
import subprocess

import msgpack
import pytest

from gcnforge.binary import read_code_object
from gcnforge.diagnostics import Diagnostic
from gcnforge.testing import require_llvm


def _readelf_symbols(path) -> dict[str, tuple[int, int, str]]:
    tools = require_llvm("llvm-readelf")
    out = subprocess.run([tools["llvm-readelf"], "--elf-output-style=JSON", "--dyn-syms", str(path)],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)[0]
    syms = {}
    for entry in doc["DynamicSymbols"]:
        s = entry["Symbol"]
        syms[s["Name"]["Name"]] = (s["Value"], s["Size"], s["Type"]["Name"])
    return syms


def test_reads_clang_objects(clang_objects, tmp_path):
    tools = require_llvm("llvm-readelf")
    for name, data in clang_objects.items():
        path = tmp_path / f"{name}.hsaco"
        path.write_bytes(data)
        co = read_code_object(path)
        assert co.target == "gfx942"
        assert co.code_object_version == 6
        syms = _readelf_symbols(path)
        for kname, k in co.kernels.items():
            value, size, typ = syms[kname]
            assert typ == "Function"
            assert k.entry == value and len(k.code) == size
            assert k.code == co.text[k.code_offset:k.code_offset + size]
            assert syms[kname + ".kd"][0] == k.descriptor_address
            assert k.metadata[".name"] == kname
        assert set(co.kernels) == {k[".name"] for k in co.metadata["amdhsa.kernels"]}
        # The metadata map equals what llvm-readelf decodes from the note (compare a few keys).
        notes = subprocess.run([tools["llvm-readelf"], "--notes", str(path)], check=True,
                               capture_output=True, text=True).stdout
        assert co.metadata["amdhsa.target"] in notes


def test_not_elf():
    with pytest.raises(Diagnostic, match="not an ELF file"):
        read_code_object(b"hello world, this is not an ELF file at all" * 2)


def test_wrong_machine(clang_objects):
    data = bytearray(clang_objects["vadd"])
    data[18:20] = (62).to_bytes(2, "little")  # EM_X86_64
    with pytest.raises(Diagnostic, match="wrong machine 62"):
        read_code_object(bytes(data))


def test_truncated(clang_objects):
    data = clang_objects["vadd"]
    with pytest.raises(Diagnostic, match="truncated"):
        read_code_object(data[: len(data) // 2])


def test_bad_msgpack_note(clang_objects):
    data = bytearray(clang_objects["vadd"])
    co = read_code_object(bytes(data))
    _, off, size = co.sections[".note"]
    # First note: 12-byte header, "AMDGPU\0" padded to 8, then the msgpack desc.
    desc = off + 12 + 8
    data[desc] = 0xC1  # the one byte msgpack never uses
    with pytest.raises(Diagnostic, match="not valid msgpack"):
        read_code_object(bytes(data))
    assert msgpack  # the library the reader uses


def test_descriptor_out_of_range(clang_objects, tmp_path):
    co = read_code_object(clang_objects["vadd"])
    kd_addr = co.kernels["vadd"].descriptor_address
    data = bytearray(clang_objects["vadd"])
    # Point the .kd symbol (in .dynsym and .symtab) far away.
    needle = kd_addr.to_bytes(8, "little") + (64).to_bytes(8, "little")
    assert data.count(needle) >= 1
    data = data.replace(needle, (0x7FFF0000).to_bytes(8, "little") + (64).to_bytes(8, "little"))
    with pytest.raises(Diagnostic, match="out of range"):
        read_code_object(bytes(data))


def test_missing_file(tmp_path):
    with pytest.raises(Diagnostic, match="cannot read"):
        read_code_object(tmp_path / "nope.hsaco")


def test_offload_bundle(clang_objects, tmp_path):
    """HIP fat binaries (clang-offload-bundler output): the gfx942 entry is read."""
    from gcnforge.llvm_tools import require_tool

    bundler = require_tool("clang-offload-bundler")
    a, b = tmp_path / "a.hsaco", tmp_path / "b.hsaco"
    a.write_bytes(clang_objects["vadd"])
    b.write_bytes(clang_objects["mfma"])
    out = tmp_path / "fat.co"
    subprocess.run([bundler, "-type=o", "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx942,"
                    "hipv4-amdgcn-amd-amdhsa--gfx90a", "-input=/dev/null", f"-input={a}", f"-input={b}",
                    f"-output={out}"], check=True, capture_output=True)
    assert list(read_code_object(out).kernels) == ["vadd"]
    assert list(read_code_object(out, target="gfx90a").kernels) == ["mfma"]
    with pytest.raises(Diagnostic, match="0 amdgcn code objects for gfx908"):
        read_code_object(out, target="gfx908")
    # gcnforge info: the gfx942 entry of a several-entry bundle without --target, as before gfx950
    import sys

    info = [sys.executable, "-m", "gcnforge.cli.main", "info", str(out)]
    r = subprocess.run(info, capture_output=True, text=True)
    assert r.returncode == 0 and "target: gfx942" in r.stdout, r.stderr
    data = out.read_bytes()
    with pytest.raises(Diagnostic, match="runs past the end|truncated"):
        read_code_object(data[:200])


@pytest.mark.parametrize("cov, md_version", [(4, [1, 1]), (5, [1, 2]), (6, [1, 2])])
def test_code_object_versions_from_clang(cov, md_version, tmp_path):
    from .conftest import OPENCL_KERNELS, clang_compile

    out = tmp_path / f"v{cov}.hsaco"
    clang_compile(OPENCL_KERNELS["two_kernels"], out, emit_asm=False, extra=(f"-mcode-object-version={cov}",))
    co = read_code_object(out)
    assert co.code_object_version == cov
    assert co.metadata["amdhsa.version"] == md_version
    assert set(co.kernels) == {"k_xy", "k_z"}
    assert co.kernels["k_z"].descriptor.system_vgpr_workitem_id == 2
    assert co.kernels["k_z"].descriptor.system_sgpr_workgroup_id_z == 1


def test_describe_survives_metadata_args_that_are_not_a_list():
    # fuzz harness, obj target seed 0 #4566: a mutated msgpack note whose .args decodes to an
    # int made `gcnforge info` (binary.describe) raise TypeError; it now says so and goes on
    from gcnforge.binary import assemble
    from gcnforge.binary.describe import describe

    src = """.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
"""
    co = read_code_object(assemble(src))
    co.kernels["k"].metadata[".args"] = 5  # what the reader hands over for such a note
    text = describe(co)
    assert "warning: metadata .args is int 5, not a list" in text and ".amdhsa_next_free_vgpr" in text

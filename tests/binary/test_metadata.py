"""The .amdgpu_metadata YAML block -> NT_AMDGPU_METADATA note, compared with llvm-mc + ld.lld live."""

from __future__ import annotations

import re
import subprocess

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.binary.metadata import format_metadata_yaml, parse_metadata_yaml
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.testing import require_llvm

from .corpus import kernel_source

_BLOCK = re.compile(r"^\s*\.amdgpu_metadata\n(.*?)^\s*\.end_amdgpu_metadata", re.M | re.S)


def _stub_kernels(names) -> str:
    base = ["\t\t.amdhsa_next_free_vgpr 1", "\t\t.amdhsa_next_free_sgpr 1", "\t\t.amdhsa_accum_offset 4"]
    return "".join(kernel_source(n, base) for n in names)


def _note_bytes(co) -> bytes:
    _, off, size = co.sections[".note"]
    return co.data[off:off + size]


def _both(text):
    require_llvm("llvm-mc", "ld.lld")
    return read_code_object(assemble(text)), read_code_object(assemble(text, toolchain="llvm"))


def test_clang_metadata_blocks_match_llvm(clang_asm):
    """clang 22's own metadata blocks (all value kinds it emits): equal maps, byte-identical notes."""
    for name, s in clang_asm.items():
        block = _BLOCK.search(s).group(1)
        md = parse_metadata_yaml(block, SourceLoc(name, 1))
        kernels = [k[".name"] for k in md["amdhsa.kernels"]]
        text = '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n' + _stub_kernels(kernels) + \
            "\t.amdgpu_metadata\n" + block + "\t.end_amdgpu_metadata\n"
        ours, ref = _both(text)
        assert ours.metadata == ref.metadata == md
        assert _note_bytes(ours) == _note_bytes(ref), name


TRICKY = {
    "plain_int": "42", "hex": "0x1F", "octal": "017", "binary": "0b101", "negative": "-12",
    "yes": "yes", "on": "On", "n": "n", "false": "FALSE", "true": "true", "quoted_empty": "''", "nan": "NaN", "float": "1.5", "exp": "2e3", "inf": "inf",
    "quoted_int": "'12'", "quoted_bool": "'true'", "word": "float*x", "dq": '"a b"', "empty_list": "[]",
    "flow_list": "[ 1, two, 3.0 ]", "big": "18446744073709551615", "neg_big": "-9223372036854775808",
}


def test_scalar_typing_matches_llvm():
    lines = ["---", "amdhsa.version:", "  - 1", "  - 2"]
    lines += [f"x.{k}: {v}" for k, v in TRICKY.items()]
    lines += ["amdhsa.kernels: []", "..."]
    text = "\t.amdgpu_metadata\n" + "\n".join(lines) + "\n\t.end_amdgpu_metadata\n\t.text\n\ts_endpgm\n"
    ours, ref = _both(text)
    assert repr(ours.metadata) == repr(ref.metadata)  # repr: NaN != NaN
    assert _note_bytes(ours) == _note_bytes(ref)
    assert ref.metadata["x.quoted_int"] == 12  # LLVM types quoted scalars by their text too


def test_readelf_accepts_our_note(clang_asm, tmp_path):
    tools = require_llvm("llvm-readelf")
    block = _BLOCK.search(clang_asm["two_kernels"]).group(1)
    text = _stub_kernels(["k_xy", "k_z"]) + "\t.amdgpu_metadata\n" + block + "\t.end_amdgpu_metadata\n"
    p = tmp_path / "md.hsaco"
    p.write_bytes(assemble(text))
    r = subprocess.run([tools["llvm-readelf"], "--notes", str(p)], capture_output=True, text=True)
    assert r.returncode == 0 and "warning" not in r.stderr.lower() and not r.stderr
    assert "NT_AMDGPU_METADATA" in r.stdout and ".name:           k_xy" in r.stdout


def test_format_roundtrip(clang_asm):
    block = _BLOCK.search(clang_asm["reduce_lds"]).group(1)
    md = parse_metadata_yaml(block, SourceLoc("x", 1))
    assert parse_metadata_yaml(format_metadata_yaml(md), SourceLoc("y", 1)) == md
    tricky = {"amdhsa.version": [1, 2], "s": ["12", "yes", "a: b", "", "inf", "x'y", "true"], "amdhsa.kernels": [],
              "n": [1, -2, True, 1.5]}
    text = format_metadata_yaml(tricky)
    assert parse_metadata_yaml(text, SourceLoc("y", 1)) == tricky
    # llvm-mc reads our YAML (explicit !str tags) to the same map.
    ours, ref = _both("\t.amdgpu_metadata\n" + text + "\t.end_amdgpu_metadata\n")
    assert ours.metadata == ref.metadata == tricky


@pytest.mark.parametrize("body, message", [
    ("amdhsa.version: [1, 2]\namdhsa.kernels: [ {.name: k} ]", "lacks required key"),
    ("amdhsa.kernels: []", "amdhsa.version"),
    ("amdhsa.version: [1, 2]\n  bad: : indent", "invalid HSA metadata"),
    ("- just\n- a list", "must be a map"),
])
def test_bad_metadata(body, message):
    text = "\t.amdgpu_metadata\n---\n" + body + "\n...\n\t.end_amdgpu_metadata\n"
    with pytest.raises(Diagnostic, match=message) as ei:
        assemble(text, filename="md.s")
    assert str(ei.value.loc).startswith("md.s:")


def test_unterminated_metadata():
    with pytest.raises(Diagnostic, match=".end_amdgpu_metadata not found"):
        assemble("\t.amdgpu_metadata\n---\namdhsa.version: [1, 2]\n", filename="md.s")

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
    ("amdhsa.version: [1, 2]\namdhsa.kernels: [ {.name: k} ]", "required key '.symbol' is missing"),
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


_BASE_KERNEL = {".name": "k", ".symbol": "k.kd", ".kernarg_segment_size": 0, ".group_segment_fixed_size": 0,
                ".private_segment_fixed_size": 0, ".kernarg_segment_align": 4, ".wavefront_size": 64,
                ".sgpr_count": 8, ".vgpr_count": 1, ".max_flat_workgroup_size": 256}
VERIFIER_CASES = {  # name: (kernel overrides, arg overrides, dropped kernel key, extra root lines)
    "ok": ({}, {}, None, ""),
    "value_kind_bad": ({}, {".value_kind": "foo"}, None, ""),
    "value_kind_hidden": ({}, {".value_kind": "hidden_dynamic_lds_size"}, None, ""),
    "address_space_bad": ({}, {".address_space": "foo"}, None, ""),
    "access_bad": ({}, {".access": "foo"}, None, ""),
    "actual_access_ok": ({}, {".actual_access": "read_only"}, None, ""),
    "is_const_str": ({}, {".is_const": "yes"}, None, ""),
    "size_str": ({}, {".size": "abc"}, None, ""),
    "size_tagged_str": ({}, {".size": "!str '8'"}, None, ""),
    "pointee_align_bad": ({}, {".pointee_align": "x"}, None, ""),
    "language_version_bad": ({".language_version": "[a, b]"}, {}, None, ""),
    "reqd_workgroup_size_2": ({".reqd_workgroup_size": "[1, 2]"}, {}, None, ""),
    "reqd_workgroup_size_3": ({".reqd_workgroup_size": "[1, 2, 3]"}, {}, None, ""),
    "workgroup_size_hint_2": ({".workgroup_size_hint": "[1, 1]"}, {}, None, ""),
    "name_int": ({".name": 5}, {}, None, ""),
    "uses_dynamic_stack_int": ({".uses_dynamic_stack": 1}, {}, None, ""),
    "language_bad": ({".language": "Klingon"}, {}, None, ""),
    "language_hip": ({".language": "HIP"}, {}, None, ""),
    "unknown_keys": ({".foo_bar": 1}, {".baz": "q"}, None, "foo: 1"),
    "no_vgpr_count": ({}, {}, ".vgpr_count", ""),
    "no_max_flat": ({}, {}, ".max_flat_workgroup_size", ""),
    "printf_ok": ({}, {}, None, "amdhsa.printf: [ '1:1:4:%d' ]"),
    "printf_bad": ({}, {}, None, "amdhsa.printf: 5"),
    "globals_unchecked": ({}, {}, None, "amdhsa.globals: [ { .name: g } ]"),
    "cluster_dims_2": ({".cluster_dims": "[1, 2]"}, {}, None, ""),
    "uniform_work_group_size_bad": ({".uniform_work_group_size": "x"}, {}, None, ""),
}


@pytest.mark.parametrize("case", sorted(VERIFIER_CASES))
def test_metadata_verifier_agrees_with_llvm(case):
    """Accept exactly the metadata llvm-mc 22 accepts (required keys, types, enumerations, lengths)."""
    require_llvm("llvm-mc", "ld.lld")
    kover, aover, drop, extra = VERIFIER_CASES[case]
    k = {**_BASE_KERNEL, **kover}
    k.pop(drop, None)
    a = {".size": 8, ".offset": 0, ".value_kind": "global_buffer", ".address_space": "global", **aover}
    body = ("amdhsa.version: [1, 2]\n" + (extra + "\n" if extra else "") + "amdhsa.kernels:\n  - "
            + "\n    ".join(f"{x}: {y}" for x, y in k.items()) + "\n    .args:\n      - "
            + "\n        ".join(f"{x}: {y}" for x, y in a.items()))
    text = "\t.amdgpu_metadata\n---\n" + body + "\n...\n\t.end_amdgpu_metadata\n"
    results = []
    for toolchain in ("llvm", "builtin"):
        try:
            results.append(read_code_object(assemble(text, toolchain=toolchain)).metadata)
        except Diagnostic as d:
            results.append(f"rejected: {d}")
    llvm, ours = results
    if isinstance(llvm, str):
        assert isinstance(ours, str) and "invalid HSA metadata" in ours, (case, ours)
    else:
        assert ours == llvm, case

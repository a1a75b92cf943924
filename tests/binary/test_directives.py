"""Kernel descriptors from .amdhsa_kernel blocks: built-in vs llvm-mc + ld.lld, run live."""

from __future__ import annotations

import subprocess

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.binary.descriptor import format_directives
from gcnforge.diagnostics import Diagnostic
from gcnforge.testing import require_llvm

from .corpus import CASES, kernel_file, kernel_source, directives


@pytest.fixture(scope="module")
def both():
    require_llvm("llvm-mc", "ld.lld")
    text = kernel_file(CASES)
    return read_code_object(assemble(text, toolchain="builtin")), read_code_object(assemble(text, toolchain="llvm"))


def test_every_case_matches_llvm(both):
    ours, ref = both
    assert set(ours.kernels) == set(ref.kernels) == set(CASES)
    for name in CASES:
        a, b = ours.kernels[name].descriptor, ref.kernels[name].descriptor
        assert a.to_bytes() == b.to_bytes(), (name, a.directives(), b.directives())
        assert ours.kernels[name].entry - ours.kernels[name].descriptor_address == \
            ref.kernels[name].entry - ref.kernels[name].descriptor_address
    assert ours.text == ref.text
    assert ours.text_address == ref.text_address


def test_layout_and_symbols_match_llvm(both, tmp_path):
    ours, ref = both
    tools = require_llvm("llvm-readelf", "llvm-objdump")
    p = tmp_path / "corpus.hsaco"
    p.write_bytes(ours.data)
    for cmd in ([tools["llvm-readelf"], "-a", str(p)], [tools["llvm-objdump"], "-d", "--mcpu=gfx942", str(p)]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr == "", (cmd, r.stderr)
    for sec in (".text", ".rodata", ".dynsym", ".dynstr", ".hash", ".gnu.hash", ".dynamic"):
        assert ours.sections[sec][0] == ref.sections[sec][0], sec  # same addresses as ld.lld
    assert ours.data[ours.sections[".rodata"][1]:][:ours.sections[".rodata"][2]] == \
        ref.data[ref.sections[".rodata"][1]:][:ref.sections[".rodata"][2]]
    for name, s in ref.symbols.items():
        if s.binding != "LOCAL":
            assert ours.symbols[name] == s, name


@pytest.mark.parametrize("style", ["objdump", "clang"])
def test_reassemble_decoded_directives(both, style):
    """format_directives(decoded descriptor) assembles back to the same descriptor, with llvm-mc too."""
    ours, _ = both
    text = '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n'
    for name, k in ours.kernels.items():
        block = format_directives(name, k.descriptor, style=style).splitlines()
        text += kernel_source(name, block[1:-1])
    for toolchain in ("builtin", "llvm"):
        again = read_code_object(assemble(text, toolchain=toolchain))
        for name, k in ours.kernels.items():
            assert again.kernels[name].descriptor.to_bytes() == k.descriptor.to_bytes(), (toolchain, name)


def test_clang_style_order_matches_clang(clang_asm):
    """The clang style prints the directives clang 22 prints, in its order."""
    import re

    for name, s in clang_asm.items():
        for kname, body in re.findall(r"\.amdhsa_kernel (\w+)\n(.*?)\.end_amdhsa_kernel", s, re.S):
            theirs = [line.split()[0] for line in body.strip().splitlines()]
            kd = read_code_object(assemble(s)).kernels[kname].descriptor
            mine = [line.split()[0] for line in format_directives(kname, kd, style="clang").splitlines()[1:-1]]
            assert mine == theirs, (name, kname)


ERRORS = {
    "unknown": (".amdhsa_no_such_thing 1", "unknown .amdhsa_kernel directive"),
    "arch_flat_scratch": (".amdhsa_user_sgpr_private_segment_buffer 1", "architected flat scratch"),
    "wave32": (".amdhsa_wavefront_size32 1", "gfx10"),
    "field_range": (".amdhsa_system_vgpr_workitem_id 4", "value out of range"),
    "negative": (".amdhsa_kernarg_size -1", "value out of range"),
    "too_many_vgprs": (".amdhsa_next_free_vgpr 513", "value out of range"),
    "too_many_sgprs": (".amdhsa_next_free_sgpr 103", "value out of range"),
    "accum_step": (".amdhsa_accum_offset 6", "accum_offset should be in range"),
    "accum_big": (".amdhsa_accum_offset 8", "exceeds total VGPR allocation"),
    "xnack_mismatch": (".amdhsa_reserve_xnack_mask 0", "does not match target id"),
    "user_count_small": (".amdhsa_user_sgpr_count 1\n.amdhsa_user_sgpr_dispatch_ptr 1", "smaller than"),
    "preload_too_long": (".amdhsa_user_sgpr_kernarg_preload_length 17", "value out of range"),
    "preload_vs_kernarg": (".amdhsa_kernarg_size 8\n.amdhsa_user_sgpr_kernarg_preload_length 4",
                           "larger than the kernarg segment size"),
    "undefined_symbol": (".amdhsa_kernarg_size nosuch.sym", "undefined symbol"),
    "repeat": (".amdhsa_ieee_mode 1\n.amdhsa_ieee_mode 0", "cannot be repeated"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_directive_rejected_like_llvm(case, tmp_path):
    tools = require_llvm("llvm-mc")
    extra, message = ERRORS[case]
    base = {"next_free_vgpr": 1, "next_free_sgpr": 1, "accum_offset": 4}
    lines = []
    for line in extra.splitlines():
        key = line.split()[0][len(".amdhsa_"):]
        base.pop(key, None)
        lines.append("\t\t" + line)
    text = kernel_source("k", [f"\t\t.amdhsa_{k} {v}" for k, v in base.items()] + lines)
    src = tmp_path / "bad.s"
    src.write_text(text)
    r = subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(src),
                        "-o", str(tmp_path / "bad.o")], capture_output=True, text=True)
    assert r.returncode != 0, f"llvm-mc accepted {case}"
    with pytest.raises(Diagnostic, match=message) as ei:
        assemble(text, filename="bad.s")
    assert ei.value.loc is not None and str(ei.value.loc).startswith("bad.s:")


def test_missing_required():
    text = kernel_source("k", ["\t\t.amdhsa_next_free_vgpr 1", "\t\t.amdhsa_accum_offset 4"])
    with pytest.raises(Diagnostic, match="next_free_sgpr directive is required"):
        assemble(text)
    assert directives({})  # corpus helper sanity


def test_decoded_text_matches_llvm_objdump(both, tmp_path):
    """Descriptor -> .amdhsa_* text (gcnforge info / dis) equals llvm-objdump's, kernel by kernel."""
    import re

    tools = require_llvm("llvm-objdump")
    ours, _ = both
    p = tmp_path / "corpus.hsaco"
    p.write_bytes(ours.data)
    out = subprocess.run([tools["llvm-objdump"], "-D", "-j", ".rodata", "--mcpu=gfx942", str(p)],
                         capture_output=True, text=True, check=True).stdout
    blocks = dict(re.findall(r"<([\w.]+)\.kd>:\n(\.amdhsa_kernel.*?\.end_amdhsa_kernel)", out, re.S))
    assert set(blocks) == set(ours.kernels)
    for name, text in blocks.items():
        ref = [line.strip() for line in text.splitlines()]
        mine = [line.strip() for line in format_directives(name, ours.kernels[name].descriptor,
                                                           reassemble=False).splitlines()]
        assert mine == ref, name

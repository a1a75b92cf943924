"""Input llvm-mc 22 refuses is refused here too, at the line llvm-mc names (issue 28 item 4,
from an independent fuzzing round): a doubled encoding suffix, ``.ident`` and the other
directives the assembler otherwise ignores with operands of the wrong kind, U+FEFF in the
``.amdgpu_metadata`` YAML, a tab in its indentation. Each case runs through llvm-mc
(``-filetype=obj`` and ``-show-encoding``), the built-in assembler (``gcnforge as -o``) and the
encoding listing (``gcnforge as`` without ``-o``); the accepted twins show the checks are not
blanket refusals."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gcnforge.binary import assemble
from gcnforge.binary.assembler import check_statements
from gcnforge.diagnostics import Diagnostic
from gcnforge.testing import require_llvm

KERNEL = (Path(__file__).parents[1] / "cli" / "kernel_ok.s").read_text()
TARGET = "amdhsa.target:   amdgcn-amd-amdhsa--gfx942\n"


def _in_kernel(old: str, new: str) -> str:
    assert old in KERNEL, old
    return KERNEL.replace(old, new, 1)


def _prefixed(lines: str) -> str:
    return lines + "\n" + KERNEL


# name -> (text, refused by llvm-mc)
CASES = {
    "e64_e64": (_prefixed("v_add_f32_e64_e64 v0, v1, v2"), True),
    "vcmp_e64_e64": (_prefixed("v_cmp_eq_f32_e64_e64 vcc, v1, v2"), True),
    "vop3_only_e64_e64": (_prefixed("v_fma_f32_e64_e64 v0, v1, v2, v3"), True),
    "e32_e64": (_prefixed("v_add_f32_e32_e64 v0, v1, v2"), True),
    "vop3_only_e64": (_prefixed("v_fma_f32_e64 v0, v1, v2, v3"), False),
    "ident_dash": (_prefixed(".ident -"), True),
    "ident_empty": (_prefixed(".ident"), True),
    "ident_number": (_prefixed(".ident 5"), True),
    "ident_two": (_prefixed('.ident "a" "b"'), True),
    "ident_ok": (_prefixed('.ident "clang version 22"'), False),
    "file_dash": (_prefixed(".file -"), True),
    "file_number_only": (_prefixed(".file 1"), True),
    "file_ok": (_prefixed('.file 1 "a.c" md5 0x1'), False),
    "addrsig_operand": (_prefixed(".addrsig x"), True),
    "addrsig_sym_dash": (_prefixed(".addrsig_sym -"), True),
    "addrsig_sym_ok": (_prefixed(".addrsig\n.addrsig_sym x"), False),
    "loc_no_file": (_prefixed(".loc 1 2"), True),
    "loc_word": (_prefixed('.file 1 "a.c"\n.loc 1 x'), True),
    "loc_ok": (_prefixed('.file 1 "a.c"\n.loc 1 2 3 prologue_end'), False),
    "cfi_outside": (_prefixed(".cfi_undefined 5"), True),
    "cfi_unfinished": (_prefixed(".cfi_startproc"), True),
    "cfi_sections_bad": (_prefixed(".cfi_sections -"), True),
    "cfi_ok": (_prefixed(".cfi_sections .debug_frame\n.cfi_startproc\n.cfi_undefined 5\n.cfi_endproc"), False),
    "yaml_tab_indent": (_in_kernel("    .group_segment_fixed_size", "\t.group_segment_fixed_size"), True),
    "yaml_tab_seq": (_in_kernel("amdhsa.version:\n  - 1\n", "amdhsa.version:\n\t- 1\n"), True),
    "yaml_bom_target_end": (_in_kernel(TARGET, TARGET.replace("gfx942", "gfx942\ufeff")), True),
    "yaml_bom_target_inside": (_in_kernel(TARGET, TARGET.replace("gfx942", "gfx\ufeff942")), True),
    "yaml_bom_single_quoted": (_in_kernel(TARGET, "amdhsa.target: 'amdgcn-amd-amdhsa--gfx\ufeff942'\n"), True),
    "yaml_bom_trailing_comment": (_in_kernel(TARGET, TARGET[:-1] + " # c\ufeff\n"), True),
    "yaml_bom_document_start": (_in_kernel("---\n", "\ufeff---\n"), True),
    "yaml_bom_double_quoted": (_in_kernel(TARGET, 'amdhsa.target: "amdgcn-amd-amdhsa--gfx942\ufeff"\n'), False),
    "yaml_bom_line_comment": (_in_kernel(TARGET, "  # c\ufeff\n" + TARGET), False),
}
_LLVM_LINE = re.compile(r"^\S+?:(\d+):\d+: error:", re.M)


def _llvm(tmp_path, text: str, *mode: str) -> subprocess.CompletedProcess:
    mc = require_llvm("llvm-mc")["llvm-mc"]
    src = tmp_path / "in.s"
    src.write_text(text)
    return subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", *mode, str(src), "-o", str(tmp_path / "o")],
                          capture_output=True, text=True)


def _llvm_line(text: str, stderr: str) -> int:
    m = _LLVM_LINE.search(stderr)
    assert m, stderr
    return int(m.group(1))


def _offending_line(text: str) -> int:
    """The line of the character the YAML cases are about (llvm-mc -filetype=obj names only
    the end of the block, and its YAML parser sometimes the line after a tab)."""
    lines = text.splitlines()
    start = lines.index("\t.amdgpu_metadata")
    return next(i for i, ln in enumerate(lines, 1) if i > start + 1 and ("\t" in ln or "\ufeff" in ln))


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_where_llvm_mc_refuses(case, tmp_path):
    text, refused = CASES[case]
    obj, listing = _llvm(tmp_path, text, "-filetype=obj"), _llvm(tmp_path, text, "-show-encoding")
    assert (obj.returncode != 0) == refused and (listing.returncode != 0) == refused, (obj.stderr, listing.stderr)
    for run in (lambda: assemble(text, filename="in.s"), lambda: check_statements(text, "gfx942", "in.s")):
        if not refused:
            run()
            continue
        with pytest.raises(Diagnostic) as ei:
            run()
        loc = ei.value.loc
        assert loc is not None and str(loc).startswith("in.s:"), ei.value
        want = _offending_line(text) if case.startswith("yaml") else _llvm_line(text, obj.stderr)
        if case != "cfi_unfinished":  # llvm-mc names the end of the input, gcnforge the open .cfi_startproc
            assert loc.line == want, (str(ei.value), obj.stderr)


def test_cli_listing_refuses_with_a_located_error(tmp_path):
    """``gcnforge as FILE.s`` (the -show-encoding listing) checks the directives too."""
    f = tmp_path / "bad.s"
    f.write_text(CASES["yaml_bom_target_end"][0])
    r = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "as", str(f)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and re.match(r"\S+bad\.s:\d+:\d+: error: invalid HSA metadata: U\+FEFF", r.stderr), r.stderr
    assert "Traceback" not in r.stderr

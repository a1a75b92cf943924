"""``gcnforge as FILE`` reports every bad line of a file, each at its file:line:col, and
exits 1: both the encoding listing and ``-o`` (the whole-file assembler), as llvm-mc does,
for lines that do not parse and for labels that do not resolve. The locations are llvm-mc
22's for the same file (live)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from gcnforge.testing import require_llvm

# three bad lines (4, 6, 8) among good ones, aliases included (lines 5 and 7)
SOURCE = """\
.text
k:
  s_mov_b32 s0, s1
  s_addd_u32 s0, s1, s2
  v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
  s_movk_i32 s0, 0x10000
  v_accvgpr_read v1, a2
  global_load_dwordx2 v[1:2], v[2:3], off
  s_endpgm
"""
_ERR = re.compile(r"^(.*):(\d+):(\d+): error: ", re.M)


def _errors(text: str, path) -> list[tuple[int, int]]:
    return [(int(m.group(2)), int(m.group(3))) for m in _ERR.finditer(text) if m.group(1) == str(path)]


@pytest.mark.parametrize("output", [False, True], ids=["listing", "code-object"])
def test_three_bad_lines_all_reported(tmp_path, output):
    src = tmp_path / "three.s"
    src.write_text(SOURCE)
    argv = [sys.executable, "-m", "gcnforge.cli.main", "as", str(src)] + (["-o", str(tmp_path / "k.o")] if output else [])
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    ours = _errors(p.stderr, src)
    assert [line for line, _ in ours] == [4, 6, 8], p.stderr
    assert not p.stdout.strip()
    tools = require_llvm("llvm-mc")
    llvm = subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(src),
                           "-o", str(tmp_path / "llvm.o")], capture_output=True, text=True, timeout=120)
    assert ours == _errors(llvm.stderr, src), (p.stderr, llvm.stderr)


UNDEFINED = """\
.text
k:
  s_branch .Lnope1
  s_nop 0
  s_cbranch_scc0 .Lnope2
  s_getpc_b64 s[0:1]
  s_branch .Lnope3
  s_endpgm
"""


@pytest.mark.parametrize("output", [False, True], ids=["listing", "code-object"])
def test_three_undefined_labels_all_reported(tmp_path, output):
    """Errors found when labels resolve (after every line is read) are reported per line too."""
    src = tmp_path / "labels.s"
    src.write_text(UNDEFINED)
    argv = [sys.executable, "-m", "gcnforge.cli.main", "as", str(src)] + (["-o", str(tmp_path / "k.o")] if output else [])
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    ours = _errors(p.stderr, src)
    assert [line for line, _ in ours] == [3, 5, 7], p.stderr
    tools = require_llvm("llvm-mc")
    llvm = subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(src),
                           "-o", str(tmp_path / "llvm.o")], capture_output=True, text=True, timeout=120)
    assert ours == _errors(llvm.stderr, src), (p.stderr, llvm.stderr)


def test_good_file_still_assembles(tmp_path):
    """The same file with the bad lines removed assembles (aliases included)."""
    src = tmp_path / "good.s"
    src.write_text("\n".join(ln for n, ln in enumerate(SOURCE.splitlines(), 1) if n not in (4, 6, 8)) + "\n")
    p = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "as", str(src), "-o", str(tmp_path / "k.o")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr

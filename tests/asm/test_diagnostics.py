"""Bad assembly gives a Diagnostic at the same line:column LLVM 22 reports (checked live),
saying what was expected; undecodable bytes print as ``.long``; the CLIs exit 1 without a
traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gcnforge.asm import decode, disassemble, parse_instruction
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.testing import require_llvm
from tools.isa_gen import common

# (line, words our message must contain)
BAD = [
    ("s_add_u32 s0, s1", ["expected 3"]),
    ("s_addd_u32 s0, s1, s2", ["unknown instruction", "s_add_u32"]),
    ("s_mov_b64 s[1:2], s[4:5]", ["misaligned", "multiple of 2"]),
    ("s_load_dwordx4 s[4:7], s[1:2], 0x10", ["misaligned"]),
    ("s_load_dwordx4 s[5:8], s[0:1], 0x10", ["misaligned", "multiple of 4"]),
    ("s_movk_i32 s0, 0x10000", ["out of range", "16-bit"]),
    ("s_setpc_b64 s[0:1], 5", ["expected 1"]),
    ("global_load_dword v[1:2], v[2:3], off", ["1-dword"]),
    ("global_load_dwordx2 v[1:2], v[2:3], off", ["misaligned", "even"]),
    ("s_waitcnt vmcnt(64)", ["vmcnt", "0..63"]),
    ("buffer_load_dword v1, off, s[4:7], 0x1234", ["literal", "not allowed"]),
    ("s_add_u32 s0, 0x12345678, 0x87654321", ["one 32-bit literal"]),
    ("s_mov_b32 s0, v1", ["VGPR"]),
    ("ds_read_b32 v1, v2 offset:70000", ["0..65535"]),
    ("s_load_dword s0, s[0:1], 0x10 sc0", ["sc0", "accepted modifiers"]),
    ("s_mov_b32 s102, s0", ["out of range"]),
    ("s_getreg_b32 s0, hwreg(HW_REG_NOPE)", ["unknown hardware register"]),
]


def test_diagnostics_match_llvm_locations():
    require_llvm("llvm-mc")
    llvm = common.assemble_text([b for b, _ in BAD])
    import re

    from tools.isa_gen.common import _run

    _, err = _run(["-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942"], "\n".join(b for b, _ in BAD) + "\n")
    llvm_cols = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r":(\d+):(\d+): error:", err)}
    for n, ((line, words), (_, data, lerr)) in enumerate(zip(BAD, llvm), 1):
        assert data is None, f"LLVM accepts {line!r}"
        with pytest.raises(Diagnostic) as ei:
            parse_instruction(line, SourceLoc("f.s", n))
        d = ei.value
        assert d.loc.file == "f.s" and d.loc.line == n
        for w in words:
            assert w in d.message, (line, d.message)
        if n in llvm_cols and "hwreg" not in line:
            assert d.loc.col == llvm_cols[n], f"{line!r}: col {d.loc.col}, LLVM {llvm_cols[n]} ({lerr})"


def test_undecodable_bytes_print_long():
    di = decode(bytes.fromhex("ffffffff"))
    assert di.inst is None and di.size == 4 and di.text() == ".long 0xffffffff"
    # truncated 8-byte instruction at the end of a blob
    out = disassemble(bytes.fromhex("0001 0bc0".replace(" ", "")))
    assert out[0][1].text().startswith(".long")
    # garbage never raises and always advances
    blob = bytes(range(256)) * 4
    total = sum(d.size for _, d in disassemble(blob))
    assert total >= len(blob)


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "gcnforge.cli.main", *args], capture_output=True, text=True,
                          input=stdin)


def test_cli_as_reports_and_fails_cleanly(tmp_path):
    good = tmp_path / "g.s"
    good.write_text("start:\n  s_mov_b32 s0, 1 // comment\n  s_cbranch_scc0 start\n  s_endpgm\n")
    r = _cli("as", str(good))
    assert r.returncode == 0, r.stderr
    assert "s_mov_b32 s0, 1" in r.stdout and "encoding: [0x81,0x00,0x80,0xbe]" in r.stdout
    assert "encoding: [0xfe,0xff,0x84,0xbf]" in r.stdout  # branch back over 2 instructions
    bad = tmp_path / "b.s"
    bad.write_text("  s_mov_b32 s0, 1\n  s_mov_b64 s[1:2], 0\n")
    r = _cli("as", str(bad))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert f"{bad}:2:13: error: misaligned" in r.stderr


def test_cli_dis_raw(tmp_path):
    blob = tmp_path / "x.bin"
    blob.write_bytes(bytes.fromhex("810080be" "000081bf" "ffffffff"))
    r = _cli("dis", str(blob))
    assert r.returncode == 0, r.stderr
    lines = [ln.split("//")[0].strip() for ln in r.stdout.splitlines() if ln.startswith("\t")]
    assert lines == ["s_mov_b32 s0, 1", "s_endpgm", ".long 0xffffffff"]

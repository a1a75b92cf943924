"""The verifiers on raised clang code: clean kernels give no finding; deleting a wait from
clang's own .s gives one, at the pc of the instruction that now reads too early."""

from __future__ import annotations

import subprocess
import sys

from gcnforge.binary import assemble, read_code_object
from gcnforge.raising import raise_code_object
from gcnforge.raising.verify import verify_module

from .conftest import CLANG_NAMES


def test_clang_kernels_are_clean(clang_objects):
    for name in CLANG_NAMES:
        m = raise_code_object(read_code_object(clang_objects[name]))
        assert verify_module(m) == [], name


def test_removed_waitcnt_is_reported_with_its_pc(clang_asm):
    text = clang_asm["bin_vadd"]
    lines = text.splitlines()
    i = next(n for n, ln in enumerate(lines) if ln.strip() == "s_waitcnt vmcnt(0)")
    user = lines[i + 1].split()[0]  # the instruction the wait protected
    cut = "\n".join(lines[:i] + lines[i + 1:]) + "\n"
    co = read_code_object(assemble(cut))
    found = verify_module(raise_code_object(co), ["waits"])
    assert len(found) == 1, found
    # its pc, found independently: the first instruction with that mnemonic after the loads
    from gcnforge.asm import disassemble

    k = co.kernels["vadd"]
    pcs = [pc for pc, di in disassemble(k.code, k.entry) if di.text(pc).split()[0] == user]
    assert found[0].startswith(f"@vadd pc 0x{pcs[0]:x}: '{user}'"), found


def test_cli_bad_input_is_a_diagnostic(tmp_path):
    bad = tmp_path / "bad.hsaco"
    bad.write_bytes(b"\x7fELF" + bytes(60))
    r = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "raise", str(bad)], capture_output=True, text=True)
    assert r.returncode == 1 and "error" in r.stderr and "Traceback" not in r.stderr
    s = tmp_path / "bad.s"
    s.write_text("\t.text\nk:\n\tv_bogus v0\n")
    r = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "raise", str(s)], capture_output=True, text=True)
    assert r.returncode == 1 and "bad.s:3" in r.stderr and "Traceback" not in r.stderr
    m = tmp_path / "bad.mlir"
    m.write_text("builtin.module { amdgcn.bogus }\n")
    r = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "raise", str(m), "-S"], capture_output=True,
                       text=True)
    assert r.returncode == 1 and "Traceback" not in r.stderr

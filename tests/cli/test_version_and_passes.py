"""``gcnforge --version``, ``gcnforge-opt --version``, ``gcnforge-opt --list-passes`` / ``-p help``
(gcnforge's passes only, one line each) and ``-h`` naming only the output formats that apply."""

from __future__ import annotations

import subprocess
import sys

import gcnforge
from gcnforge.passes.registry import PASSES


def _run(*argv):
    return subprocess.run([sys.executable, "-m", *argv], capture_output=True, text=True)


def test_versions():
    for mod, prog in (("gcnforge.cli.main", "gcnforge"), ("gcnforge.cli.opt", "gcnforge-opt")):
        r = _run(mod, "--version")
        assert r.returncode == 0 and r.stdout.startswith(f"{prog} {gcnforge.__version__} (targets gfx942, gfx950;")


def test_list_passes_and_pass_help():
    for argv in (["--list-passes"], ["-p", "help"]):
        r = _run("gcnforge.cli.opt", *argv)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert [ln.split()[0] for ln in lines] == sorted(PASSES)  # every pass, nothing else, one line each
        assert all(len(ln.split(None, 1)) == 2 for ln in lines)  # each with its description


def test_help_names_only_the_mlir_output_format():
    r = _run("gcnforge.cli.opt", "-h")
    assert r.returncode == 0
    for foreign in ("arm-asm", "wgsl", "riscv-asm", "x86-asm", "csl"):
        assert foreign not in r.stdout
    assert "--list-passes" in r.stdout

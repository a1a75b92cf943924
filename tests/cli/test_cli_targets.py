"""``--target`` / ``--mcpu`` / ``-mcpu=`` on every command: a gfx950 kernel goes through
compile, gcnforge-opt, stats, raise and run; a target that is not the input's, or one
gcnforge does not know, is a one-line diagnostic and exit 1 (never a traceback); the help
texts list the processors of ``gcnforge.isa.target.TARGETS``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gcnforge.isa.target import TARGETS
from gcnforge.testing import require_llvm

ROOT = Path(__file__).resolve().parents[2]
GEMM = ROOT / "examples" / "gemm_mfma_f16.py"
MLIR = """amdgcn.module @m #amdgcn.target<gfx950> {
  amdgcn.kernel @k {
    %a = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    %c = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    %d = amdgcn.mfma v_mfma_f32_16x16x32_f16 %c, %a, %a, %c : !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>
    amdgcn.end
  }
}
"""


def _run(*argv, tool="gcnforge.cli.main"):
    return subprocess.run([sys.executable, "-m", tool, *map(str, argv)], capture_output=True, text=True, timeout=300)


def _bad(r, text):
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert text in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.fixture(scope="module")
def gfx950_object(tmp_path_factory):
    d = tmp_path_factory.mktemp("g950")
    r = _run("compile", GEMM, "--target", "gfx950", "-o", d / "gemm.hsaco")
    assert r.returncode == 0, r.stderr
    return d / "gemm.hsaco"


def test_help_lists_the_targets():
    for cmd in ("compile", "run", "stats", "raise", "tune", "as", "dis"):
        h = _run(cmd, "--help").stdout.replace("\n", " ")
        assert all(t in h for t in TARGETS), (cmd, h)
    h = _run("--help", tool="gcnforge.cli.opt").stdout
    assert "--mcpu" in h and all(t in h for t in TARGETS)


@pytest.mark.parametrize("cmd", [["compile", GEMM, "-S"], ["run", "x.hsaco", "k", "--grid", "1", "--block", "64"],
                                 ["stats", "x.s"], ["raise", "x.hsaco"], ["tune", "f.py", "--shapes", "1x1x1", "-o", "o.csv"]])
def test_unknown_target(cmd):
    _bad(_run(*cmd, "--target", "gfx1234"), "unknown target 'gfx1234' (known: gfx942, gfx950)")


def test_opt_target(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(MLIR)
    for flag in (["--mcpu", "gfx950"], ["-mcpu=gfx950"], ["--target", "gfx950"], []):
        r = _run(src, *flag, "-p", "amdgcn-regalloc", tool="gcnforge.cli.opt")
        assert r.returncode == 0 and "#amdgcn.target<gfx950>" in r.stdout, (flag, r.stderr)
    _bad(_run(src, "--mcpu", "gfx942", tool="gcnforge.cli.opt"), "--mcpu gfx942: the module is for gfx950")
    _bad(_run(src, "--mcpu", "gfx7", tool="gcnforge.cli.opt"), "unknown target 'gfx7'")
    src.write_text(MLIR.replace("gfx950", "gfx942"))
    _bad(_run(src, tool="gcnforge.cli.opt"), "'v_mfma_f32_16x16x32_f16' is not a gfx942 instruction")
    r = _run(src, "--target", "mlir", tool="gcnforge.cli.opt")  # xDSL's output-format --target still works
    assert "error" in r.stderr and "Traceback" not in r.stderr  # (the gfx942 module is still invalid)


def test_stats_target(gfx950_object, tmp_path):
    r = _run("stats", gfx950_object)
    assert r.returncode == 0 and "gemm_f16_16x16x32" in r.stdout, r.stderr
    # the cost model reads gfx950's MFMA facts: two 4-pass v_mfma_f32_16x16x32_f16, 16 cycles each
    assert re.search(r"mfma\s+busy\s+32 cycles .*\b2 instructions", r.stdout), r.stdout
    assert _run("stats", gfx950_object, "--target", "gfx950").returncode == 0
    _bad(_run("stats", gfx950_object, "--target", "gfx942"), "--target gfx942: the input is for gfx950")
    s = tmp_path / "k.s"
    s.write_text("v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[0:3]\n")
    _bad(_run("stats", s), "unknown instruction 'v_mfma_f32_16x16x32_f16' for gfx942")
    r = _run("stats", s, "-mcpu=gfx950")
    assert r.returncode == 0 and "1 instructions" in r.stdout, r.stderr


def _alloc_sections(path) -> dict:
    import io

    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(path.read_bytes()))
    return {s.name: (s["sh_addr"], s.data()) for s in elf.iter_sections() if s["sh_flags"] & 2}


def test_raise_target(gfx950_object, tmp_path):
    require_llvm("llvm-mc")
    out = tmp_path / "k.mlir"
    r = _run("raise", gfx950_object, "-o", out, "--check-roundtrip", "--verify", "waits")
    assert r.returncode == 0 and "byte-identical" in r.stderr, r.stderr
    text = out.read_text()
    assert "#amdgcn.target<gfx950>" in text and "v_mfma_f32_16x16x32_f16" in text
    r = _run("raise", out, "-o", tmp_path / "back.hsaco")
    assert r.returncode == 0, r.stderr
    # every allocated section as before; the line table now names k.mlir's lines (the .py's before)
    assert _alloc_sections(tmp_path / "back.hsaco") == _alloc_sections(gfx950_object)
    _bad(_run("raise", gfx950_object, "--target", "gfx942"), "--target gfx942: the code object is for")
    _bad(_run("raise", out, "--target", "gfx942", "-S"), "--target gfx942: the input is for gfx950")


def test_run_target(gfx950_object):
    _bad(_run("run", gfx950_object, "gemm_f16_16x16x32", "--grid", "1", "--block", "64", "--target", "gfx942"),
         "--target gfx942: the code object is for gfx950")

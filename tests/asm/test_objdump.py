"""Disassembling clang-built gfx942 code objects matches ``llvm-objdump -d`` line for line.

The kernels (``tests/asm/kernels/*.cl``) are compiled live with the clang line from
DESIGN.md and linked with ld.lld; both disassemblies are produced in the test. The
comparison is on the instruction text (the part before ``//``) and also on the address,
words and branch-target annotation. Most instructions in compiled code are vector ALU:
this test depends on helper B's VOP* codecs as much as on the scalar/memory ones."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gcnforge.asm.listing import objdump_lines
from gcnforge.testing import require_llvm

KERNELS = sorted((Path(__file__).parent / "kernels").glob("*.cl"))


def _build(tools: dict[str, str], src: Path, tmp: Path) -> Path:
    obj, hsaco = tmp / (src.stem + ".o"), tmp / (src.stem + ".hsaco")
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib",
                    "-O2", "-c", str(src), "-o", str(obj)], check=True, capture_output=True)
    subprocess.run([tools["ld.lld"], "-shared", str(obj), "-o", str(hsaco)], check=True, capture_output=True)
    return hsaco


def _insn_lines(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith("\t")]


@pytest.mark.parametrize("src", KERNELS, ids=[k.stem for k in KERNELS])
def test_matches_llvm_objdump(src, tmp_path):
    tools = require_llvm("clang", "ld.lld", "llvm-objdump")
    from gcnforge.binary import read_code_object

    hsaco = _build(tools, src, tmp_path)
    want = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx942", str(hsaco)], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    co = read_code_object(hsaco.read_bytes())
    syms = sorted((s.value, s.name) for s in co.symbols.values() if s.type == "FUNC" and s.section == ".text")
    got = objdump_lines(co.text, co.text_address, syms)
    w, g = _insn_lines(want), _insn_lines(got)
    assert len(w) > 50
    text_diff = [(a, b) for a, b in zip(w, g) if a.split("//")[0].split() != b.split("//")[0].split()]
    assert not text_diff, f"{len(text_diff)} instruction-text differences, first: {text_diff[:5]}"
    assert len(w) == len(g)
    full_diff = [(a, b) for a, b in zip(w, g) if a.split() != b.split()]
    assert not full_diff, f"{len(full_diff)} address/word/annotation differences, first: {full_diff[:3]}"
    # block headers (function symbols) line up too
    assert [x for x in want if x.endswith(">:")] == [x for x in got if x.endswith(">:")]

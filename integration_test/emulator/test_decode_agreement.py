"""The emulator decodes through gcnforge.asm; every instruction of every code object the
emulator suites run (clang-compiled and hand-written) must decode to exactly the text
LLVM 22's llvm-objdump prints."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from gcnforge.asm import disassemble
from gcnforge.binary import read_code_object
from gcnforge.testing import require_llvm

from harness import KERNELS, build_cl

LINE = re.compile(r"^\s+(\S.*?)\s+// ([0-9A-F]{12}): ")


def objdump_texts(tool: str, code: bytes, mcpu: str = "gfx942") -> dict[int, str]:
    with tempfile.NamedTemporaryFile(suffix=".so") as f:
        f.write(code)
        f.flush()
        out = subprocess.run([tool, "-d", f"--mcpu={mcpu}", f.name], check=True, capture_output=True, text=True).stdout
    texts = {}
    for ln in out.splitlines():
        m = LINE.match(ln)
        if m:
            texts[int(m.group(2), 16)] = " ".join(m.group(1).split())
    return texts


ASM = Path(__file__).parents[2] / "tests" / "emulator"


def sources():
    srcs = [p.name for p in sorted(KERNELS.glob("*.cl"))]
    return srcs + ["gfx950/ops.cl", "mfma", "gemm", "broken_kernels.s", "semantics_kernels.s", "gfx950_kernels.s"]


def mcpu_of(src: str) -> str:
    return "gfx950" if src.startswith("gfx950") else "gfx942"


def assemble(tools, name: str) -> bytes:
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", f"-mcpu={mcpu_of(name)}", "-filetype=obj",
                        str(ASM / name), "-o", f"{d}/k.o"], check=True)
        subprocess.run([tools["ld.lld"], "-shared", f"{d}/k.o", "-o", f"{d}/k.so"], check=True)
        return Path(f"{d}/k.so").read_bytes()


@pytest.mark.parametrize("src", sources())
def test_decoder_agrees_with_llvm(src):
    tools = require_llvm("clang", "ld.lld", "llvm-objdump", "llvm-mc")
    if src.endswith(".s"):
        code = assemble(tools, src)
    elif src == "mfma":
        import test_mfma

        code = build_cl(test_mfma._source(), tools)
    elif src == "gemm":
        import test_mfma

        code = build_cl(test_mfma.GEMM, tools)
    else:
        code = build_cl(src, tools, mcpu=mcpu_of(src))
    ref = objdump_texts(tools["llvm-objdump"], code, mcpu_of(src))
    co = read_code_object(code)
    ours = {pc: " ".join(di.text(pc).split()) for pc, di in disassemble(co.text, co.text_address, mcpu_of(src))}
    assert ref, "llvm-objdump printed nothing"
    diffs = [(hex(pc), t, ours.get(pc)) for pc, t in sorted(ref.items()) if ours.get(pc) != t]
    assert not diffs, f"{len(diffs)} of {len(ref)} instructions differ, first: {diffs[:5]}"

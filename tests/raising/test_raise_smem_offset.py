"""SMEM byte offsets whose field values are also inline-constant codes (0x80 = 128 is the code
of integer 0, 0xc1 of -1) raise as real ops with the offset itself (they were read as inline
constants, printed as ``0x0``, failed the re-encoding check and stayed opaque ``lift.inst``:
aiter's int8 GEMM and examples/gemm_i8.py load kernel arguments at 0x80..0xc0). Oracle: llvm-mc
22 encodes the source lines and the raised ops' printed text to the same bytes."""

from __future__ import annotations

import subprocess

from gcnforge.asm import decode, parse_instruction
from gcnforge.diagnostics import SourceLoc
from gcnforge.raising.convert import Pins, encodes_back, instruction_op
from gcnforge.testing import require_llvm
from gcnforge.translate.inst_text import inst_text
from xdsl.ir import Block

LINES = ["s_load_dword s6, s[0:1], 0x80", "s_load_dword s6, s[0:1], 0xc0", "s_load_dword s6, s[0:1], 0xc1",
         "s_load_dwordx2 s[6:7], s[0:1], 0xf0", "s_load_dwordx4 s[8:11], s[0:1], 0xff",
         "s_buffer_load_dword s6, s[0:3], 0x81"]


def _enc(mc: str, lines: list[str], tmp_path) -> list[str]:
    f = tmp_path / "x.s"
    f.write_text("\n".join(lines) + "\n")
    out = subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding", str(f)],
                         capture_output=True, text=True, check=True).stdout
    return [ln.split("encoding:")[1].strip() for ln in out.splitlines() if "encoding:" in ln]


def test_smem_offsets_at_inline_constant_codes_raise(tmp_path):
    mc = require_llvm("llvm-mc")["llvm-mc"]
    texts = []
    for line in LINES:
        data = parse_instruction(line, SourceLoc("x", 1, 1)).encode(0, lambda _l: 0)
        op = instruction_op(decode(data), 0, Pins(Block()))
        assert op is not None and encodes_back(op, 0, data), line
        texts.append(inst_text(op))
    assert _enc(mc, texts, tmp_path) == _enc(mc, LINES, tmp_path)

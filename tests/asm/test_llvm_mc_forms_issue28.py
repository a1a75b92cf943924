"""Forms issue 28 found gcnforge handling unlike llvm-mc 22, each checked against llvm-mc live:

* ``v_nop_sdwa`` (LLVM's V_NOP_sdwa_gfx9): assembles to ``f9 00 00 7e 00 00 00 00`` and
  disassembles as plain ``v_nop`` of 8 bytes (src0, dst_sel and dst_unused ignored; a source
  select, clamp, omod or modifier bit makes it the 4-byte VOP1 v_nop); the table had no record
  (the generator's SDWA probe set the selects);
* packed 16-bit integer sources (``v2i16``) take the f32 inline patterns (0x3f800000 is the
  inline 1.0), as LLVM checks them 32-bit; an f16 pattern stays a literal."""

from __future__ import annotations

import subprocess

import pytest

from gcnforge.asm import decode
from gcnforge.asm.listing import show_encoding
from gcnforge.testing import require_llvm

LINES = ["v_nop_sdwa", "v_nop", "v_pk_add_u16 v3, 0x3f800000, v26", "v_pk_add_u16 v3, 0xbf800000, v26",
         "v_pk_add_u16 v3, 0x3e22f983, v26", "v_dot2c_i32_i16_e32 v3, 0x3f800000, v26",
         "v_dot2c_i32_i16_e32 v3, 0x3c00, v26", "v_dot2_i32_i16 v3, 0x3f800000, v26, v1"]


def _mc(args: list[str], text: str) -> str:
    mc = require_llvm("llvm-mc")["llvm-mc"]
    return subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", *args, "-show-encoding"], input=text,
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("mcpu", ["gfx942", "gfx950"])
def test_forms_encode_as_llvm_mc(mcpu):
    want = [ln.split(";")[0].split() + [ln.split("encoding:")[1].strip()]
            for ln in _mc([f"-mcpu={mcpu}"], "\n".join(LINES) + "\n").splitlines() if "encoding:" in ln]
    got = [ln.split(";")[0].split() + [ln.split("encoding:")[1].strip()]
           for ln in show_encoding("\n".join(LINES) + "\n", target=mcpu).splitlines()]
    assert got == want and len(want) == len(LINES)


def test_v_nop_sdwa_disassembles_as_llvm_does():
    """Each word alone: LLVM's first instruction (text and size) is gcnforge's. With a select,
    clamp, omod or source-modifier bit set the SDWA form is no instruction and both decode the
    first word alone as the VOP1 v_nop, whose src0 (0xf9 here) is ignored."""
    for h, size in (("f900007e00000000", 8), ("f900007e00060000", 8), ("f900007e00160600", 4), ("f900007e00000100", 4),
                    ("f900007e00002000", 4), ("f900007e00000008", 4), ("0100007e", 4)):
        out = _mc(["-mcpu=gfx942", "--disassemble"], ",".join(f"0x{b:02x}" for b in bytes.fromhex(h)) + "\n")
        first = next(ln for ln in out.splitlines() if "encoding:" in ln).split(";")
        d = decode(bytes.fromhex(h))
        assert first[0].split() == d.text(0).split() == ["v_nop"], (h, out)
        assert d.size == first[1].count("0x") == size, (h, out)

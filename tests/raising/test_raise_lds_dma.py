"""LDS DMA loads (``buffer_load_* ... lds``: the data goes to LDS at M0, no vdata) raise as real
``amdgcn.mubuf`` ops with vdata 'off' (issue 28), not as opaque ``lift.inst`` text, so the
hazard pass checks the SALU M0 row on raised code (tests/passes/test_hazard_rules_llc.py).

Oracle: llvm-mc 22 encodes each form; the raised op's printed text, assembled by llvm-mc again,
gives the same bytes, and the whole code object re-emits byte-identical."""

from __future__ import annotations

import subprocess

import pytest
from xdsl.utils.exceptions import VerifyException

from gcnforge.binary import read_code_object
from gcnforge.dialect.inst_ops import FAMILY_OPS, InstOp
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.raising import module_code_object, parse_module, print_module, raise_code_object
from gcnforge.raising.roundtrip import differences
from gcnforge.testing import require_llvm
from gcnforge.translate.inst_text import inst_text

FORMS = {
    "gfx942": ["buffer_load_dword v1, s[4:7], s8 offen lds", "buffer_load_dword v1, s[4:7], 0 idxen offset:16 lds",
               "buffer_load_ubyte v2, s[4:7], 0 offen lds", "buffer_load_sshort v2, s[4:7], s9 offen sc0 lds",
               "buffer_load_dword off, s[4:7], s8 offset:64 lds"],
    "gfx950": ["buffer_load_dwordx4 v1, s[4:7], 0 offen lds", "buffer_load_dwordx3 v1, s[4:7], s8 offen lds",
               "buffer_load_dword v1, s[4:7], 0 offen lds"],
}


def _kernel(target: str, lines: list[str]) -> str:
    body = "\n".join(f"  {ln}" for ln in ["s_mov_b32 m0, 0", "s_nop 0", *lines, "s_waitcnt vmcnt(0)", "s_endpgm"])
    return (f'.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n'
            f"{body}\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 8\n"
            "  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 8\n  .amdhsa_group_segment_fixed_size 4096\n"
            ".end_amdhsa_kernel\n")


def _mc(tool: str, target: str, text: str, tmp_path, obj: bool) -> bytes | str:
    f = tmp_path / "in.s"
    f.write_text(text)
    args = [tool, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}"]
    if obj:
        subprocess.run([*args, "-filetype=obj", str(f), "-o", str(tmp_path / "k.o")], check=True)
        return (tmp_path / "k.o").read_bytes()
    return subprocess.run([*args, "-show-encoding", str(f)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("target", sorted(FORMS))
def test_lds_dma_raises_as_a_real_op_and_roundtrips(target, tmp_path):
    t = require_llvm("llvm-mc", "ld.lld")
    _mc(t["llvm-mc"], target, _kernel(target, FORMS[target]), tmp_path, obj=True)
    subprocess.run([t["ld.lld"], "-shared", str(tmp_path / "k.o"), "-o", str(tmp_path / "k.so")], check=True)
    co = read_code_object((tmp_path / "k.so").read_bytes())
    m = raise_code_object(co)
    m.verify()
    assert not [op for op in m.walk() if isinstance(op, RawInstOp)]
    dma = [op for op in m.walk() if isinstance(op, InstOp) and op.modifiers.get("lds")]
    assert len(dma) == len(FORMS[target]) and all(not op.outs or op.outs[-1] is op.token for op in dma)
    # each op prints the text llvm-mc reads back to the bytes it gave for the source line
    want = _mc(t["llvm-mc"], target, "\n".join(FORMS[target]) + "\n", tmp_path, obj=False)
    got = _mc(t["llvm-mc"], target, "\n".join(inst_text(op) for op in dma) + "\n", tmp_path, obj=False)
    enc = lambda s: [ln.split("encoding:")[1] for ln in s.splitlines() if "encoding:" in ln]  # noqa: E731
    assert enc(got) == enc(want) and len(enc(want)) == len(FORMS[target])
    assert differences(co, read_code_object(module_code_object(parse_module(print_module(m))))) == []


def test_vdata_is_off_exactly_in_the_lds_form(tmp_path):
    """The verifier ties the two: vdata 'off' needs ``lds``, ``lds`` needs vdata 'off'."""
    t = require_llvm("llvm-mc", "ld.lld")
    _mc(t["llvm-mc"], "gfx942", _kernel("gfx942", ["buffer_load_dword v1, s[4:7], s8 offen lds",
                                                   "buffer_load_dword v2, v1, s[4:7], s8 offen"]), tmp_path, obj=True)
    subprocess.run([t["ld.lld"], "-shared", str(tmp_path / "k.o"), "-o", str(tmp_path / "k.so")], check=True)
    m = raise_code_object(read_code_object((tmp_path / "k.so").read_bytes()))
    dma, plain = [op for op in m.walk() if isinstance(op, InstOp) and op.mnemonic == "buffer_load_dword"]
    mubuf = FAMILY_OPS["mubuf"]
    no_lds = {k: v for k, v in dma.modifiers.items() if k != "lds"}
    with pytest.raises(VerifyException, match="needs the lds modifier"):
        mubuf(dma.mnemonic, list(dma.args), imms=list(dma.imm_values), off=list(dma.off_slots), mods=no_lds).verify()
    with pytest.raises(VerifyException, match="vdata must be 'off'"):
        mubuf(plain.mnemonic, list(plain.args), imms=list(plain.imm_values), off=list(plain.off_slots),
              mods={**plain.modifiers, "lds": True}).verify()

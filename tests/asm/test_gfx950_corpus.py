"""gfx950: byte-exact assembler and text-exact disassembler against ``llvm-mc -mcpu=gfx950``
(live), beside the gfx942 corpus test.

Forms: every corpus form (``tools/isa_gen/corpus_*``, generated from the gfx950 table) of an
instruction gfx950 adds or changes (the ``gfx950_*.delta.json`` records), plus the
hand-written ``tools/isa_gen/gfx950_forms.FORMS``. And: clang 22 gfx950 kernels
(``kernels_gfx950/*.cl``) disassemble line for line as ``llvm-objdump -d --mcpu=gfx950``.

LLVM 22 bug kept out of the comparison: llvm-mc accepts a constant for a ``VReg_64_Align2``
source and emits garbage it then prints as invalid, e.g.
    echo 'v_cvt_scalef32_sr_pk_fp4_f32 v1, 2.0, v24, v46' | llvm-mc -triple=amdgcn-amd-amdhsa \\
        -mcpu=gfx950 -show-encoding   ->  "v_cvt_scalef32_sr_pk_fp4_f32 v1, 0/*Invalid immediate*/, ..."
(forms whose echo carries ``/*Invalid`` are such cases)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from gcnforge.asm import disassemble, parse_instruction
from gcnforge.asm.listing import objdump_lines
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa import table
from gcnforge.testing import require_llvm

sys.path.insert(0, str(Path(__file__).parent))
from corpus_check import check  # noqa: E402

from tools.isa_gen import common, corpus, gfx950_forms  # noqa: E402


def _new_mnemonics() -> set[str]:
    out = set()
    for p in table.DATA_DIR.glob("gfx950_*.delta.json"):
        for d in json.loads(p.read_text())["instructions"]:
            out |= {d["mnemonic"], d["base"]}
    return out


def _forms() -> list[str]:
    new = _new_mnemonics()
    with table.use_target("gfx950"):
        gen = [line for _, line in corpus.forms() if line.split()[0] in new]
    return list(dict.fromkeys(gen + list(gfx950_forms.FORMS)))


def test_gfx950_corpus_matches_llvm():
    require_llvm("llvm-mc")
    lines = _forms()
    echo = common.assemble_text(lines, "gfx950")
    llvm_bug = [ln for ln, (t, _, _) in zip(lines, echo) if t and "/*Invalid" in t]
    lines = [ln for ln in lines if ln not in set(llvm_bug)]
    rep = check(lines, "gfx950")
    accepted_by_us = [p for p in rep.accept_mismatch if p[1] != "llvm: ok"]
    rejected_by_us = [p for p in rep.accept_mismatch if p[1] == "llvm: ok"]
    if accepted_by_us:
        warnings.warn(f"gfx950: gcnforge accepts {len(accepted_by_us)} forms LLVM rejects, e.g. {accepted_by_us[:3]}")
    assert rep.llvm_ok > 1500
    # every opcode gfx950 adds is in the corpus
    seen = {ln.split()[0] for ln in lines}
    assert {i.base for i in table.instructions("gfx950") if i.mnemonic in _new_mnemonics()} <= (
        seen | {s.rsplit("_e", 1)[0] for s in seen} | {i.base for i in table.instructions("gfx950")
                                                       if i.mnemonic in seen})
    assert not rep.bytes_mismatch, f"{len(rep.bytes_mismatch)} byte mismatches, e.g. {rep.bytes_mismatch[:5]}"
    assert not rep.text_mismatch, f"{len(rep.text_mismatch)} text mismatches, e.g. {rep.text_mismatch[:5]}"
    assert not rejected_by_us, f"{len(rejected_by_us)} forms LLVM accepts but gcnforge rejects: {rejected_by_us[:5]}"


@pytest.mark.parametrize("hexbytes", gfx950_forms.PAIR_BYTES)
def test_gfx950_scaled_mfma_pairs_disassemble_as_llvm(hexbytes):
    """The decoder pairs v_mfma_ld_scale_b32 with the next f8f6f4 MFMA exactly when
    llvm-mc --disassemble does (the pair is one 16-byte instruction)."""
    require_llvm("llvm-mc")
    raw = bytes.fromhex(hexbytes)
    want = subprocess.run([common.require_tool("llvm-mc"), "--disassemble", "-triple=amdgcn-amd-amdhsa",
                           "-mcpu=gfx950"], input=",".join(f"0x{b:02x}" for b in raw) + "\n",
                          capture_output=True, text=True).stdout
    want = [" ".join(ln.split()) for ln in want.splitlines() if ln.strip() and not ln.strip().startswith(".")]
    got = [" ".join(d.text().split()) if d.inst is not None else None
           for _, d in disassemble(raw, target="gfx950")]
    # a word LLVM calls an invalid encoding is a .long (None here) for gcnforge; both go on
    assert [g for g in got if g is not None] == want


def test_gfx950_only_forms_stay_out_of_gfx942():
    """The same text is refused for gfx942, as llvm-mc -mcpu=gfx942 refuses it."""
    require_llvm("llvm-mc")
    lines = ["v_prng_b32 v1, v2", "ds_read_b64_tr_b8 v[0:1], v2", "v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[12:15]"]
    assert all(b is None for b, _ in common.assemble(lines, "gfx942"))
    for ln in lines:
        with pytest.raises(Diagnostic, match="for gfx942"):
            parse_instruction(ln, SourceLoc("<t>", 1))
        parse_instruction(ln, SourceLoc("<t>", 1), target="gfx950")


KERNELS = sorted((Path(__file__).parent / "kernels_gfx950").glob("*.cl"))


@pytest.mark.parametrize("src", KERNELS, ids=[k.stem for k in KERNELS])
def test_gfx950_clang_kernels_match_llvm_objdump(src, tmp_path):
    tools = require_llvm("clang", "ld.lld", "llvm-objdump")
    from gcnforge.binary import read_code_object

    obj, hsaco = tmp_path / "k.o", tmp_path / "k.hsaco"
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950", "-nogpulib",
                    "-O2", "-c", str(src), "-o", str(obj)], check=True, capture_output=True)
    subprocess.run([tools["ld.lld"], "-shared", str(obj), "-o", str(hsaco)], check=True, capture_output=True)
    want = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx950", str(hsaco)], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    co = read_code_object(hsaco.read_bytes())
    assert co.target.startswith("gfx950")
    syms = sorted((s.value, s.name) for s in co.symbols.values() if s.type == "FUNC" and s.section == ".text")
    got = objdump_lines(co.text, co.text_address, syms, target=co.target)
    w = [ln for ln in want if ln.startswith("\t")]
    g = [ln for ln in got if ln.startswith("\t")]
    assert len(w) > 50 and any("v_mfma_f32_16x16x32_f16" in ln for ln in w)
    assert [a.split() for a in w] == [b.split() for b in g]
    # with gfx942's table the new instructions are not decoded: the target matters
    assert [a.split() for a in w] != [b.split() for b in objdump_lines(co.text, co.text_address, syms)
                                      if b.startswith("\t")]

"""Decoding arbitrary vector-ALU bits agrees with LLVM 22, live: for every vector
instruction, words with random field values (seeded) go through ``llvm-mc --disassemble``
and ``gcnforge.asm.decode``. Where LLVM decodes, the text must be identical; where LLVM
refuses (prints a warning and moves on), gcnforge should print ``.long`` -- most of the
time: the refusal rules are probed, not complete, so that part is a floor, not 100%.

Three bit patterns crash LLVM 22's disassembler and are kept out of the probes: SDWA
select value 7, a literal source code (255) in a VOP3 word, and a register tuple that runs
past v255/a255 or starts odd (re-encoding it for -show-encoding crashes)."""

from __future__ import annotations

import random

from gcnforge.asm import decode
from gcnforge.isa import table
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.testing import require_llvm

PROBES_PER_INST = 3


def _probes(seed: int) -> list[tuple[str, bytes]]:
    rnd = random.Random(seed)
    out = []
    for inst in table.instructions():
        if not inst.encoding.startswith("VOP"):
            continue
        enc = ENCODINGS[inst.encoding]
        for k in range(PROBES_PER_INST):
            w = enc.fields["op"].put(enc.match_value, inst.opcode)
            for name, fl in enc.fields.items():
                if name in ("op", "src0_sel_code"):
                    continue
                v = rnd.getrandbits(fl.width)
                if k and rnd.random() < 0.6:
                    v = 0  # sparser words decode more often
                if name.endswith("_sel") and v == 7:
                    v = 6
                if enc.size == 8 and fl.lo >= 32 and fl.width == 9 and v == 255:
                    v = 256
                w = fl.put(w, v)
            mai = inst.base.startswith(("v_mfma", "v_smfmac"))
            for op in inst.operands:
                if mai and op.field in enc.fields and enc.fields[op.field].width == 9:
                    w = enc.fields[op.field].put(w, enc.fields[op.field].get(w) | 0x100)  # constants in A/B crash it
                if op.dwords > 1 and op.field in enc.fields:
                    fl = enc.fields[op.field]
                    v = fl.get(w)
                    if fl.width == 9 and op.dwords > 2:
                        v |= 0x100  # a wide tuple from SGPR/constant codes: keep it a register
                    if (v & 0xFF) + op.dwords > 256:
                        v = (v & ~0xFF) | ((v & 0xFF) % (256 - op.dwords))
                    if op.dwords > 2 or fl.width == 8 or v >= 256:
                        v &= ~1  # odd VGPR/AGPR tuples print with LLVM's "invalid register" comment
                    w = fl.put(w, v)
            out.append((inst.mnemonic, w.to_bytes(enc.size, "little")))
    return out


def test_random_vector_words_decode_like_llvm():
    require_llvm("llvm-mc")
    from tools.isa_gen import common

    probes = _probes(20261122)
    lit = common.LIT.to_bytes(4, "little")  # the literal dword common.disassemble puts after each probe
    res = common.disassemble([p for _, p in probes])
    assert any(r is not None for r in res[-60:]), "llvm-mc output truncated (did it crash?)"
    agree = refused = both_refuse = 0
    diffs = []
    for (m, p), d in zip(probes, res):
        ours = decode(p + lit)
        if d is None:
            refused += 1
            both_refuse += ours.inst is None
            continue
        if "/*" in d.text:  # LLVM's own "invalid register" comments: not reproduced
            continue
        if " ".join(d.text.split()) == " ".join(ours.text().split()):
            agree += 1
        else:
            diffs.append((m, p.hex(), d.text, ours.text()))
    assert agree > 1500
    assert not diffs, f"{len(diffs)} decode differences, first: {diffs[:5]}"
    assert both_refuse >= 0.8 * refused, f"we decode {refused - both_refuse} of {refused} words LLVM refuses"

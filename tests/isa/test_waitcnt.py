"""``gcnforge.isa.waitcnt`` against llvm-mc: the packed immediate of every counter combination
and the text LLVM prints for it (one llvm-mc run)."""

from __future__ import annotations

import re
import subprocess
from itertools import product

from gcnforge.isa import waitcnt
from gcnforge.testing import require_llvm

CASES = [dict(zip(("vmcnt", "expcnt", "lgkmcnt"), v, strict=True))
         for v in product((None, 0, 1, 15, 16, 47, 62, 63), (None, 0, 3, 7), (None, 0, 9, 15))]


def test_pack_and_text_match_llvm_mc():
    mc = require_llvm("llvm-mc")["llvm-mc"]
    lines = ["s_waitcnt " + (" ".join(f"{k}({n})" for k, n in c.items() if n is not None)
                            or "vmcnt(63) expcnt(7) lgkmcnt(15)")
             for c in CASES]
    out = subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120,
                         check=True).stdout
    got = re.findall(r"s_waitcnt (.*?)\s*; encoding: \[0x(..),0x(..),", out)
    assert len(got) == len(CASES)
    for c, (text, lo, hi) in zip(CASES, got, strict=True):
        imm = int(hi + lo, 16)
        assert waitcnt.pack(**c) == imm, c
        assert waitcnt.text(imm) == text, c
        assert waitcnt.is_canonical(imm)
        assert waitcnt.waits(imm) == {k: n for k, n in c.items() if n is not None and n < waitcnt.MAX[k]}

"""``gcnforge as`` output equals ``llvm-mc -show-encoding`` line for line (canonical text and
bytes, whitespace-normalised) over the scalar and memory corpus, run live."""

from __future__ import annotations

from gcnforge.asm.listing import show_encoding
from gcnforge.testing import require_llvm
from tools.isa_gen import common, corpus

# llvm-mc prints "sc1" for these but encodes them without the bit (see test_llvm_corpus.KNOWN)
KNOWN = ("flat_atomic_add_f64 a", "flat_atomic_min_f64 a", "flat_atomic_max_f64 a",
         "global_atomic_add_f64 a", "global_atomic_min_f64 a", "global_atomic_max_f64 a")


def test_show_encoding_matches_llvm_mc():
    require_llvm("llvm-mc")
    lines = [line for _, line in corpus.forms(["scalar", "memory"]) if not line.startswith(KNOWN)]
    res = common.assemble_text(lines)
    ok = [(text, data) for text, data, _ in res if data is not None]
    src = "\n".join(line for line, (_, data, _) in zip(lines, res) if data is not None) + "\n"
    ours = show_encoding(src).splitlines()
    assert len(ours) == len(ok) > 5000
    bad = []
    for (text, data), got in zip(ok, ours):
        want = f"{text} ; encoding: [{','.join(f'0x{b:02x}' for b in data)}]"
        if want.split() != got.split():
            bad.append((want, got))
    assert not bad, f"{len(bad)} differences, e.g. {bad[:3]}"

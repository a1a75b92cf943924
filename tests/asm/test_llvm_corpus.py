"""Byte-exact assembler and text-exact disassembler against LLVM 22, run live.

The corpus (``tools/isa_gen/corpus*.py``) is assembled by ``llvm-mc -show-encoding`` and by
gcnforge; bytes must match. The bytes are disassembled by ``llvm-mc --disassemble`` and by
``gcnforge.asm.decode``; text must match (whitespace-normalised). One test per corpus family,
so a vector-family failure (helper B's) does not hide scalar/memory results."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

from gcnforge.testing import require_llvm

sys.path.insert(0, str(Path(__file__).parent))
from corpus_check import check  # noqa: E402

from tools.isa_gen import corpus  # noqa: E402

# Known, understood differences (kept visible as warnings, not silenced): for f64 FLAT/GLOBAL
# atomics with AGPR data, llvm-mc 22 prints "sc1" but encodes the instruction without the sc1
# bit (an LLVM quirk); gcnforge sets the bit it was asked for.
KNOWN = ("flat_atomic_add_f64 a", "flat_atomic_min_f64 a", "flat_atomic_max_f64 a",
         "global_atomic_add_f64 a", "global_atomic_min_f64 a", "global_atomic_max_f64 a")


@pytest.mark.parametrize("family", sorted(corpus.families()))
def test_corpus_matches_llvm(family):
    require_llvm("llvm-mc")
    lines = [line for _, line in corpus.forms([family])]
    rep = check(lines)
    known = [p for p in rep.problems() if p[0].startswith(KNOWN)]
    bytes_bad = [p for p in rep.bytes_mismatch if not p[0].startswith(KNOWN)]
    text_bad = [p for p in rep.text_mismatch if not p[0].startswith(KNOWN)]
    rejected_by_us = [p for p in rep.accept_mismatch if p[1] == "llvm: ok" and not p[0].startswith(KNOWN)]
    accepted_by_us = [p for p in rep.accept_mismatch if p[1] != "llvm: ok"]
    if accepted_by_us:
        warnings.warn(f"{family}: gcnforge accepts {len(accepted_by_us)} forms LLVM rejects, e.g. {accepted_by_us[:3]}")
    if known:
        warnings.warn(f"{family}: {len(known)} known differences, e.g. {known[:2]}")
    assert rep.llvm_ok > 0
    assert not bytes_bad, f"{len(bytes_bad)} byte mismatches, e.g. {bytes_bad[:5]}"
    assert not text_bad, f"{len(text_bad)} text mismatches, e.g. {text_bad[:5]}"
    assert not rejected_by_us, f"{len(rejected_by_us)} forms LLVM accepts but gcnforge rejects: {rejected_by_us[:5]}"

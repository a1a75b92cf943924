"""Every mnemonic alias of ``isa.aliases`` (gfx942 and gfx950), assembled by gcnforge and by
``llvm-mc -show-encoding`` (live, LLVM 22): the same bytes, the same acceptance, and the
disassembly prints LLVM's canonical name.

Lines: corpus forms (``tools/isa_gen/corpus*``, gfx950 adds ``gfx950_forms``) of each
alias's canonical instructions, spelled with the alias. Each alias must have a line LLVM
encodes, so every alias of the list is checked; the lines LLVM refuses (an alias may take
fewer operand shapes than its canonical name) gcnforge must refuse too."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gcnforge.isa import aliases, table
from gcnforge.testing import require_llvm

sys.path.insert(0, str(Path(__file__).parent))
from corpus_check import check  # noqa: E402

from tools.isa_gen import common, corpus, gfx950_forms  # noqa: E402

PER_CANONICAL = 3  # corpus lines per canonical instruction


def _lines(target: str) -> list[tuple[str, str, str]]:
    """(alias, alias line, canonical line) for every alias of ``target``."""
    with table.use_target(target):
        forms = [line for _, line in corpus.forms()]
    if target == "gfx950":
        forms += list(gfx950_forms.FORMS)
    by: dict[str, list[str]] = {}
    for line in forms:
        got = by.setdefault(line.split(None, 1)[0], [])
        if len(got) < PER_CANONICAL:
            got.append(line)
    out = []
    for alias, recs in aliases.aliases(target).items():
        for c in dict.fromkeys(m for m, _, _ in recs):
            for line in by.get(c, ()):
                out.append((alias, alias + line[len(c):]))
    return out


@pytest.mark.parametrize("target", table.known_targets())
def test_every_alias_matches_llvm(target):
    require_llvm("llvm-mc")
    rows = _lines(target)
    names = aliases.aliases(target)
    assert {a for a, _ in rows} == set(names), "an alias without corpus lines of its canonical instruction"
    llvm = common.assemble([line for _, line in rows], target)
    encoded = {a for (a, _), (data, _) in zip(rows, llvm) if data is not None}
    assert encoded == set(names), f"aliases LLVM encodes in none of their lines: {sorted(set(names) - encoded)[:10]}"
    rep = check([line for _, line in rows], target)  # bytes, acceptance, and the disassembly's text
    assert not rep.problems(), rep.problems()[:10]
    print(f"{target}: {len(names)} aliases, {rep.llvm_ok} of {len(rows)} lines byte-identical with llvm-mc")


def test_aliases_are_text_only():
    """No alias is a table mnemonic or base name (the disassembler, the builder and the
    dialect use only those), and each stands for a record of the table."""
    for target in table.known_targets():
        recs = table.instructions(target)
        known = {i.mnemonic for i in recs} | {i.base for i in recs}
        names = aliases.aliases(target)
        assert names and not set(names) & known
        for alias, rows in names.items():
            assert [(i.mnemonic, i.encoding, i.opcode) for i in aliases.records(alias, target)] == list(rows)


# Spellings of LLVM's matcher table that llvm-mc takes on gfx942/gfx950 but that are not
# aliases: the scaled MFMAs (one 16-byte instruction of two table records, asm/vop_scale.py),
# and the GWS instructions, which the table lacks (not decoded by its opcode sweep).
NOT_ALIASES = ("v_mfma_scale_f32_", "ds_gws_")


@pytest.mark.parametrize("target", table.known_targets())
def test_no_matcher_spelling_is_missed(target):
    """Every other name of LLVM 22's AMDGPU matcher table (all generations) is refused by
    ``llvm-mc -mcpu=<target>`` as not supported on this GPU: the alias list leaves none out.
    (A name the target supports gets an operand error for an empty operand list instead.)"""
    require_llvm("llvm-mc")
    from tools.isa_gen.aliases import matcher_mnemonics

    recs = table.instructions(target)
    known = {i.mnemonic for i in recs} | {i.base for i in recs} | set(aliases.aliases(target))
    names = [n for n in matcher_mnemonics() if n not in known and not n.startswith(NOT_ALIASES)]
    res = common.assemble_text(names, target)
    missed = [(n, err) for n, (_, _, err) in zip(names, res) if not err or "not supported on this GPU" not in err]
    assert not missed, missed[:10]

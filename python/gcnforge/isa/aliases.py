"""Mnemonic aliases: the other spellings llvm-mc 22 accepts for an instruction, per target,
each with the table records it stands for: ``[mnemonic, encoding, opcode]``, the canonical
name LLVM and the disassembler print and the record's key (two records can share a name:
``v_clrexcp_e64`` is the VOP3 ``v_clrexcp``). Older MFMA names (``v_mfma_f32_32x32x8f16`` for
``v_mfma_f32_32x32x8_f16``, gfx950's ``v_mfma_f32_16x16x32f16``), LLVM's ``MnemonicAlias``
names (``v_accvgpr_read``), and the parser's encoding suffixes after a name that has no
record of its own (``s_nop_e32``, ``v_mfma_f32_32x32x8_f16_e64``).

Aliases are text only: the assembler reads them, nothing prints them, and no builder method
or dialect op has one. Generated and probed by ``tools/isa_gen/aliases.py`` into
``isa/data/gfx942.aliases.json``; gfx950's ``gfx950.aliases.json`` is a delta over it
(``remove``: gfx942 aliases gfx950 refuses; ``aliases``: added or changed ones), so an
alias both targets share lives only in gfx942's file."""

from __future__ import annotations

from functools import cache

from gcnforge.isa import table
from gcnforge.isa.schema import Instruction


def aliases(target: str | None = None) -> dict[str, tuple[tuple[str, str, int], ...]]:
    """Alias -> the records it stands for, ``(mnemonic, encoding, opcode)`` each, in the
    order to try them, for ``target`` (default: the active table)."""
    return _load(target or table.active_target())


@cache
def _load(name: str) -> dict[str, tuple[tuple[str, str, int], ...]]:
    import json  # (only when a spelling is not a table mnemonic)

    base = table.DELTA_BASE.get(name, name)
    rows = json.loads((table.DATA_DIR / f"{base}.aliases.json").read_text())["aliases"]
    out = {a: tuple(map(tuple, c)) for a, c in rows.items()}
    if name != base:
        delta = json.loads((table.DATA_DIR / f"{name}.aliases.json").read_text())
        for a in delta["remove"]:
            del out[a]
        out.update((a, tuple(map(tuple, c))) for a, c in delta["aliases"].items())
    return out


def records(spelling: str, target: str | None = None) -> tuple[Instruction, ...]:
    """The table records ``spelling`` (lower case) is an alias of, in the order to try
    them; () when it is none."""
    name = target or table.active_target()
    return tuple(i for _, enc, op in aliases(name).get(spelling, ()) if (i := table.by_opcode(enc, op, name)))

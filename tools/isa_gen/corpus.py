"""The assembly corpus checked against LLVM 22 (``tests/asm/test_llvm_corpus.py``).

Family-pluggable: every module ``tools/isa_gen/corpus_*.py`` exposes ``forms() -> list[str]``
(one instruction per string, LLVM syntax). ``corpus_scalar`` and ``corpus_memory`` cover
SOP*/SMEM and DS/FLAT/MUBUF/MTBUF from the table (every opcode, every operand kind and
modifier); helper B's ``corpus_vector`` adds the VOP* forms.

    python -m tools.isa_gen.corpus [FAMILY...]   # print the corpus
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import tools.isa_gen as pkg


def families() -> dict[str, object]:
    out = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("corpus_"):
            out[info.name[len("corpus_"):]] = importlib.import_module(f"tools.isa_gen.{info.name}")
    return out


def forms(only: list[str] | None = None) -> list[tuple[str, str]]:
    """(family, line) pairs, deterministic order, duplicates removed."""
    seen = set()
    out = []
    for name, mod in families().items():
        if only and name not in only:
            continue
        for line in mod.forms():
            if line not in seen:
                seen.add(line)
                out.append((name, line))
    return out


if __name__ == "__main__":
    for _, line in forms(sys.argv[1:] or None):
        print(line)

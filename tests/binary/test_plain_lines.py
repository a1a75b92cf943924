"""The assembler reads a bare instruction line with one regex (``_PLAIN_INSTRUCTION``) instead
of ``statements.statement_at``; the two must agree on every line the regex accepts (same
instruction text, same column), so the fast path changes no diagnostic and no output. The
oracle is ``statement_at``, the general reader, on the project's assembly files and on
random edits of their lines (comment, label, string, '=', odd white-space characters)."""

from __future__ import annotations

import random
from pathlib import Path

from gcnforge.binary.assembler import _PLAIN_INSTRUCTION  # noqa: PLC2701  (the fast path under test)
from gcnforge.binary.statements import statement_at

ROOT = Path(__file__).resolve().parents[2]
EDITS = " \t\r\x0b\x0c:;\"/=#,.a_0[]()*\\\u00e9\u00a0xv"


def _corpus_lines() -> list[str]:
    lines: set[str] = set()
    for d in ("tests", "fuzz", "test"):
        for f in sorted((ROOT / d).rglob("*.s")):
            lines.update(f.read_text(errors="replace").split("\n"))
    return sorted(lines)


def _mutants(lines: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        s = list(rng.choice(lines))
        for _ in range(rng.randint(1, 3)):
            p = rng.randint(0, len(s))
            op = rng.randint(0, 2)
            if op == 0 or not s:
                s.insert(p, rng.choice(EDITS))
            elif op == 1:
                del s[min(p, len(s) - 1)]
            else:
                s[min(p, len(s) - 1)] = rng.choice(EDITS)
        out.append("".join(s))
    return out


def test_plain_instruction_lines_read_as_statement_at_reads_them():
    lines = _corpus_lines()
    assert len(lines) > 1000
    matched = 0
    for raw in lines + _mutants(lines, 30000, seed=7):
        m = _PLAIN_INSTRUCTION.fullmatch(raw)
        if m is None:
            continue
        matched += 1
        st, nxt = statement_at([raw], 0, "f.s")
        assert (st.kind, st.labels, st.text, st.loc.col, nxt) == ("instruction", [], m.group(2), m.end(1) + 1, 1), raw
        assert m.group(3) == st.text.split(None, 1)[0], raw  # the mnemonic, as LiteralShapes.reuse splits it
    assert matched > 1000


def test_lines_with_comments_labels_or_assignments_take_the_general_reader():
    for raw in ("\ts_nop 0 ; c", "\ts_nop 0 // c", "L: s_nop 0", "x = 1", "\ts_nop 0\r", '\t.ascii "a"',
                "\t.text", "# c", "\ts_nop /* c */ 0", "\tv_mov_b32 v0, 1\x0c"):
        assert _PLAIN_INSTRUCTION.fullmatch(raw) is None, raw

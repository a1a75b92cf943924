"""Fuzz the whole-file assembler with mutated assembly text: only Diagnostic may escape, never hang."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcnforge.binary import assemble
from gcnforge.diagnostics import Diagnostic

from .corpus import CASES, kernel_file
from .test_assembler_file import DATA_FILE

BASE = (kernel_file({k: CASES[k] for k in ("expressions", "kernarg_preload")}) + DATA_FILE.replace(
    "s_mov_b32 s0, .Lend - k                ; label difference as an operand expression? no: plain constant below",
    "s_mov_b32 s0, 5") + """
\t.amdgpu_metadata
---
amdhsa.kernels: []
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.version: [ 1, 2 ]
...
\t.end_amdgpu_metadata
""").splitlines()
JUNK = ["999999999999999999999", "-1", "0x", "(((", ")", ".L", "\\", '"', "09", ":", "=", ";", "@", ",", " ", "\t",
        ".amdhsa_kernel", ".end_amdhsa_kernel", ".set", ".p2align 16", ".fill 100000, 8, 1", "max(", "k.num_vgpr"]

edit = st.tuples(st.integers(0, len(BASE) - 1), st.integers(0, 200), st.sampled_from(["ins", "cut", "dup", "del"]),
                 st.sampled_from(JUNK))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(edit, min_size=1, max_size=5))
def test_mutated_text_gives_diagnostics_only(edits):
    lines = list(BASE)
    for i, col, kind, junk in edits:
        i %= len(lines)
        line = lines[i]
        col = min(col, len(line))
        if kind == "ins":
            lines[i] = line[:col] + junk + line[col:]
        elif kind == "cut":
            lines[i] = line[:col]
        elif kind == "dup":
            lines.insert(i, lines[(i * 7) % len(lines)])
        elif len(lines) > 1:
            del lines[i]
    try:
        assemble("\n".join(lines), filename="fuzz.s")
    except Diagnostic as d:
        assert str(d).startswith("fuzz.s") or "error:" in str(d)

"""A whole ``.s`` file assembles every instruction line exactly as that line parsed alone.

The file-level assembler reuses parses between lines (the same text; lines that differ only
in a trailing label, in one scalar literal or in a memory ``offset:N``: asm/literal_shapes.py).
The oracle is the full parse of each line on its own (``parse_instruction``, which
tests/asm/test_llvm_fuzz.py and fuzz/asm_diff.py hold to llvm-mc): the same bytes, and for a
line the full parse refuses, the same diagnostic (message, line, column). The lines are the
fuzzer's random instructions of every encoding plus numeric variants of each (one register
number, offset or literal changed, including values at and past the encodings' limits), so
most shapes are seen with both accepted and refused numbers after a parse was remembered.
"""

from __future__ import annotations

import random
import re

import pytest

from fuzz.asm_diff import random_lines
from gcnforge.asm import parse_instruction
from gcnforge.binary import assemble, read_code_object
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa import table

_NUM = re.compile(r"0[xX][0-9a-fA-F]+|[0-9]+")
# numbers around the encodings' limits (register files, 8/12/13/16-bit offsets, inline constants)
_EDGES = (0, 1, 2, 3, 63, 64, 65, 100, 101, 102, 255, 256, 511, 4095, 4096, 8191, 65535, 65536, 0xFFFFFFFF)
FILE = "reuse.s"
# lines whose numbers meet the cross-operand rules (the constant bus: one SGPR or literal per
# VALU instruction; one literal per instruction), register tuples and inline constants
HAND = (
    "v_add_f32_e64 v1, s2, s2", "v_fma_f32 v1, s4, v2, s4", "v_cndmask_b32_e64 v1, s2, s2, s[4:5]",
    "v_add_f32_e32 v3, 0x3f800001, v2", "v_add_f64 v[2:3], v[4:5], v[6:7]", "v_add_co_u32_e64 v1, s[2:3], v2, v3",
    "v_mul_f32_e32 v5, 0x40490fdb, v4", "v_fma_f32 v4, v20, v27, 0.5", "v_cmp_gt_i32_e32 vcc, s3, v0",
    "v_lshlrev_b64 v[0:1], 2, v[0:1]", "v_add_u32_e32 v1, 64, v2", "v_mov_b32_e32 v1, 0x41",
    "v_cvt_f32_f16_e64 v1, -|v2| mul:2", "v_mfma_f32_32x32x8_f16 a[0:15], v[10:11], v[12:13], a[0:15]",
    "global_load_dword v6, v[0:1], off offset:16", "global_store_dword v[0:1], v5, off offset:-16",
    "ds_read_b32 v7, v8 offset:16", "ds_write_b64 v8, v[2:3] offset:65532", "s_add_u32 s4, s4, 0x1234",
    "s_mov_b32 s1, 0x40", "s_lshl_b32 s8, s4, 2",
    # mnemonic aliases (isa.aliases) through the same shapes
    "v_mul_lo_i32 v1, v2, s3", "v_fma_f32_e64 v4, v20, v27, 0.5", "s_add_u32_e32 s4, s4, 0x1234",
    "s_mov_b32_e32 s1, 0x40", "ds_read_b32_e32 v7, v8 offset:16", "global_load_dword_e32 v6, v[0:1], off offset:16",
    "v_mfma_f32_32x32x8f16 a[0:15], v[10:11], v[12:13], a[0:15]", "v_accvgpr_read v1, a2",
)


def _variants(line: str, rng: random.Random, k: int) -> list[str]:
    """Up to ``k`` texts with one number of the operands changed (the mnemonic kept)."""
    head, _, rest = line.partition(" ")
    spots = list(_NUM.finditer(rest))
    out = []
    for _ in range(k if spots else 0):
        m = rng.choice(spots)
        v = int(m.group(), 0)
        new = rng.choice((v + 1, v + 2, v + 4, v + 7, max(v - 1, 0), rng.choice(_EDGES)))
        if rng.random() < 0.15:
            new = -new  # "-N": negative offsets and literals, a minus inside a register name
        text = hex(new) if m.group()[:2].lower() == "0x" and new >= 0 else str(new)
        out.append(f"{head} {rest[:m.start()]}{text}{rest[m.end():]}")
    return out


def _alone(line: str, lineno: int, mcpu: str):
    """The full parse of ``line`` as line ``lineno`` of a file (a tab before it)."""
    try:
        return parse_instruction(line, SourceLoc(FILE, lineno, 2), target=mcpu)
    except Diagnostic as d:
        return d


def _diag(d: Diagnostic) -> tuple:
    return str(d), d.loc.line, d.loc.col


@pytest.mark.parametrize("mcpu", ["gfx942", "gfx950"])
def test_file_assembles_each_line_as_alone(mcpu):
    rng = random.Random(15)
    with table.use_target(mcpu):
        # (a line with a /* comment */ is not the same text in a file, where comments go)
        base = [x for x in random_lines(500, seed=15) if "/*" not in x]
    lines = []
    for line in base:
        lines.append(line)
        lines += _variants(line, rng, 6)
    for line in HAND:
        lines.append(line)
        lines += _variants(line, rng, 40)
    good, bad = [], []
    for line in lines:
        r = _alone(line, 1, mcpu)
        if isinstance(r, Diagnostic):
            bad.append(line)
        elif not r.label_refs:  # (symbol operands need their symbols defined: not stand-alone)
            good.append(line)
    assert len(good) > 1000 and len(bad) > 200  # both sides are exercised

    # every accepted line in one file: the same bytes as each parsed alone, at its address
    text = assemble("\t.text\n" + "".join(f"\t{x}\n" for x in good), target=mcpu, filename=FILE)
    want = bytearray()
    for n, line in enumerate(good, start=2):
        want += _alone(line, n, mcpu).encode(len(want), lambda s: 0)
    assert read_code_object(text).text == bytes(want)

    # a refused line after the accepted lines of its mnemonic (the ones whose parses it may
    # reuse): the diagnostic of the line alone
    by_mnemonic: dict[str, list[str]] = {}
    for line in good:
        by_mnemonic.setdefault(line.split(None, 1)[0], []).append(line)
    for line in bad:
        before = by_mnemonic.get(line.split(None, 1)[0], [])
        src = "\t.text\n" + "".join(f"\t{x}\n" for x in before) + f"\t{line}\n"
        with pytest.raises(Diagnostic) as e:
            assemble(src, target=mcpu, filename=FILE)
        assert _diag(e.value) == _diag(_alone(line, len(before) + 2, mcpu)), line

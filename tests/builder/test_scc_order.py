"""A compare's SCC overwritten by SALU arithmetic before the s_cselect / s_cbranch_scc meant to
read it (``dialect/scc_order.py``): a located error at the reader, naming both other lines.
The facts it rests on are the ISA table's (LLVM's): ``s_add_u32`` and ``s_lshl_b32`` write SCC,
``s_mov_b32`` does not, ``s_addc_u32`` reads SCC as a carry."""

from __future__ import annotations

import inspect

import pytest

from gcnforge.builder import Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import table


def _line(fn, marker: str) -> int:
    src, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(src) if marker in line)


def test_the_table_facts_the_check_rests_on():
    for m in ("s_add_u32", "s_lshl_b32", "s_and_b32", "s_cmp_lt_u32"):
        assert "scc" in table.by_mnemonic(m).implicit_defs, m
    assert "scc" not in table.by_mnemonic("s_mov_b32").implicit_defs
    assert "scc" in table.by_mnemonic("s_cselect_b32").implicit_uses
    assert "scc" in table.by_mnemonic("s_addc_u32").implicit_uses


def test_salu_arithmetic_between_the_compare_and_its_cselect_is_refused_at_the_author_line():
    def build():
        m = Module()
        with m.kernel("k") as k:
            a, b = k.s_mov_b32(3), k.s_mov_b32(5)
            k.s_cmp_lt_u32(a, b)  # COMPARE
            c = k.s_add_u32(a, 4)  # CLOBBER
            k.s_cselect_b32(c, b)  # READER
        return m

    with pytest.raises(Diagnostic) as e:
        build()
    msg, loc = str(e.value), e.value.loc
    assert f":{_line(build, 'READER')}:" in f"{loc}:" or str(_line(build, "READER")) in str(loc), str(e.value)
    assert "s_cselect_b32" in msg and "s_add_u32" in msg and "s_cmp_lt_u32" in msg
    assert f":{_line(build, 'COMPARE')}" in msg and f":{_line(build, 'CLOBBER')}" in msg


def test_a_branch_on_a_clobbered_compare_is_refused():
    m = Module()
    with pytest.raises(Diagnostic, match="s_cbranch_scc1.*s_lshl_b32"):
        with m.kernel("k") as k:
            a = k.s_mov_b32(3)
            k.s_cmp_eq_u32(a, 0)
            k.s_lshl_b32(a, 2)
            done = k.new_block()
            k.branch("s_cbranch_scc1", done, done)
            k.set_block(done)


def test_what_reads_scc_on_purpose_passes():
    m = Module()
    with m.kernel("k") as k:
        a, b = k.s_mov_b32(3), k.s_mov_b32(5)
        k.s_cmp_lt_u32(a, b)
        x = k.s_mov_b32(7)  # no SCC
        k.s_cselect_b32(x, b)  # the compare's SCC
        lo = k.s_add_u32(a, b)
        k.s_addc_u32(lo, 0)  # a carry chain: the adder's SCC on purpose
        k.s_add_u32(a, 1)
        k.s_cmp_gt_u32(a, b)  # a new compare after the arithmetic
        k.s_cselect_b32(a, b)
    m.verify()

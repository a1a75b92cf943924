"""Register types: print -> parse -> print is stable for every state, width, alignment."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from gcnforge.dialect import context
from gcnforge.dialect.types import (
    FILE_LIMIT,
    REGISTER_TYPES,
    UNALLOCATED,
    VALID_COUNTS,
    VALUE,
    SpecialRegType,
    default_align,
)

CTX = context()


def _text(t) -> str:
    s = io.StringIO()
    Printer(stream=s).print_attribute(t)
    return s.getvalue()


@given(
    file=st.sampled_from("vsa"),
    count=st.sampled_from(VALID_COUNTS),
    state=st.sampled_from(["value", "unallocated", "allocated"]),
    extra_align=st.sampled_from([1, 2, 4, 8]),
    slot=st.integers(0, 300),
)
def test_register_type_round_trip(file, count, state, extra_align, slot):
    cls = REGISTER_TYPES[file]
    align = max(default_align(file, count), extra_align)
    begin = {"value": VALUE, "unallocated": UNALLOCATED}.get(state, slot - slot % align)
    if cls.problem_of(begin, count, align) is not None:
        assert begin + count > FILE_LIMIT[file]
        with pytest.raises(VerifyException):
            cls._make(begin, count, align)
        with pytest.raises(ParseError, match="exceed"):
            Parser(CTX, f"!{cls.name}<[{begin} : {begin + count}]>").parse_type()
        return
    t = cls._make(begin, count, align)
    text = _text(t)
    back = Parser(CTX, text).parse_type()
    assert back == t
    assert _text(back) == text


def test_spellings():
    v = REGISTER_TYPES["v"]
    assert _text(v.value()) == "!amdgcn.vgpr"
    assert _text(v.value(4)) == "!amdgcn.vgpr<[? + 4]>"
    assert _text(v.unallocated()) == "!amdgcn.vgpr<?>"
    assert _text(v.unallocated(4)) == "!amdgcn.vgpr<[? : ? + 4]>"
    assert _text(v.allocated(5)) == "!amdgcn.vgpr<5>"
    assert _text(v.allocated(8, 4)) == "!amdgcn.vgpr<[8 : 12]>"
    assert v.allocated(8, 4).asm() == "v[8:11]"
    assert REGISTER_TYPES["s"].allocated(4, 4).asm() == "s[4:7]"
    assert _text(SpecialRegType.get("exec_lo")) == "!amdgcn.special<exec_lo>"


def test_alignment_rules():
    s = REGISTER_TYPES["s"]
    assert s.problem_of(3, 1) is None
    assert "not aligned to 2" in s.problem_of(3, 2)
    assert "not aligned to 4" in s.problem_of(2, 4)
    assert s.problem_of(4, 8) is None
    v = REGISTER_TYPES["v"]
    assert "not aligned to 2" in v.problem_of(1, 2)  # gfx90a+ even-aligned VGPR tuples
    assert v.problem_of(1, 1) is None
    assert "needs alignment 2" in v.problem_of(VALUE, 4, 1)

"""gcnforge.record: the dataclass behaviour its users rely on (equality, hashing,
immutability, replace, pickling), checked against the dataclasses module itself."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from gcnforge.diagnostics import SourceLoc
from gcnforge.isa.schema import Operand, OperandKind
from gcnforge.record import FrozenInstanceError


@dataclasses.dataclass(frozen=True, slots=True)
class _Loc:  # the oracle: what SourceLoc was
    file: str
    line: int
    col: int = 1


def test_frozen_record_behaves_like_a_frozen_dataclass():
    pairs = [(SourceLoc("a.s", 3), _Loc("a.s", 3)), (SourceLoc("a.s", 3, 7), _Loc("a.s", 3, 7)),
             (SourceLoc("b.s", 3, 7), _Loc("b.s", 3, 7))]
    for (r1, d1) in pairs:
        for (r2, d2) in pairs:
            assert (r1 == r2) == (d1 == d2)
            assert (hash(r1) == hash(r2)) == (hash(d1) == hash(d2))
        assert repr(r1) == repr(d1).replace("_Loc", "SourceLoc")
        assert r1.replace(col=9) == SourceLoc(r1.file, r1.line, 9)
        assert pickle.loads(pickle.dumps(r1)) == r1 and copy.deepcopy(r1) == r1
    assert SourceLoc("a.s", 1) != ("a.s", 1, 1)
    loc = SourceLoc("a.s", 1)
    with pytest.raises(FrozenInstanceError):
        loc.col = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        _Loc("a.s", 1).col = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        loc.replace(column=2)


def test_schema_records_replace_and_compare():
    o = Operand("src0", OperandKind.SRC, "src0", inline_const=True)
    o2 = o.replace(dwords=2)
    assert o2.dwords == 2 and o2.inline_const and o2 != o and o.dwords == 1
    assert {o, o2, o.replace()} == {o, o2}

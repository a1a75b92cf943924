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


_ORACLES: dict = {}


def _oracle_of(rec):
    """A frozen dataclass with the record's fields and values (what Mfma / Rule were)."""
    cls = _ORACLES.get(type(rec))
    if cls is None:
        cls = _ORACLES[type(rec)] = dataclasses.make_dataclass(type(rec).__name__, rec._fields, frozen=True,
                                                               slots=True)
    return cls(*rec._values())


def test_mfma_and_hazard_rule_records_behave_like_frozen_dataclasses():
    from gcnforge.isa import hazards, mfma

    for recs in ([mfma.info(n, "gfx942") for n in mfma.names("gfx942")[:6]] + [mfma.info(mfma.names("gfx942")[0])],
                 list(hazards.RULES.values())[:6] + [list(hazards.RULES.values())[0]]):
        for r1 in recs:
            d1 = _oracle_of(r1)
            for r2 in recs:
                d2 = _oracle_of(r2)
                assert (r1 == r2) == (d1 == d2)
                assert (hash(r1) == hash(r2)) == (hash(d1) == hash(d2))
            with pytest.raises(FrozenInstanceError):
                setattr(r1, r1._fields[0], "x")
    i = mfma.info("v_mfma_f32_32x32x8_f16", "gfx942")
    assert i.replace(passes=4) != i and i.replace() == i and i.passes_fp8 == 0


def test_isa_hazards_import_does_not_load_dataclasses():
    import subprocess
    import sys

    code = "import sys, gcnforge.isa.hazards, gcnforge.isa.mfma; print('dataclasses' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"

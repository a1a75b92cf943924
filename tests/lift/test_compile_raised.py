"""Raise -> compile: ``gcnforge raise k.hsaco -o k.mlir && gcnforge compile k.mlir -o back.hsaco``
on every clang kernel of the test suites gives back the same ``.text``, kernel descriptors
and metadata (clang's code object is the oracle), and no non-returning atomic stays opaque."""

from __future__ import annotations

import pytest

from gcnforge.binary import read_code_object
from gcnforge.cli.main import main
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.lift import parse_module
from gcnforge.lift.roundtrip import differences

from .conftest import CLANG_NAMES


@pytest.mark.parametrize("name", CLANG_NAMES)
def test_raised_clang_kernel_compiles_back(name, clang_objects, tmp_path, capsys):
    src = tmp_path / f"{name}.hsaco"
    src.write_bytes(clang_objects[name])
    mlir, back = tmp_path / f"{name}.mlir", tmp_path / "back.hsaco"
    assert main(["raise", str(src), "-o", str(mlir)]) == 0, capsys.readouterr().err
    assert main(["compile", str(mlir), "-o", str(back)]) == 0, capsys.readouterr().err
    assert differences(read_code_object(src.read_bytes()), read_code_object(back.read_bytes())) == []
    raw = [op.text.data for op in parse_module(mlir.read_text()).walk() if isinstance(op, RawInstOp)]
    assert not [t for t in raw if "atomic" in t], raw


def test_non_returning_atomic_is_an_instruction_op(clang_objects):
    from gcnforge.dialect.inst_ops import InstOp
    from gcnforge.lift import raise_code_object

    m = raise_code_object(read_code_object(clang_objects["bin_loops_atomics"]))
    atomics = [op for op in m.walk() if isinstance(op, InstOp) and "atomic" in op.mnemonic]
    assert atomics and any(not op.outs or op.off_slots for op in atomics)

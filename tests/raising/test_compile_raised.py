"""Raise -> compile: ``gcnforge raise k.hsaco -o k.mlir && gcnforge compile k.mlir -o back.hsaco``
on every clang kernel of the test suites gives back the same ``.text``, kernel descriptors
and metadata (clang's code object is the oracle), and no non-returning atomic stays opaque."""

from __future__ import annotations

import pytest

from gcnforge.binary import read_code_object
from gcnforge.cli.main import main
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.raising import parse_module
from gcnforge.raising.roundtrip import differences

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
    from gcnforge.raising import raise_code_object

    m = raise_code_object(read_code_object(clang_objects["bin_loops_atomics"]))
    atomics = [op for op in m.walk() if isinstance(op, InstOp) and "atomic" in op.mnemonic]
    assert atomics and any(not op.outs or op.off_slots for op in atomics)


def test_an_edit_needing_more_registers_grows_the_descriptor(clang_objects, tmp_path, capsys):
    """A raised kernel edited to use v40 gets a descriptor (and metadata) with room for it
    instead of clang's count, which would silently under-allocate the wave's VGPRs."""
    src = tmp_path / "vadd.hsaco"
    src.write_bytes(clang_objects["bin_vadd"])
    mlir, back = tmp_path / "vadd.mlir", tmp_path / "back.hsaco"
    assert main(["raise", str(src), "-o", str(mlir)]) == 0
    orig = read_code_object(src.read_bytes()).kernels["vadd"]
    assert orig.descriptor.next_free_vgpr < 41
    text = mlir.read_text()
    end = text.index("      amdgcn.end")
    edit = ("      %e40 = amdgcn.alloca : !amdgcn.vgpr<40>\n      %e0 = arith.constant 0 : i32\n"
            "      %e1 = amdgcn.vop1 v_mov_b32_e32 %e40, %e0 : !amdgcn.vgpr<40>, i32\n")
    mlir.write_text(text[:end] + edit + text[end:])
    assert main(["compile", str(mlir), "-o", str(back)]) == 0, capsys.readouterr().err
    k = read_code_object(back.read_bytes()).kernels["vadd"]
    assert k.descriptor.next_free_vgpr >= 41
    md = read_code_object(back.read_bytes()).metadata
    (entry,) = [e for e in md["amdhsa.kernels"] if e[".name"] == "vadd"]
    assert entry[".vgpr_count"] >= 41

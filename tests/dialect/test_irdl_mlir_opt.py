"""The IRDL export against LLVM 22's mlir-opt: the README kernels (and every instruction of
the table) verify there; IR with a wrong operand type is rejected there too."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from gcnforge.builder import Module
from gcnforge.dialect import isa_info
from gcnforge.dialect.irdl_export import dialect_irdl_text, print_mlir_generic
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import AllocaOp
from gcnforge.dialect.types import SGPRType
from xdsl.utils.exceptions import VerifyException
from gcnforge.isa import table

from .test_every_instruction import _operands
from gcnforge.testing import require_llvm

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def irdl_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("irdl") / "amdgcn.irdl.mlir"
    p.write_text(dialect_irdl_text())
    return p


def mlir_opt(irdl_file: Path, text: str) -> subprocess.CompletedProcess:
    tools = require_llvm("mlir-opt")
    return subprocess.run(
        [tools["mlir-opt"], "--allow-unregistered-dialect", f"--irdl-file={irdl_file}", "-"],
        input=text, capture_output=True, text=True, timeout=300,
    )


def _example(pinned: bool) -> Module:
    spec = importlib.util.spec_from_file_location("ex", ROOT / "examples" / "authoring_vector_add.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.build(pinned=pinned)


@pytest.mark.parametrize("pinned", [False, True])
def test_readme_kernels_verify_in_mlir_opt(irdl_file, pinned):
    m = _example(pinned)
    r = mlir_opt(irdl_file, print_mlir_generic(m.top))
    assert r.returncode == 0, r.stderr
    assert '"amdgcn.global"' in r.stdout and "global_load_dword" in r.stdout


def test_every_instruction_verifies_in_mlir_opt(irdl_file):
    m = Module("every")
    with m.kernel("k") as k:
        for inst in table.instructions():
            inf = isa_info.info(inst.mnemonic)
            if inf.family == "branch":
                continue
            ops = _operands(k, inf, with_dsts=False)
            k.inst(inst.mnemonic, *ops)
    r = mlir_opt(irdl_file, print_mlir_generic(m.top))
    assert r.returncode == 0, r.stderr[:2000]


def test_wrong_operand_type_rejected_by_mlir_opt(irdl_file):
    m = _example(False)
    text = print_mlir_generic(m.top)
    assert mlir_opt(irdl_file, text).returncode == 0
    # Give the first global load an SGPR destination: the xDSL verifier rejects it, and
    # so must mlir-opt with only the IRDL export to go by. (IRDL constrains each operand
    # position by the union over the family, so position 0 of GLOBAL -- vdst or vaddr --
    # never admits an SGPR.)
    load = next(op for op in m.top.walk() if isinstance(op, InstOp) and op.mnemonic == "global_load_dword")
    bad = AllocaOp(SGPRType.value())
    load.parent.insert_op_before(bad, load)
    operands = list(load.operands)
    operands[0] = bad.result
    load.operands = operands
    with pytest.raises(VerifyException, match="operand vdst must be a VGPR or an AGPR"):
        load.verify_()
    r = mlir_opt(irdl_file, print_mlir_generic(m.top))
    assert r.returncode != 0
    assert "'!amdgcn.sgpr<-2 : i32, 1 : i32, 1 : i32>' does not satisfy the constraint" in r.stderr

"""gcnforge's ``arith.constant`` against LLVM 22's mlir-opt (the owner of the op's syntax):
what we print, mlir-opt reads and prints back unchanged, in custom and generic form, and what
mlir-opt prints we parse to the same values. A compile never imports xDSL's ``arith`` (nor
its ``func``, its declarative-format machinery, its parser or its printer, nor PyYAML: issue 15)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, ModuleOp, f16, f32, i1, i32, i64
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from gcnforge.dialect import context
from gcnforge.dialect.constant import ConstantOp
from gcnforge.testing import require_llvm

CASES = [
    ConstantOp.from_int_and_width(42, 32),
    ConstantOp.from_int_and_width(-7, i64),
    ConstantOp.from_int_and_width(1, 1),
    ConstantOp.from_int_and_width(5, IndexType()),
    ConstantOp(FloatAttr(1.5, f32)),
    ConstantOp(FloatAttr(-0.25, f16)),
]


def _text(generic: bool) -> str:
    m = ModuleOp([op.clone() for op in CASES])
    s = io.StringIO()
    Printer(stream=s, print_generic_format=generic).print_op(m)
    return s.getvalue() + "\n"


def _mlir_opt(text: str, *flags: str) -> str:
    tools = require_llvm("mlir-opt")
    r = subprocess.run([tools["mlir-opt"], *flags, "-"], input=text, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _lines(text: str) -> list[str]:
    """The constants' text without the result names (mlir-opt names them %c42_i32, ...)."""
    return [ln.split(" = ", 1)[1].strip() for ln in text.splitlines() if "arith.constant" in ln]


@pytest.mark.parametrize("generic", [False, True])
def test_mlir_opt_reads_and_prints_back_the_same_constants(generic):
    ours = _text(generic)
    back = _mlir_opt(ours, *(["--mlir-print-op-generic"] if generic else []))
    assert _lines(back) == _lines(ours)
    assert len(_lines(ours)) == len(CASES)


def test_we_parse_what_mlir_opt_prints():
    printed = _mlir_opt(_text(False))
    m = Parser(context(), printed).parse_module()
    m.verify()
    got = [(op.value, op.result.type) for op in m.body.block.ops]
    assert all(isinstance(op, ConstantOp) for op in m.body.block.ops)
    assert got == [(op.value, op.result.type) for op in CASES]
    assert got[0] == (IntegerAttr(42, i32), i32) and got[2][1] == i1


def test_a_constant_whose_type_differs_from_its_result_does_not_verify():
    m = Parser(context(), '"arith.constant"() <{value = 42 : i32}> : () -> i64').parse_module()
    with pytest.raises(VerifyException, match="not the result type"):
        m.verify()


def test_a_string_is_not_a_constant_and_the_error_points_at_it():
    with pytest.raises(ParseError, match="integer or float") as e:
        Parser(context(), '%0 = arith.constant "s"').parse_module()
    assert ":1:21" in str(e.value)


def test_compiling_a_kernel_imports_no_xdsl_arith_func_or_format_machinery(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(
        "from gcnforge.builder import Arg, Module\n"
        "m = Module('m')\n"
        "with m.kernel('k', [Arg.ptr('p')]) as k:\n"
        "    (p,) = k.args()\n"
        "    k.global_store_dword(k.v_lshlrev_b32(2, k.thread_id('x')), k.v_mov_b32(42), p)\n"
        "    k.s_endpgm()\n")
    banned = ("xdsl.dialects.arith", "xdsl.dialects.func", "xdsl.dialects.utils",
              "xdsl.irdl.declarative_assembly_format", "xdsl.parser", "xdsl.printer",
              "yaml")  # the metadata map goes to the code-object writer without YAML text
    code = ("import sys\nfrom gcnforge.cli.main import main\n"
            f"rc = main(['compile', {str(src)!r}, '-o', {str(tmp_path / 'k.hsaco')!r}])\n"
            f"print(rc, sorted(m for m in sys.modules if m.startswith({banned!r})))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "[]"]

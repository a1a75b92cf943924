"""Ops whose declarative format is compiled on first use (``gcnforge.dialect.formats``): every
such format compiles, and prints what the lit tests (test/dialect/ops.mlir) parse back."""

from __future__ import annotations

import io

from xdsl.parser import Parser
from xdsl.printer import Printer

from gcnforge.dialect import AMDGCN, context
from gcnforge.dialect.structure_ops import EndOp, WaitOp


def _deferred():
    return [op for op in AMDGCN.operations if getattr(op.print, "format", None) is not None]


def test_every_deferred_format_compiles():
    from xdsl.irdl.declarative_assembly_format import FormatProgram

    ops = _deferred()
    assert {"amdgcn.make_range", "amdgcn.split_range", "amdgcn.wait", "amdgcn.return", "amdgcn.call",
            "amdgcn.end", "amdgcn.yield"} <= {op.name for op in ops}
    for op in ops:
        FormatProgram.from_str(op.print.format, op.get_irdl_definition())


def test_no_op_compiles_its_format_at_import():
    assert not [op.name for op in AMDGCN.operations if op.get_irdl_definition().assembly_format is not None]


def test_deferred_parse_and_print_round_trip():
    text = "builtin.module {\n  amdgcn.wait\n  amdgcn.end\n}"
    m = Parser(context(), text).parse_module()
    assert [type(op) for op in m.body.block.ops] == [WaitOp, EndOp]
    s = io.StringIO()
    Printer(stream=s).print_op(m)
    assert s.getvalue() == text

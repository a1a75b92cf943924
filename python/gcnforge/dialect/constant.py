"""``arith.constant``: the one op of MLIR's ``arith`` dialect that gcnforge IR uses.

Operands that are numbers (``v_add_u32(42, x)``) are ``arith.constant`` values, written and
read exactly as MLIR and xDSL spell them, so the IR stays what ``mlir-opt`` parses:

    %c = arith.constant 42 : i32
    %f = arith.constant 1.500000e+00 : f32
    %g = "arith.constant"() <{value = 42 : i32}> : () -> i32     // generic form

It is defined here rather than taken from ``xdsl.dialects.arith`` because importing that
module (about sixty op classes and their declarative formats) cost a whole ``gcnforge
compile`` of a small kernel more CPU time than everything the compile does after start-up
(issue 15). ``ARITH`` is the ``arith`` dialect of gcnforge's contexts: it holds only this op,
so other ``arith`` ops are unknown operations there, as they always were to the passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import Parser
    from xdsl.printer import Printer


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A number of integer (signless or index) or float type; the result has its type."""

    name = "arith.constant"
    result = result_def()
    value = prop_def(Attribute)

    def __init__(self, value: IntegerAttr | FloatAttr, value_type: Attribute | None = None):
        super().__init__(result_types=[value_type or value.get_type()], properties={"value": value})

    @staticmethod
    def from_int_and_width(value: int, value_type: int | IntegerType | IndexType) -> ConstantOp:
        if isinstance(value_type, int):
            value_type = IntegerType(value_type)
        return ConstantOp.create(result_types=[value_type], properties={"value": IntegerAttr(value, value_type)})

    def verify_(self) -> None:
        v = self.value
        ok = (isinstance(v, IntegerAttr) and isinstance(v.type, IntegerType | IndexType)) or (
            isinstance(v, FloatAttr) and isinstance(v.type, AnyFloat))
        if not ok:
            raise VerifyException(f"arith.constant takes an integer or float number, not {v}")
        if v.type != self.result.type:
            raise VerifyException(f"arith.constant: the value's type {v.type} is not the result type {self.result.type}")

    # MLIR's format for it: `attr-dict $value`
    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attrs = parser.parse_optional_attr_dict()
        start = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, IntegerAttr | FloatAttr):
            parser.raise_error("arith.constant takes an integer or float number", start, parser.pos)
        op = cls(value)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)


ARITH = Dialect("arith", [ConstantOp], [])

__all__ = ["ConstantOp", "ARITH"]

"""``lift.inst``: an instruction kept as its LLVM text (what raising cannot describe).

Raising (``gcnforge.raising``) turns every instruction it can describe exactly into an
``amdgcn`` instruction op. An instruction the dialect has no faithful form for (an operand
such as ``src_shared_base``, a forced literal ``lit(0x0)``) stays a ``lift.inst`` carrying
its text, its pc and, as operands, the pinned registers it reads and writes, so the
register allocator treats them as read and written. It is emitted verbatim; it is opaque
to the wait and hazard analyses. It lives beside the dialect (loaded by ``context()``) so
that raised IR parses and compiles wherever ``amdgcn`` IR does.

    lift.inst "s_mov_b64 s[6:7], src_shared_base" (%s6_7) {pc = 40 : i64} : !amdgcn.sgpr<[6 : 8]>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import IRDLOperation, attr_def, irdl_op_definition, var_operand_def

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import Parser
    from xdsl.printer import Printer


@irdl_op_definition
class RawInstOp(IRDLOperation):
    name = "lift.inst"
    text = attr_def(StringAttr)
    regs = var_operand_def()

    def __init__(self, text: str, regs: Sequence[SSAValue], pc: int | None = None):
        attrs: dict[str, Attribute] = {"text": StringAttr(text)}
        if pc is not None:
            attrs["pc"] = IntegerAttr(pc, i64)
        super().__init__(operands=[list(regs)], attributes=attrs)

    @classmethod
    def parse(cls, parser: Parser) -> RawInstOp:
        text = parser.parse_str_literal()
        ops = []
        if parser.parse_optional_punctuation("("):
            if not parser.parse_optional_punctuation(")"):
                ops = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
                parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict()
        types = []
        if ops:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        op = cls.create(operands=parser.resolve_operands(ops, types, parser.pos),
                        attributes={"text": StringAttr(text)})
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.text.data)
        if self.regs:
            printer.print_string(" (")
            printer.print_list(self.regs, printer.print_operand)
            printer.print_string(")")
        printer.print_op_attributes({k: v for k, v in self.attributes.items() if k != "text"})
        if self.regs:
            printer.print_string(" : ")
            printer.print_list([r.type for r in self.regs], printer.print_attribute)


LIFT = Dialect("lift", [RawInstOp], [])

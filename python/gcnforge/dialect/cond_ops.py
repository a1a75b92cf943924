"""A structured conditional of the ``amdgcn`` dialect: ``amdgcn.if`` with merged results.

``amdgcn.if`` compares two 32-bit scalar values with a SOPC compare (``s_cmp_*_i32`` /
``s_cmp_*_u32``, the instruction that sets SCC) and runs its *then* region when the compare
is true (SCC = 1), its *else* region otherwise. Each region is one block without arguments
ending in ``amdgcn.yield``; the values the taken region yields are the op's results (both
regions yield the same types)::

    %r = amdgcn.if s_cmp_ge_i32 (%n, %c4 : !amdgcn.sgpr, i32) -> (!amdgcn.vgpr) {
      %x = amdgcn.vop2 v_add_f32_e32 %d, %a, %b : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield %x : !amdgcn.vgpr
    } else {
      amdgcn.yield %a : !amdgcn.vgpr
    }

An if without results may leave out ``else`` (an empty else region). Values defined in a
region are visible only there (``dominance``); the results only after the op. Memory tokens
are not results: a token cannot live in a register (wait inside the region that issued it).

``amdgcn-lower-loops`` lowers it to ``s_cmp_*`` + ``s_cbranch_scc0`` to the else block, the
two blocks writing one storage register per result, and a join block
(``gcnforge.schedule.lower_if``).

Registration: ``COND_OPS`` lists the op for the dialect.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import i32
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import IRDLOperation, attr_def, irdl_op_definition, operand_def, region_def, var_result_def
from xdsl.utils.exceptions import VerifyException

from gcnforge.dialect import isa_info
from gcnforge.dialect.attrs import InstAttr
from gcnforge.dialect.loop_ops import YieldOp
from gcnforge.dialect.types import ReadTokenType, SGPRType, WriteTokenType

if TYPE_CHECKING:
    from xdsl.parser import Parser
    from xdsl.printer import Printer


@functools.cache
def compare_mnemonics() -> tuple[str, ...]:
    """The SOPC compares of two 32-bit values (``s_cmp_{eq,lg,gt,ge,lt,le}_{i32,u32}``) in
    the ISA table: what an ``amdgcn.if`` may test."""
    return tuple(m for m in isa_info.family_mnemonics().get("sopc", ())
                 if m.startswith("s_cmp_") and m.endswith(("_i32", "_u32")))


def _is_scalar32(t: Attribute) -> bool:
    return t == i32 or (isinstance(t, SGPRType) and t.width == 1)


@irdl_op_definition
class IfOp(IRDLOperation):
    """``amdgcn.if``: then/else regions on an SCC compare, yielding merged values."""

    name = "amdgcn.if"
    inst = attr_def(InstAttr)  # the SOPC compare
    lhs = operand_def()
    rhs = operand_def()
    res = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")

    def __init__(self, compare: str, lhs: SSAValue, rhs: SSAValue, result_types: Sequence[Attribute] = (),
                 then_region: Region | None = None, else_region: Region | None = None):
        then_region = then_region or Region(Block())
        else_region = else_region or Region(Block())
        super().__init__(operands=[lhs, rhs], result_types=[list(result_types)],
                         attributes={"inst": InstAttr.get(compare)}, regions=[then_region, else_region])

    @property
    def compare(self) -> str:
        return self.inst.mnemonic.data

    @property
    def then_block(self) -> Block:
        return self.then_region.blocks[0]

    @property
    def else_block(self) -> Block:
        return self.else_region.blocks[0]

    # -- text -------------------------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        pos = parser.pos
        m = parser.parse_identifier(" (an s_cmp_* compare)")
        if m not in compare_mnemonics():
            parser.raise_error(f"amdgcn.if compares with one of {', '.join(compare_mnemonics())}; got '{m}'",
                               pos, parser.pos)
        parser.parse_punctuation("(")
        pos = parser.pos
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        if len(unresolved) != 2 or len(types) != 2:
            parser.raise_error("amdgcn.if compares two values: (lhs, rhs : type, type)", pos, parser.pos)
        lhs, rhs = parser.resolve_operands(unresolved, types, pos)
        results: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            results = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        extra = parser.parse_optional_attr_dict_with_keyword(("inst",))
        then_r = parser.parse_region()
        if parser.parse_optional_keyword("else"):
            else_r = parser.parse_region()
        else:  # (with results, no else is an error the verifier reports)
            else_r = Region(Block([] if results else [YieldOp()]))
        op = cls(m, lhs, rhs, results, then_r, else_r)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.compare} (")
        printer.print_list((self.lhs, self.rhs), printer.print_operand)
        printer.print_string(" : ")
        printer.print_list((self.lhs.type, self.rhs.type), printer.print_attribute)
        printer.print_string(")")
        if self.res:
            printer.print_string(" -> (")
            printer.print_list([r.type for r in self.res], printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes, reserved_attr_names=("inst",), print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.then_region, print_entry_block_args=False, print_empty_block=True)
        e = self.else_block if self.else_region.blocks else None
        if self.res or e is None or len(e.ops) != 1 or not isinstance(e.last_op, YieldOp):
            printer.print_string(" else ")
            printer.print_region(self.else_region, print_entry_block_args=False, print_empty_block=True)

    # -- rules ------------------------------------------------------------------------------
    def verify_(self) -> None:
        if self.compare not in compare_mnemonics():
            raise VerifyException(f"amdgcn.if: '{self.compare}' is not a 32-bit s_cmp_* compare "
                                  f"(one of {', '.join(compare_mnemonics())})")
        for name, v in (("lhs", self.lhs), ("rhs", self.rhs)):
            if not _is_scalar32(v.type):
                raise VerifyException(f"amdgcn.if: {name} must be a 32-bit SGPR or an i32 constant, got {v.type}")
        rt = [r.type for r in self.res]
        for t in rt:
            if isinstance(t, ReadTokenType | WriteTokenType):
                raise VerifyException("amdgcn.if: a memory token cannot be a result (it has no register): "
                                      "wait for it inside the branch that issued it")
        for which, region in (("then", self.then_region), ("else", self.else_region)):
            if len(region.blocks) != 1:
                raise VerifyException(f"amdgcn.if: the {which} region is one block")
            b = region.blocks[0]
            if b.args:
                raise VerifyException(f"amdgcn.if: the {which} block takes no arguments")
            y = b.last_op
            if not isinstance(y, YieldOp):
                raise VerifyException(f"amdgcn.if: the {which} region must end with amdgcn.yield "
                                      f"({', '.join(map(str, rt))})")
            yt = [v.type for v in y.values]
            if yt != rt:
                raise VerifyException(f"amdgcn.if: the {which} region yields ({', '.join(map(str, yt))}) but the "
                                      f"results are ({', '.join(map(str, rt))})")


COND_OPS = (IfOp,)

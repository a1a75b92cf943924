"""Counted loops of the ``amdgcn`` dialect: ``amdgcn.loop`` and its terminator ``amdgcn.yield``.

A loop runs its body ``count`` times (a static trip count) over iteration arguments. The
author may mark it with *unroll dimensions*: ``dims [4, 2, 8]`` says one unrolled body is a
4 x 2 x 8 nest (P = 64 logical iterations), and ``perm [2, 0, 1]`` the loop order of that
nest (outermost first; default ``[0, 1, 2]``, the last dimension innermost). The body's
entry block takes one ``i32`` index per dimension (the iteration's position in the nest,
constants once unrolled), then one argument per iteration value::

    %acc = amdgcn.loop 64 dims [4, 2, 8] perm [2, 0, 1] iter(%init : !amdgcn.vgpr) {
    ^bb0(%i : i32, %j : i32, %k : i32, %a : !amdgcn.vgpr):
      ...
      amdgcn.yield %next : !amdgcn.vgpr
    }

A loop with run-time bounds takes ``lb``, ``ub`` and ``step`` (SGPR values or ``i32``
constants) instead of a count and runs for ``iv = lb; iv < ub; iv += step`` (signed, ``step >
0``; no iteration when ``lb >= ub``); its body's first argument is ``iv`` (an SGPR)::

    %acc = amdgcn.loop (%lb, %n, %c1 : i32, !amdgcn.sgpr, i32) iter(%init : !amdgcn.vgpr) {
    ^bb0(%iv : !amdgcn.sgpr, %a : !amdgcn.vgpr):
      ...
    }

Ops of the body may carry a schedule ``sched = array<i64: delay, rate[, stage]>``; the
``amdgcn-schedule`` pass (``gcnforge.schedule``) expands the loop by those numbers. Nothing
else interprets them: without that pass the loop means what it says, one body after another.

Registration: this module defines the ops; ``LOOP_OPS`` lists them for the dialect.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, i32, i64
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.formats import deferred_format
from gcnforge.dialect.types import SGPRType

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import Parser
    from xdsl.printer import Printer

SCHED_ATTR = "sched"  # a body op's schedule (``gcnforge.schedule.expr`` reads and writes it)
MAX_TRIP_COUNT = 1 << 20  # bound on anything the pass expands (no input-controlled hang)


def _ints(a: DenseArrayBase | None) -> tuple[int, ...]:
    return tuple(int(x) for x in a.get_values()) if a is not None else ()  # type: ignore[union-attr]


@irdl_op_definition
class YieldOp(IRDLOperation):
    """The values of the iteration arguments for the next iteration (or the loop's results)."""

    name = "amdgcn.yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())
    parse, print = deferred_format("attr-dict ($values^ `:` type($values))?")

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


def _print_typed(printer: Printer, opening: str, values) -> None:
    """``opening`` then ``%a, %b : t1, t2)``: a loop's bounds or initial values with their types."""
    printer.print_string(opening)
    printer.print_list(values, printer.print_operand)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


@irdl_op_definition
class LoopOp(IRDLOperation):
    """A counted loop over a region with iteration arguments and unroll dimensions."""

    name = "amdgcn.loop"
    count = opt_attr_def(IntegerAttr)  # absent: run-time bounds, the first three operands
    dims = opt_attr_def(DenseArrayBase)
    perm = opt_attr_def(DenseArrayBase)
    operands_ = var_operand_def()  # [lb, ub, step] (run-time bounds) + the iteration values' inits
    res = var_result_def()
    body = region_def("single_block")

    def __init__(
        self,
        count: int | Sequence[SSAValue],
        inits: Sequence[SSAValue] = (),
        dims: Sequence[int] = (),
        perm: Sequence[int] | None = None,
        body: Region | None = None,
    ):
        """``count``: a static trip count, or the run-time bounds ``(lb, ub, step)``."""
        attrs: dict[str, Attribute] = {}
        bounds: list[SSAValue] = []
        if isinstance(count, int):
            attrs["count"] = IntegerAttr(count, i64)
        else:
            bounds = list(count)
        if dims:
            attrs["dims"] = DenseArrayBase.from_list(i64, list(dims))
        if perm is not None and list(perm) != list(range(len(dims))):
            attrs["perm"] = DenseArrayBase.from_list(i64, list(perm))
        types = [v.type for v in inits]
        if body is None:
            iv = [SGPRType.value(1)] if bounds else []
            body = Region(Block(arg_types=iv + [i32] * len(dims) + types))
        super().__init__(operands=[bounds + list(inits)], result_types=[types], attributes=attrs, regions=[body])

    # -- accessors ------------------------------------------------------------------------
    @property
    def is_runtime(self) -> bool:
        """Whether the bounds are run-time values (``lb``, ``ub``, ``step``), not a count."""
        return self.count is None

    @property
    def bounds(self) -> tuple[SSAValue, ...]:
        return tuple(self.operands_[:3]) if self.is_runtime else ()

    @property
    def inits(self) -> tuple[SSAValue, ...]:
        return tuple(self.operands_[3:]) if self.is_runtime else tuple(self.operands_)

    @property
    def trip_count(self) -> int:
        if self.count is None:
            raise Diagnostic("amdgcn.loop: this loop's trip count is known only at run time", self)
        return self.count.value.data

    @property
    def iv(self) -> SSAValue | None:
        """The induction variable of a loop with run-time bounds (the body's first argument)."""
        return self.block.args[0] if self.is_runtime else None

    @property
    def unroll_dims(self) -> tuple[int, ...]:
        return _ints(self.dims)

    @property
    def order(self) -> tuple[int, ...]:
        """Loop order of the nest, outermost dimension first."""
        p = _ints(self.perm)
        return p if p else tuple(range(len(self.unroll_dims)))

    @property
    def block(self) -> Block:
        return self.body.blocks[0]

    @property
    def index_args(self) -> tuple[SSAValue, ...]:
        first = int(self.is_runtime)
        return tuple(self.block.args[first: first + len(self.unroll_dims)])

    @property
    def iter_args(self) -> tuple[SSAValue, ...]:
        return tuple(self.block.args[int(self.is_runtime) + len(self.unroll_dims):])

    @property
    def yield_op(self) -> YieldOp:
        y = self.block.last_op
        assert isinstance(y, YieldOp)
        return y

    # -- text -------------------------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        count: int | list[SSAValue]
        if parser.parse_optional_punctuation("("):
            pos = parser.pos
            unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(unresolved) != 3 or len(types) != 3:
                parser.raise_error("amdgcn.loop bounds are (lb, ub, step : type, type, type)", pos, parser.pos)
            count = parser.resolve_operands(unresolved, types, pos)
        else:
            count = parser.parse_integer(allow_negative=False, allow_boolean=False)
        dims: list[int] = []
        perm: list[int] | None = None
        if parser.parse_optional_keyword("dims"):
            dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        if parser.parse_optional_keyword("perm"):
            perm = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        inits: list[SSAValue] = []
        if parser.parse_optional_keyword("iter"):
            parser.parse_punctuation("(")
            unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            pos = parser.pos
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            if len(types) != len(unresolved):
                parser.raise_error(f"{len(unresolved)} iteration value(s) but {len(types)} type(s)", pos, parser.pos)
            inits = parser.resolve_operands(unresolved, types, pos)
        extra = parser.parse_optional_attr_dict_with_keyword(("count", "dims", "perm"))
        region = parser.parse_region()
        op = cls(count, inits, dims, perm, region)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        if self.is_runtime:
            _print_typed(printer, " (", self.bounds)
        else:
            printer.print_string(f" {self.trip_count}")
        if self.dims is not None:
            printer.print_string(f" dims [{', '.join(map(str, self.unroll_dims))}]")
        if self.perm is not None:
            printer.print_string(f" perm [{', '.join(map(str, _ints(self.perm)))}]")
        if self.inits:
            _print_typed(printer, " iter(", self.inits)
        printer.print_op_attributes(self.attributes, reserved_attr_names=("count", "dims", "perm"), print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)

    # -- rules ------------------------------------------------------------------------------
    def verify_(self) -> None:
        if self.is_runtime:
            self._verify_bounds()
        elif not 0 <= (n := self.trip_count) <= MAX_TRIP_COUNT:
            raise VerifyException(f"amdgcn.loop: trip count {n} must be in [0, {MAX_TRIP_COUNT}]")
        dims = self.unroll_dims
        if any(d <= 0 for d in dims):
            raise VerifyException(f"amdgcn.loop: unroll dims must be positive, got {list(dims)}")
        p = 1
        for d in dims:
            p *= d
        if p > MAX_TRIP_COUNT:
            raise VerifyException(f"amdgcn.loop: the unroll nest has {p} iterations (at most {MAX_TRIP_COUNT})")
        if self.perm is not None and sorted(_ints(self.perm)) != list(range(len(dims))):
            raise VerifyException(
                f"amdgcn.loop: perm {list(_ints(self.perm))} is not a permutation of the {len(dims)} dims"
            )
        if len(self.body.blocks) != 1:
            raise VerifyException("amdgcn.loop: the body is one block")
        args = self.block.args
        iv = [SGPRType.value(1)] if self.is_runtime else []
        want = iv + [i32] * len(dims) + [v.type for v in self.inits]
        got = [a.type for a in args]
        if got != want:
            raise VerifyException(
                f"amdgcn.loop: the body takes {'the induction variable (an SGPR), ' if iv else ''}one i32 index per "
                f"unroll dim then the iteration values: "
                f"expected ({', '.join(map(str, want))}), got ({', '.join(map(str, got))})"
            )
        for a in self.index_args:
            if not isinstance(a.type, IntegerType):
                raise VerifyException("amdgcn.loop: index arguments are i32")
        y = self.block.last_op
        if not isinstance(y, YieldOp):
            raise VerifyException("amdgcn.loop: the body must end with amdgcn.yield")
        yt = [v.type for v in y.values]
        rt = [r.type for r in self.res]
        if yt != rt or rt != [v.type for v in self.inits]:
            raise VerifyException(
                f"amdgcn.loop: amdgcn.yield ({', '.join(map(str, yt))}) must match the iteration values "
                f"({', '.join(map(str, rt))})"
            )


    def _verify_bounds(self) -> None:
        if len(self.operands_) < 3:
            raise VerifyException("amdgcn.loop: run-time bounds are three values (lb, ub, step)")
        for name, v in zip(("lb", "ub", "step"), self.bounds, strict=True):
            t = v.type
            if not (t == i32 or (isinstance(t, SGPRType) and t.width == 1)):
                raise VerifyException(f"amdgcn.loop: {name} must be a 32-bit SGPR or an i32 constant, got {t}")
        step = self.bounds[2].owner
        if isinstance(step, ConstantOp) and isinstance(step.value, IntegerAttr) and step.value.value.data <= 0:
            raise VerifyException(f"amdgcn.loop: step {step.value.value.data} must be positive")


LOOP_OPS = (LoopOp, YieldOp)

"""Value ops of the ``amdgcn`` dialect: registers and the abstract values the passes lower.

* ``amdgcn.alloca`` -- storage or a destination placeholder (see its doc);
* ``amdgcn.make_range`` / ``amdgcn.split_range`` -- build and take apart register ranges;
* ``amdgcn.load_arg``, ``amdgcn.thread_id``, ``amdgcn.block_id`` -- kernel arguments and
  ids, lowered by the ABI pass to ``s_load_dword*`` and preloaded registers;
* ``amdgcn.lds_alloc`` -- static LDS, placed by the LDS layout;
* ``amdgcn.wait`` -- wait for memory tokens, lowered to ``s_waitcnt`` by the wait pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    operand_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from gcnforge.dialect.formats import deferred_format
from gcnforge.dialect.types import (
    VALUE,
    ReadTokenType,
    RegisterType,
    SGPRType,
    SpecialRegType,
    VGPRType,
    WriteTokenType,
)

from gcnforge.isa import table
from gcnforge.isa.target import TARGETS

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import Parser
    from xdsl.printer import Printer


def module_target(op: Operation) -> str:
    """The ``#amdgcn.target`` of the ``amdgcn.module`` around (or at) ``op``; the active
    target (``isa.table.use_target``, gfx942 by default) for an op outside any module."""
    p: Operation | None = op
    while p is not None and p.name != "amdgcn.module":
        p = p.parent_op()
    if p is None:
        return table.active_target()
    return p.attributes["target"].chip.data  # type: ignore[attr-defined]


def input_target(root: Operation) -> str:
    """The one target of the ``amdgcn.module`` ops at or directly under ``root`` (a
    ``builtin.module`` holding them); the active target when there are none. Modules for
    two targets in one input are an error: passes and code objects serve one target."""
    mods = [root] if root.name == "amdgcn.module" else [
        op for region in root.regions for block in region.blocks for op in block.ops if op.name == "amdgcn.module"]
    chips = list(dict.fromkeys(m.attributes["target"].chip.data for m in mods))  # type: ignore[attr-defined]
    if len(chips) > 1:
        from gcnforge.diagnostics import Diagnostic

        raise Diagnostic(f"modules for different targets ({', '.join(chips)}) in one input; "
                         "a pipeline and a code object serve one target", mods[1])
    return chips[0] if chips else table.active_target()


def lds_bytes(op: Operation) -> int:
    """LDS bytes per work-group on ``op``'s target (``gcnforge.isa.target``)."""
    t = TARGETS.get(module_target(op))
    return t.lds_bytes if t is not None else TARGETS[table.TARGET].lds_bytes


@irdl_op_definition
class AllocaOp(IRDLOperation):
    """Storage for a destination. ``amdgcn.alloca : !amdgcn.vgpr<11>`` pins v11;
    ``!amdgcn.vgpr<?>`` is storage the allocator will place; ``!amdgcn.vgpr`` (value type)
    is a placeholder destination for fresh SSA definitions: it names no storage, so one
    placeholder may serve many instructions, each yielding a new value. Instructions whose
    destination is storage (``<?>``, ``<N>``) write it in place and yield the new value."""

    name = "amdgcn.alloca"
    result = result_def(RegisterType | SpecialRegType)

    @classmethod
    def parse(cls, parser: Parser) -> AllocaOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls.create(result_types=[parser.parse_type()])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def __init__(self, t: RegisterType | SpecialRegType):
        super().__init__(result_types=[t])


def _same_file(ts: Sequence[Attribute]) -> type[RegisterType] | None:
    kinds = {type(t) for t in ts}
    if len(kinds) != 1 or not issubclass(next(iter(kinds)), RegisterType):
        return None
    return next(iter(kinds))


def _check_contiguous(parts: Sequence[RegisterType], whole: RegisterType, what: str) -> None:
    total = sum(p.width for p in parts)
    if total != whole.width:
        raise VerifyException(f"{what}: parts hold {total} dwords but the range holds {whole.width}")
    if whole.is_allocated:
        at = whole.begin.data
        for p in parts:
            if p.begin.data != at:
                raise VerifyException(
                    f"{what}: allocated parts must be consecutive registers of the range "
                    f"(expected {type(p).FILE}{at}, got {p})"
                )
            at += p.width
    elif any(p.is_allocated for p in parts):
        raise VerifyException(f"{what}: allocated parts need an allocated range")


@irdl_op_definition
class MakeRangeOp(IRDLOperation):
    """Concatenate registers of one file into a range (``v[4:7]`` from four VGPRs)."""

    name = "amdgcn.make_range"
    parts = var_operand_def(RegisterType)
    result = result_def(RegisterType)
    parse, print = deferred_format("$parts attr-dict `:` type($parts) `->` type($result)")

    def __init__(self, parts: Sequence[SSAValue], result_type: RegisterType | None = None):
        if result_type is None:
            t0 = parts[0].type
            assert isinstance(t0, RegisterType)
            result_type = t0.with_count(sum(p.type.width for p in parts), VALUE)  # type: ignore[attr-defined]
        super().__init__(operands=[list(parts)], result_types=[result_type])

    def verify_(self) -> None:
        ts = [p.type for p in self.parts] + [self.result.type]
        if _same_file(ts) is None:
            raise VerifyException("amdgcn.make_range: parts and range must be of one register file")
        _check_contiguous(ts[:-1], ts[-1], "amdgcn.make_range")  # type: ignore[arg-type]


@irdl_op_definition
class SplitRangeOp(IRDLOperation):
    """Split a range into consecutive parts (``v[4:7]`` into ``v[4:5]``, ``v6``, ``v7``)."""

    name = "amdgcn.split_range"
    range = operand_def(RegisterType)
    parts = var_result_def(RegisterType)
    parse, print = deferred_format("$range attr-dict `:` type($range) `->` type($parts)")

    def __init__(self, rng: SSAValue, part_types: Sequence[RegisterType]):
        super().__init__(operands=[rng], result_types=[list(part_types)])

    def verify_(self) -> None:
        ts = [p.type for p in self.parts] + [self.range.type]
        if _same_file(ts) is None:
            raise VerifyException("amdgcn.split_range: parts and range must be of one register file")
        _check_contiguous(ts[:-1], ts[-1], "amdgcn.split_range")  # type: ignore[arg-type]


def enclosing_kernel(op: Operation):
    """The ``amdgcn.kernel`` around ``op`` (by name: this module sits below the kernel op)."""
    p = op.parent_op()
    while p is not None and p.name != "amdgcn.kernel":
        p = p.parent_op()
    return p


@irdl_op_definition
class LoadArgOp(IRDLOperation):
    """The value of kernel argument ``index`` in SGPRs: ``amdgcn.load_arg 0 : !amdgcn.sgpr<[? + 2]>``.
    Lowered to an ``s_load_dword*`` from the kernarg segment pointer (which it requests)."""

    name = "amdgcn.load_arg"
    index = attr_def(IntegerAttr)
    result = result_def(SGPRType)

    def __init__(self, index: int, t: SGPRType):
        super().__init__(attributes={"index": IntegerAttr(index, i32)}, result_types=[t])

    @classmethod
    def parse(cls, parser: Parser) -> LoadArgOp:
        i = parser.parse_integer(allow_negative=False)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, SGPRType):
            parser.raise_error(f"amdgcn.load_arg yields SGPRs, got {t}")
        return cls(i, t)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.index.value.data} : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        k = enclosing_kernel(self)
        if k is None:
            raise VerifyException("amdgcn.load_arg must be inside an amdgcn.kernel")
        i = self.index.value.data
        args = k.kernel_args
        if not 0 <= i < len(args):
            raise VerifyException(f"kernel @{k.sym_name.data} has {len(args)} argument(s); no argument {i}")
        want = (args[i].size.data + 3) // 4
        got = self.result.type.width  # type: ignore[attr-defined]
        if got != want:
            raise VerifyException(
                f"argument {i} is {args[i].size.data} bytes: load it into {want} SGPR(s), not {got}"
            )


class _IdOp(IRDLOperation):
    dim = attr_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        d = parser.parse_identifier()
        if d not in ("x", "y", "z"):
            parser.raise_error("expected dimension x, y or z", pos, parser.pos)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.create(attributes={"dim": StringAttr(d)}, result_types=[t])

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dim.data} : ")
        printer.print_attribute(self.result.type)  # type: ignore[attr-defined]

    def verify_(self) -> None:
        if self.dim.data not in ("x", "y", "z"):
            raise VerifyException(f"{self.name}: dimension must be x, y or z, got {self.dim.data}")
        if self.result.type.width != 1:  # type: ignore[attr-defined]
            raise VerifyException(f"{self.name} yields one register")


@irdl_op_definition
class ThreadIdOp(_IdOp):
    """Work-item id within the work-group (preloaded VGPR): ``amdgcn.thread_id x : !amdgcn.vgpr``."""

    name = "amdgcn.thread_id"
    result = result_def(VGPRType)

    def __init__(self, dim: str = "x", t: VGPRType | None = None):
        super().__init__(attributes={"dim": StringAttr(dim)}, result_types=[t or VGPRType.value()])


@irdl_op_definition
class BlockIdOp(_IdOp):
    """Work-group id (preloaded system SGPR): ``amdgcn.block_id x : !amdgcn.sgpr``."""

    name = "amdgcn.block_id"
    result = result_def(SGPRType)

    def __init__(self, dim: str = "x", t: SGPRType | None = None):
        super().__init__(attributes={"dim": StringAttr(dim)}, result_types=[t or SGPRType.value()])


@irdl_op_definition
class LdsAllocOp(IRDLOperation):
    """Reserve ``size`` bytes of LDS aligned to ``align``; yields the byte offset as an
    ``i32`` value (a literal once the LDS layout pass has placed it, or ``offset`` if
    given): ``%buf = amdgcn.lds_alloc 4096 align 16 : i32``."""

    name = "amdgcn.lds_alloc"
    size = attr_def(IntegerAttr)
    align = attr_def(IntegerAttr)
    offset = opt_attr_def(IntegerAttr)
    result = result_def(IntegerType)

    def __init__(self, size: int, align: int = 4, offset: int | None = None):
        attrs: dict[str, Attribute | None] = {"size": IntegerAttr(size, i32), "align": IntegerAttr(align, i32)}
        if offset is not None:
            attrs["offset"] = IntegerAttr(offset, i32)
        super().__init__(attributes=attrs, result_types=[i32])

    @classmethod
    def parse(cls, parser: Parser) -> LdsAllocOp:
        size = parser.parse_integer(allow_negative=False)
        parser.parse_keyword("align")
        align = parser.parse_integer(allow_negative=False)
        offset = None
        if parser.parse_optional_keyword("offset"):
            offset = parser.parse_integer(allow_negative=False)
        parser.parse_punctuation(":")
        parser.parse_type()
        return cls(size, align, offset)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.size.value.data} align {self.align.value.data}")
        if self.offset is not None:
            printer.print_string(f" offset {self.offset.value.data}")
        printer.print_string(" : i32")

    def verify_(self) -> None:
        s, a = self.size.value.data, self.align.value.data
        limit = lds_bytes(self)
        if not 0 < s <= limit:
            raise VerifyException(f"amdgcn.lds_alloc: size {s} must be in (0, {limit}] on {module_target(self)}")
        if a <= 0 or a & (a - 1):
            raise VerifyException(f"amdgcn.lds_alloc: align {a} must be a power of two")
        if self.offset is not None:
            o = self.offset.value.data
            if o % a or o + s > limit:
                raise VerifyException(f"amdgcn.lds_alloc: offset {o} is misaligned or out of LDS")


@irdl_op_definition
class WaitOp(IRDLOperation):
    """Wait until the memory operations that produced ``tokens`` have completed. The wait
    pass turns it into the weakest ``s_waitcnt`` that covers them (in-order counters)."""

    name = "amdgcn.wait"
    tokens = var_operand_def(ReadTokenType | WriteTokenType)
    parse, print = deferred_format("($tokens^ `:` type($tokens))? attr-dict")

    def __init__(self, *tokens: SSAValue):
        super().__init__(operands=[list(tokens)])


VALUE_OPS = (AllocaOp, MakeRangeOp, SplitRangeOp, LoadArgOp, ThreadIdOp, BlockIdOp, LdsAllocOp, WaitOp)

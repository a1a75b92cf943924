"""Structure ops of the ``amdgcn`` dialect: modules, kernels, functions, control flow, and
the helper ops the passes lower (register pinning, ranges, kernel arguments, ids, LDS,
waits on memory tokens).

::

    amdgcn.module @m #amdgcn.target<gfx942> {
      amdgcn.kernel @k attributes {args = [#amdgcn.arg<kind = global_buffer, ...>], ...} {
        %p = amdgcn.load_arg 0 : !amdgcn.sgpr<[? + 2]>
        %tid = amdgcn.thread_id x : !amdgcn.vgpr
        ...
        amdgcn.end
      }
      amdgcn.func @helper(%a : !amdgcn.vgpr) -> !amdgcn.vgpr { ... amdgcn.return %x : !amdgcn.vgpr }
    }

Pre/post-conditions the passes rely on: before register allocation, ``load_arg``,
``thread_id``, ``block_id`` and ``lds_alloc`` are abstract; the ABI lowering pass turns them
into preloaded registers / ``s_load`` instructions / constants and records what it needs
in the kernel's ABI attributes. ``amdgcn.wait`` is lowered to ``s_waitcnt`` by the wait pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FunctionType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    i32,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
    var_successor_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from gcnforge.dialect import isa_info
from gcnforge.dialect.attrs import (
    SYSTEM_SGPRS,
    SYSTEM_VGPRS,
    USER_SGPRS,
    FloatModeAttr,
    InstAttr,
    KernelArgAttr,
    TargetAttr,
)
from gcnforge.dialect.types import (
    VALUE,
    ReadTokenType,
    RegisterType,
    SGPRType,
    SpecialRegType,
    VGPRType,
    WriteTokenType,
)

LDS_BYTES = 65536  # per work-group on gfx942 (ISA guide 3.x; gcnforge.isa.target)


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """A code object's worth of kernels and functions for one target."""

    name = "amdgcn.module"
    sym_name = attr_def(SymbolNameConstraint())
    target = attr_def(TargetAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), IsolatedFromAbove(), NoTerminator())

    def __init__(self, name: str, ops: Sequence[Operation] = (), target: str = "gfx942"):
        super().__init__(
            attributes={"sym_name": StringAttr(name), "target": TargetAttr.get(target)},
            regions=[Region(Block(ops))],
        )

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        name = parser.parse_symbol_name().data
        target = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict_with_keyword(("sym_name", "target"))
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls.create(
            attributes={"sym_name": StringAttr(name), "target": target}, regions=[region]
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" ")
        printer.print_attribute(self.target)
        printer.print_op_attributes(self.attributes, reserved_attr_names=("sym_name", "target"), print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def _check_terminated(op: Operation, what: str) -> None:
    for block in op.regions[0].blocks:
        last = block.last_op
        if last is None or not last.has_trait(IsTerminator):
            raise VerifyException(
                f"every block of {what} must end with a terminator (amdgcn.end, amdgcn.branch"
                f"{', amdgcn.return' if what.startswith('a function') else ''})"
            )


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A kernel entry point and its ABI.

    Attributes: ``args`` (``#amdgcn.arg`` list, in argument order), ``user_sgprs`` /
    ``system_sgprs`` / ``system_vgprs`` (preloaded registers requested, names as LLVM's
    ``.amdhsa_user_sgpr_*`` / ``.amdhsa_system_sgpr_*`` / workitem ids), ``lds_size``
    (static LDS bytes), ``workgroup_size`` (``array<i32: x, y, z>``, the required size or
    the maximum), ``float_mode`` (``#amdgcn.float_mode``).
    """

    name = "amdgcn.kernel"
    sym_name = attr_def(SymbolNameConstraint())
    args = opt_attr_def(ArrayAttr)
    user_sgprs = opt_attr_def(ArrayAttr)
    system_sgprs = opt_attr_def(ArrayAttr)
    system_vgprs = opt_attr_def(ArrayAttr)
    lds_size = opt_attr_def(IntegerAttr)
    workgroup_size = opt_attr_def(DenseArrayBase)
    float_mode = opt_attr_def(FloatModeAttr)
    body = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), HasParent(ModuleOp))

    def __init__(
        self,
        name: str,
        args: Sequence[KernelArgAttr] = (),
        region: Region | None = None,
        *,
        user_sgprs: Sequence[str] = (),
        system_sgprs: Sequence[str] = (),
        system_vgprs: Sequence[str] = (),
        lds_size: int | None = None,
        workgroup_size: Sequence[int] | None = None,
        float_mode: FloatModeAttr | None = None,
    ):
        attrs: dict[str, Attribute | None] = {"sym_name": StringAttr(name)}
        if args:
            attrs["args"] = ArrayAttr(list(args))
        if user_sgprs:
            attrs["user_sgprs"] = ArrayAttr([StringAttr(s) for s in user_sgprs])
        if system_sgprs:
            attrs["system_sgprs"] = ArrayAttr([StringAttr(s) for s in system_sgprs])
        if system_vgprs:
            attrs["system_vgprs"] = ArrayAttr([StringAttr(s) for s in system_vgprs])
        if lds_size is not None:
            attrs["lds_size"] = IntegerAttr(lds_size, i32)
        if workgroup_size is not None:
            attrs["workgroup_size"] = DenseArrayBase.from_list(i32, list(workgroup_size))
        attrs["float_mode"] = float_mode
        super().__init__(attributes=attrs, regions=[region or Region(Block())])

    @property
    def kernel_args(self) -> tuple[KernelArgAttr, ...]:
        return tuple(self.args.data) if self.args is not None else ()  # type: ignore[return-value]

    @classmethod
    def parse(cls, parser: Parser) -> KernelOp:
        name = parser.parse_symbol_name().data
        attrs = parser.parse_optional_attr_dict_with_keyword(("sym_name",))
        region = parser.parse_region()
        op = cls.create(attributes={"sym_name": StringAttr(name)}, regions=[region])
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_op_attributes(self.attributes, reserved_attr_names=("sym_name",), print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=False)

    def verify_(self) -> None:
        for a in self.kernel_args:
            if not isinstance(a, KernelArgAttr):
                raise VerifyException(f"kernel args must be #amdgcn.arg attributes, got {a}")
        for attr, known in (
            (self.user_sgprs, tuple(USER_SGPRS)),
            (self.system_sgprs, SYSTEM_SGPRS),
            (self.system_vgprs, SYSTEM_VGPRS),
        ):
            seen: set[str] = set()
            for s in attr.data if attr is not None else ():
                if not isinstance(s, StringAttr) or s.data not in known:
                    raise VerifyException(f"unknown preloaded register {s} (expected one of {', '.join(known)})")
                if s.data in seen:
                    raise VerifyException(f"preloaded register {s} is listed twice")
                seen.add(s.data)
        if self.user_sgprs is not None:
            n = sum(USER_SGPRS[s.data] for s in self.user_sgprs.data)  # type: ignore[union-attr]
            if n > 16:
                raise VerifyException(f"user SGPRs need {n} registers; at most 16 can be preloaded")
        if self.lds_size is not None and not 0 <= self.lds_size.value.data <= LDS_BYTES:
            raise VerifyException(f"lds_size {self.lds_size.value.data} exceeds the {LDS_BYTES} bytes of LDS")
        if self.workgroup_size is not None:
            dims = self.workgroup_size.get_values()
            prod = 1
            for d in dims:
                prod *= int(d)
            if len(dims) != 3 or any(d <= 0 for d in dims) or prod > 1024:
                raise VerifyException(
                    f"workgroup_size must be 3 positive sizes with at most 1024 work-items, got {list(dims)}"
                )
        if self.body.blocks and self.body.blocks[0].args:
            raise VerifyException("a kernel's entry block takes no arguments (use amdgcn.load_arg)")
        _check_terminated(self, "a kernel")


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A callable piece of a kernel (a nanokernel): registers in, registers out. It is
    inlined by the passes; no calling convention is implied before that."""

    name = "amdgcn.func"
    sym_name = attr_def(SymbolNameConstraint())
    function_type = attr_def(FunctionType)
    body = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), HasParent(ModuleOp))

    def __init__(self, name: str, inputs: Sequence[Attribute], outputs: Sequence[Attribute], region: Region | None = None):
        if region is None:
            region = Region(Block(arg_types=inputs))
        super().__init__(
            attributes={"sym_name": StringAttr(name), "function_type": FunctionType.from_lists(inputs, outputs)},
            regions=[region],
        )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name, ins, outs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type")
        )
        if arg_attrs or res_attrs:
            parser.raise_error("amdgcn.func arguments and results take no attributes")
        op = cls(name, ins, outs, region)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer, self.sym_name, self.function_type, self.body, self.attributes,
            reserved_attr_names=("sym_name", "function_type"),
        )

    def verify_(self) -> None:
        if not self.body.blocks:
            raise VerifyException("amdgcn.func needs a body")
        got = tuple(a.type for a in self.body.blocks[0].args)
        if got != tuple(self.function_type.inputs.data):
            raise VerifyException("amdgcn.func entry block arguments must match the function type")
        _check_terminated(self, "a function")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    name = "amdgcn.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(FuncOp))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])

    def verify_(self) -> None:
        func = self.parent_op()
        assert isinstance(func, FuncOp)
        want = tuple(func.function_type.outputs.data)
        got = tuple(v.type for v in self.values)
        if got != want:
            raise VerifyException(
                f"amdgcn.return types ({', '.join(map(str, got))}) do not match the function's "
                f"results ({', '.join(map(str, want))})"
            )


@irdl_op_definition
class CallOp(IRDLOperation):
    name = "amdgcn.call"
    callee = attr_def(SymbolRefAttr)
    call_args = var_operand_def()
    res = var_result_def()
    assembly_format = "$callee `(` $call_args `)` attr-dict `:` functional-type($call_args, $res)"

    def __init__(self, callee: str, args: Sequence[SSAValue], result_types: Sequence[Attribute]):
        super().__init__(
            operands=[list(args)], result_types=[list(result_types)], attributes={"callee": SymbolRefAttr(callee)}
        )

    def verify_(self) -> None:
        mod = self.parent_op()
        while mod is not None and not isinstance(mod, ModuleOp):
            mod = mod.parent_op()
        if mod is None:
            return
        target = SymbolTable.lookup_symbol(mod, self.callee)
        if not isinstance(target, FuncOp):
            raise VerifyException(f"'{self.callee.string_value()}' is not an amdgcn.func in this module")
        ft = target.function_type
        if tuple(a.type for a in self.call_args) != tuple(ft.inputs.data) or tuple(
            r.type for r in self.res
        ) != tuple(ft.outputs.data):
            raise VerifyException(f"call to '{self.callee.string_value()}' does not match its type {ft}")


@irdl_op_definition
class EndOp(IRDLOperation):
    """``s_endpgm``: the end of a kernel's execution."""

    name = "amdgcn.end"
    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class BranchOp(IRDLOperation):
    """A scalar branch instruction (``s_branch``, ``s_cbranch_*``) with its successors:
    the target, then (for conditional branches) the fall-through block.

    ``amdgcn.branch s_cbranch_scc1 ^loop, ^exit``
    """

    name = "amdgcn.branch"
    inst = attr_def(InstAttr)
    dests = var_successor_def()
    traits = traits_def(IsTerminator())

    def __init__(self, mnemonic: str, *dests: Block):
        super().__init__(attributes={"inst": InstAttr.get(mnemonic)}, successors=[list(dests)])

    @property
    def mnemonic(self) -> str:
        return self.inst.mnemonic.data

    @classmethod
    def parse(cls, parser: Parser) -> BranchOp:
        pos = parser.pos
        m = parser.parse_identifier(" (a branch mnemonic)")
        if isa_info.info(m) is None:
            parser.raise_error(f"unknown instruction '{m}' (not in the gfx942 ISA table)", pos, parser.pos)
        dests = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_successor)
        attrs = parser.parse_optional_attr_dict()
        op = cls(m, *dests)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mnemonic} ")
        printer.print_list(self.dests, printer.print_block_name)
        printer.print_op_attributes({k: v for k, v in self.attributes.items() if k != "inst"})

    def verify_(self) -> None:
        inf = isa_info.info(self.mnemonic)
        if inf is None:
            raise VerifyException(f"unknown instruction '{self.mnemonic}' (not in the gfx942 ISA table)")
        if inf.family != "branch":
            raise VerifyException(f"'{self.mnemonic}' is not a branch (it is a {inf.family} instruction)")
        want = 1 if self.mnemonic == "s_branch" else 2
        if len(self.dests) != want:
            what = "a target" if want == 1 else "a target and a fall-through block"
            raise VerifyException(f"{self.mnemonic} takes {what}, got {len(self.dests)} successor(s)")


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
    assembly_format = "$parts attr-dict `:` type($parts) `->` type($result)"

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
    assembly_format = "$range attr-dict `:` type($range) `->` type($parts)"

    def __init__(self, rng: SSAValue, part_types: Sequence[RegisterType]):
        super().__init__(operands=[rng], result_types=[list(part_types)])

    def verify_(self) -> None:
        ts = [p.type for p in self.parts] + [self.range.type]
        if _same_file(ts) is None:
            raise VerifyException("amdgcn.split_range: parts and range must be of one register file")
        _check_contiguous(ts[:-1], ts[-1], "amdgcn.split_range")  # type: ignore[arg-type]


def enclosing_kernel(op: Operation) -> KernelOp | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, KernelOp):
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
        if not 0 < s <= LDS_BYTES:
            raise VerifyException(f"amdgcn.lds_alloc: size {s} must be in (0, {LDS_BYTES}]")
        if a <= 0 or a & (a - 1):
            raise VerifyException(f"amdgcn.lds_alloc: align {a} must be a power of two")
        if self.offset is not None:
            o = self.offset.value.data
            if o % a or o + s > LDS_BYTES:
                raise VerifyException(f"amdgcn.lds_alloc: offset {o} is misaligned or out of LDS")


@irdl_op_definition
class WaitOp(IRDLOperation):
    """Wait until the memory operations that produced ``tokens`` have completed. The wait
    pass turns it into the weakest ``s_waitcnt`` that covers them (in-order counters)."""

    name = "amdgcn.wait"
    tokens = var_operand_def(ReadTokenType | WriteTokenType)
    assembly_format = "($tokens^ `:` type($tokens))? attr-dict"

    def __init__(self, *tokens: SSAValue):
        super().__init__(operands=[list(tokens)])


STRUCTURE_OPS = (
    ModuleOp, KernelOp, FuncOp, ReturnOp, CallOp, EndOp, BranchOp, AllocaOp, MakeRangeOp,
    SplitRangeOp, LoadArgOp, ThreadIdOp, BlockIdOp, LdsAllocOp, WaitOp,
)

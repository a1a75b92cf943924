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

The value ops (alloca, ranges, load_arg, ids, lds_alloc, wait) are defined in
``value_ops`` and re-exported here.

Pre/post-conditions the passes rely on: before register allocation, ``load_arg``,
``thread_id``, ``block_id`` and ``lds_alloc`` are abstract; the ABI lowering pass turns them
into preloaded registers / ``s_load`` instructions / constants and records what it needs
in the kernel's ABI attributes. ``amdgcn.wait`` is lowered to ``s_waitcnt`` by the wait pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
    var_successor_def,
)
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
from gcnforge.isa import table
from gcnforge.dialect.attrs import (
    SYSTEM_SGPRS,
    SYSTEM_VGPRS,
    USER_SGPRS,
    FloatModeAttr,
    InstAttr,
    KernelArgAttr,
    TargetAttr,
)
from gcnforge.dialect.formats import deferred_format
from gcnforge.dialect.value_ops import (
    VALUE_OPS,
    AllocaOp,
    BlockIdOp,
    LdsAllocOp,
    LoadArgOp,
    MakeRangeOp,
    SplitRangeOp,
    ThreadIdOp,
    WaitOp,
    enclosing_kernel,
    lds_bytes,
    module_target,
)

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import Parser
    from xdsl.printer import Printer

@irdl_op_definition
class ModuleOp(IRDLOperation):
    """A code object's worth of kernels and functions for one target."""

    name = "amdgcn.module"
    sym_name = attr_def(SymbolNameConstraint())
    target = attr_def(TargetAttr)
    body = region_def("single_block")
    traits = traits_def(SymbolOpInterface(), SymbolTable(), IsolatedFromAbove(), NoTerminator())

    def __init__(self, name: str, ops: Sequence[Operation] = (), target: str | None = None):
        """``target``: a processor (``gfx950``); default the active target (gfx942 unless a
        caller chose another with ``isa.table.use_target``)."""
        super().__init__(
            attributes={"sym_name": StringAttr(name), "target": TargetAttr.get(target or table.active_target())},
            regions=[Region(Block(ops))],
        )

    @property
    def chip(self) -> str:
        return self.attributes["target"].chip.data  # type: ignore[attr-defined]

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        name = parser.parse_symbol_name().data
        target = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict_with_keyword(("sym_name", "target"))
        chip = target.chip.data if isinstance(target, TargetAttr) else None
        if chip is not None and chip in table.known_targets():
            with table.use_target(chip):  # the body's instructions are the target's
                region = parser.parse_region()
        else:  # not a target attribute: the verifier says so
            region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        return _symbol_op(cls, name, attrs, region, target=target)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" ")
        printer.print_attribute(self.target)
        printer.print_op_attributes(self.attributes, reserved_attr_names=("sym_name", "target"), print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def _symbol_op(cls, name: str, attrs: DictionaryAttr | None, region: Region, **fixed: Attribute) -> Operation:
    """A parsed symbol op (module, kernel): its name, fixed attributes, attribute dict and body."""
    op = cls.create(attributes={"sym_name": StringAttr(name), **fixed}, regions=[region])
    if attrs is not None:
        op.attributes |= attrs.data
    return op


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
        return _symbol_op(cls, name, attrs, parser.parse_region())

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
        if self.lds_size is not None and self.lds_size.value.data < 0:
            raise VerifyException(f"lds_size {self.lds_size.value.data} is negative")
        if self.lds_size is not None and self.lds_size.value.data > (limit := lds_bytes(self)):
            raise VerifyException(f"lds_size {self.lds_size.value.data} exceeds the {limit} bytes of LDS "
                                  f"of {module_target(self)}")
        if self.workgroup_size is not None:
            dims = self.workgroup_size.get_values()
            prod = 1
            for d in dims:
                prod *= int(d)
            if len(dims) != 3 or any(d <= 0 for d in dims) or prod > 1024:
                raise VerifyException(
                    f"workgroup_size must be 3 positive sizes with at most 1024 work-items, got {list(dims)}"
                )
        if not self.body.blocks:  # the passes and the emitter need an entry block
            raise VerifyException("a kernel needs a body: at least a block ending in amdgcn.end")
        if self.body.blocks[0].args:
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
        from xdsl.dialects.utils import parse_func_op_like  # not imported by a compile (~20 ms)

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
        from xdsl.dialects.utils import print_func_op_like

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
    parse, print = deferred_format("attr-dict ($values^ `:` type($values))?")

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
    parse, print = deferred_format("$callee `(` $call_args `)` attr-dict `:` functional-type($call_args, $res)")

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
    parse, print = deferred_format("attr-dict")

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
            parser.raise_error(isa_info.unknown_message(m), pos, parser.pos)
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
        inf = isa_info.info(self.mnemonic, module_target(self))
        if inf is None:
            raise VerifyException(isa_info.unknown_message(self.mnemonic, module_target(self)))
        if inf.family != "branch":
            raise VerifyException(f"'{self.mnemonic}' is not a branch (it is a {inf.family} instruction)")
        want = 1 if self.mnemonic == "s_branch" else 2
        if len(self.dests) != want:
            what = "a target" if want == 1 else "a target and a fall-through block"
            raise VerifyException(f"{self.mnemonic} takes {what}, got {len(self.dests)} successor(s)")



STRUCTURE_OPS = (ModuleOp, KernelOp, FuncOp, ReturnOp, CallOp, EndOp, BranchOp, *VALUE_OPS)

__all__ = [
    "STRUCTURE_OPS", "ModuleOp", "KernelOp", "FuncOp", "ReturnOp", "CallOp", "EndOp", "BranchOp",
    "AllocaOp", "MakeRangeOp", "SplitRangeOp", "LoadArgOp", "ThreadIdOp", "BlockIdOp", "LdsAllocOp",
    "WaitOp", "lds_bytes", "module_target", "enclosing_kernel",
]

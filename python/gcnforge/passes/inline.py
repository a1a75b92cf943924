"""``amdgcn-inline``: inline ``amdgcn.func`` nanokernels at their ``amdgcn.call`` sites.

The callee's body is cloned at the call: its arguments become the call's operands (by
reference: a function that writes an argument in place writes the caller's registers, as
destination passing says), its ``amdgcn.return`` values replace the call's results, and
every other value is fresh, so the register allocator places the copies independently
(the "renaming"). Calls inside inlined bodies are inlined in turn (depth-bounded, so a
recursive function is an error, not a hang).

Option ``keep`` (comma-separated function names) leaves those calls in place; the
translation to assembly has no calling convention yet and reports them.

Pre: callees are single-block functions. Post: no ``amdgcn.call`` remains (except kept
ones); functions no longer called are erased from the module.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.structure_ops import CallOp, FuncOp, KernelOp, ReturnOp

MAX_DEPTH = 64


def _funcs(module: Operation) -> dict[str, FuncOp]:
    return {f.sym_name.data: f for f in module.walk() if isinstance(f, FuncOp)}


def inline_call(call: CallOp, callee: FuncOp) -> None:
    if len(callee.body.blocks) != 1:
        raise Diagnostic(f"cannot inline @{callee.sym_name.data}: only single-block functions are supported",
                         call)
    body = callee.body.blocks[0]
    mapping: dict = {a: v for a, v in zip(body.args, call.call_args, strict=True)}
    block = call.parent_block()
    assert block is not None
    for op in body.ops:
        if isinstance(op, ReturnOp):
            for r, v in zip(call.res, op.values, strict=True):
                r.replace_all_uses_with(mapping.get(v, v))
            continue
        new = op.clone(value_mapper=mapping)
        block.insert_op_before(new, call)
    call.detach()
    call.erase()


@dataclass(frozen=True)
class InlinePass(ModulePass):
    name = "amdgcn-inline"

    keep: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kept = {k for k in self.keep.split(",") if k}
        funcs = _funcs(op)
        for _ in range(MAX_DEPTH):
            calls = [c for c in op.walk() if isinstance(c, CallOp)
                     and c.callee.string_value() not in kept]
            if not calls:
                break
            for c in calls:
                name = c.callee.string_value()
                f = funcs.get(name)
                if f is None:
                    raise Diagnostic(f"call to unknown function @{name}")
                inline_call(c, f)
        else:
            raise Diagnostic(f"inlining did not finish after {MAX_DEPTH} rounds: is a function recursive?")
        still = {c.callee.string_value() for c in op.walk() if isinstance(c, CallOp)}
        for name, f in funcs.items():
            if name not in still and name not in kept:
                from xdsl.rewriter import Rewriter  # only when a function goes away

                Rewriter.erase_op(f)


__all__ = ["InlinePass", "inline_call", "IRDLOperation", "KernelOp"]

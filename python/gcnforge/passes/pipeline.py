"""The compilation pipeline as a named, printable pass list.

``DEFAULT`` is what ``gcnforge compile`` runs; ``parse`` accepts the same text as
``gcnforge-opt -p`` (``name{opt=value},name``). ``run`` applies the passes in order and
can print the IR after each (``--print-ir-after-all``) or after named ones.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from gcnforge.diagnostics import Diagnostic
from gcnforge.passes.registry import PASSES

DEFAULT = ("amdgcn-schedule,amdgcn-lower-loops,amdgcn-inline,amdgcn-lower-abi,amdgcn-regalloc,"
           "amdgcn-insert-waits,amdgcn-hazards")


def parse(text: str = DEFAULT) -> list[ModulePass]:
    out: list[ModulePass] = []
    try:
        specs = list(parse_pipeline(text))
    except Exception as e:  # xDSL raises its own parse errors
        raise Diagnostic(f"bad pass pipeline '{text}': {e}") from None
    for spec in specs:
        f = PASSES.get(spec.name)
        if f is None:
            raise Diagnostic(f"unknown pass '{spec.name}' (known: {', '.join(PASSES)})")
        try:
            out.append(f().from_pass_spec(spec))
        except Exception as e:
            raise Diagnostic(f"bad options for pass '{spec.name}': {e}") from None
    return out


def text_of(passes: list[ModulePass]) -> str:
    return ",".join(p.pipeline_pass_spec().__str__() if hasattr(p, "pipeline_pass_spec") else p.name
                    for p in passes)


def ir_text(module: ModuleOp) -> str:
    s = io.StringIO()
    from xdsl.printer import Printer

    Printer(stream=s).print_op(module)
    return s.getvalue() + "\n"


def run(module: ModuleOp, passes: list[ModulePass], print_after: set[str] | None = None,
        print_all: bool = False, out=None, ctx=None) -> None:
    from gcnforge.dialect import context
    from gcnforge.dialect.value_ops import input_target
    from gcnforge.isa import table

    ctx = ctx or context()
    out = out or sys.stderr
    with table.use_target(input_target(module)):  # the module's #amdgcn.target: its table and facts
        _run(module, passes, ctx, out, print_after, print_all)


def _run(module: ModuleOp, passes: list[ModulePass], ctx, out, print_after: set[str] | None, print_all: bool) -> None:
    from gcnforge.dialect.dominance import check_dominance
    from gcnforge.dialect.source import fill_locations

    # IR built in Python was never parsed, so nothing checked that each value is visible where
    # it is used (a value of a loop body or an if branch read after it compiled to a register
    # holding whatever was last written there): MLIR's rule, once, before the first pass
    check_dominance(module)
    for p in passes:
        try:
            p.apply(ctx, module)
        except (VerifyException, DiagnosticException) as e:  # xDSL's checks: they name no op
            raise located_failure(module, p.name, e) from None
        fill_locations(module)  # ops the pass created: the location of the op they serve
        if print_all or (print_after and p.name in print_after):
            out.write(f"// -----// IR Dump After {p.name} //----- //\n")
            out.write(ir_text(module))


def located_failure(module: ModuleOp, pass_name: str, e: Exception) -> Diagnostic:
    """An xDSL error escaping a pass, at the first op that no longer verifies (else the
    module), so a 500-line kernel still says which line."""
    from gcnforge.dialect.source import verify_located

    msg = str(e).splitlines()[0] if str(e) else type(e).__name__
    try:
        verify_located(module)
    except Diagnostic as d:
        return Diagnostic(d.message, d.op if d.op is not None else d.loc, (f"after pass {pass_name}",))
    first = next((op for op in module.walk() if op is not module), module)
    return Diagnostic(f"{pass_name}: {msg}", first)


__all__ = ["DEFAULT", "parse", "run", "text_of", "ir_text", "Callable"]

"""``gcnforge-opt``: parse, verify, transform and print ``amdgcn`` IR (like ``xdsl-opt``).

    gcnforge-opt kernel.mlir                      # parse + verify + print (custom syntax)
    gcnforge-opt -p pass-a,pass-b{opt=1} k.mlir   # run a pass pipeline
    gcnforge-opt --split-input-file --verify-diagnostics invalid.mlir
    gcnforge-opt --print-op-generic k.mlir        # generic form (xDSL)
    gcnforge-opt --mlir-generic k.mlir            # generic form LLVM's mlir-opt reads with the IRDL export
    gcnforge-opt --emit-irdl -o amdgcn.irdl.mlir  # the dialect as IRDL
    gcnforge-opt --mcpu gfx950 k.mlir             # the input must be for gfx950 (also --target gfx950)

Built on ``xdsl.xdsl_opt_main.xDSLOptMain``: its options (``-o``, ``-p``,
``--split-input-file``, ``--verify-diagnostics``, ``--parsing-diagnostics``,
``--print-op-generic``, ...) behave as in ``xdsl-opt``.

Registering passes (for ``gcnforge.passes``): a pass is an ``xdsl.passes.ModulePass``
subclass with a ``name``. ``gcnforge-opt`` imports ``gcnforge.passes.registry`` if it exists
and registers every entry of its ``PASSES`` mapping ``{name: () -> type[ModulePass]}``
(factories, so that importing the registry stays cheap). Passes are then usable as
``-p name`` or ``-p 'name{option=value}'`` (xDSL's pipeline syntax). Every xDSL pass
(``canonicalize``, ``cse``, ``dce``, ...) is available too.

``--mcpu PROC`` (``-mcpu=``, or ``--target PROC`` for a processor name: xDSL's own
``--target`` chooses the output format) is the default target of instructions outside an
``amdgcn.module`` and what every ``#amdgcn.target`` of the input must be. Passes run with
the module's target (its instruction table, hazard and counter rows, limits).

Errors in the input (syntax, verifier) print as ``file:line:col`` diagnostics and exit 1;
with ``--verify-diagnostics`` / ``--parsing-diagnostics`` they are printed to stdout and
the exit code is 0, for lit tests that FileCheck the messages.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from gcnforge.cli._gc import batch_gc, skip_exit_collection

    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        from gcnforge.cli.main import version_line

        print(version_line("gcnforge-opt"))
        return 0
    skip_exit_collection()
    # the collector's batch setting before xDSL's driver and the dialects are imported: with
    # CPython's default threshold, importing them ran ~18 ms of collections that free nothing
    with batch_gc(restore=argv is not None):  # (a process's own command ends with it)
        from gcnforge.cli._opt import run

        return run(argv)


def __getattr__(name: str):
    # the driver's names (GcnforgeOptMain, registered_passes, expectations, ...) on first use
    from gcnforge.cli import _opt

    try:
        return getattr(_opt, name)
    except AttributeError:
        raise AttributeError(f"module 'gcnforge.cli.opt' has no attribute {name!r}") from None


if __name__ == "__main__":
    sys.exit(main())

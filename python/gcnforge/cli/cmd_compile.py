"""``gcnforge compile KERNEL.py|KERNEL.mlir -o out.hsaco``: passes, assembly, code object.

A Python file is run and every ``gcnforge.builder.Module`` it leaves in its globals is
compiled (a module-level ``build()`` function is called when there is none); all their
kernels go into one code object, or only those named with ``--kernel``. ``-S`` writes the
``.s`` instead. ``--toolchain llvm`` assembles with llvm-mc + ld.lld instead of the
built-in assembler. ``--pipeline`` replaces the pass list (``--print-pipeline`` shows it);
``--print-ir-after-all`` / ``--print-ir-after=PASS`` print the IR to stderr as MLIR does.
``--target gfx950`` (or ``--mcpu``) builds a Python file's modules for gfx950 (a ``Module``
without an explicit target takes it) and checks that a ``.mlir`` module is for it.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

from gcnforge.cli import _mcpu as target_option
from gcnforge.diagnostics import Diagnostic


def _load_python(path: Path):
    from xdsl.dialects.builtin import ModuleOp as BuiltinModule

    from gcnforge.builder.kernel import Module
    from gcnforge.dialect.structure_ops import ModuleOp

    sys.path.insert(0, str(path.parent))
    line = 0  # where a failure that leaves no frame in the author's file is reported
    try:
        # the author's code runs twice: the script itself, then its build() when it leaves no
        # Module; a failure in either is located at the author's line, without our traceback
        try:
            g = runpy.run_path(str(path), run_name="__gcnforge_compile__")
        except SystemExit:
            g = {}
        mods = [v for v in g.values() if isinstance(v, Module)]
        if not mods and callable(g.get("build")):
            code = getattr(g["build"], "__code__", None)
            line = code.co_firstlineno if code is not None and code.co_filename == str(path) else 0
            r = g["build"]()  # e.g. a TypeError for a build() whose parameters lack defaults: its def line
            mods = [r] if isinstance(r, Module) else []
    except Diagnostic:
        raise
    except Exception as e:
        tb = e.__traceback__
        if isinstance(e, SyntaxError) and e.filename == str(path):
            line = e.lineno or 0
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(path):
                line = tb.tb_lineno
            tb = tb.tb_next
        raise Diagnostic(f"{type(e).__name__}: {e}", f"{path}:{line}") from None
    finally:
        sys.path.remove(str(path.parent))
    if not mods:
        raise Diagnostic("the file defines no gcnforge.builder.Module (and no build() returning one)", str(path))
    chips = list(dict.fromkeys(m.target for m in mods))
    if len(chips) > 1:  # one code object has one target
        raise Diagnostic(f"the file's modules are for different targets ({', '.join(chips)})", str(path))
    target = ModuleOp("compiled", target=chips[0])
    seen: dict[str, str] = {}
    for m in {id(m): m for m in mods}.values():  # a module bound to two names is compiled once
        for op in list(m.op.body.block.ops):
            name = op.sym_name.data if hasattr(op, "sym_name") else None
            if name is not None:
                if name in seen and seen[name] != m.name:
                    raise Diagnostic(f"@{name} is defined in modules {seen[name]} and {m.name}", str(path))
                seen[name] = m.name
            # moved, not cloned: nothing uses the author's modules after this, and cloning
            # cost about 15% of building a 5,000-instruction kernel (issue 15)
            op.detach()
            target.body.block.add_op(op)
    return BuiltinModule([target])


def _load_mlir(path: Path):
    from gcnforge.cli._source import read_text
    from gcnforge.dialect.source import parse_module  # every op located; located parse/verify errors
    from gcnforge.schedule.dialect import context  # the loop ops too

    text, name = read_text(str(path))
    return parse_module(text, name, context())


def load(path: Path, target: str | None = None):
    """The file's IR; ``target`` (a processor): a Python file's default target, and what a
    ``.mlir`` module must be for (else a Diagnostic)."""
    from gcnforge.dialect.value_ops import input_target
    from gcnforge.isa import table

    if not path.exists():
        raise Diagnostic(f"no such file: {path}")
    if path.suffix not in (".py", ".mlir"):
        raise Diagnostic("compile takes a kernel written in Python (.py) or amdgcn IR (.mlir)", str(path))
    with table.use_target(target):
        mod = _load_python(path) if path.suffix == ".py" else _load_mlir(path)
    have = input_target(mod)
    if target is not None and have != target:
        raise Diagnostic(f"--target {target}: the input is for {have}", str(path))
    return mod


def compile_file(path: Path, pipeline: str, kernels: list[str] | None, toolchain: str, asm_only: bool,
                 print_after: set[str] | None = None, print_all: bool = False, target: str | None = None) -> bytes | str:
    from gcnforge.cli._gc import batch_gc

    with batch_gc():
        return _compile(path, pipeline, kernels, toolchain, asm_only, print_after, print_all, target)


def _compile(path: Path, pipeline: str, kernels: list[str] | None, toolchain: str, asm_only: bool,
             print_after: set[str] | None, print_all: bool, target: str | None = None) -> bytes | str:
    from gcnforge.passes import pipeline as pl
    from gcnforge.translate import to_assembly, to_code_object

    mod = load(path, target)
    pl.run(mod, pl.parse(pipeline), print_after, print_all)
    if _raised(mod):
        # raised code (gcnforge raise) keeps its descriptors, metadata and the bytes between
        # kernels: its own emitter gives the original code object back when nothing changed
        from gcnforge.binary import assemble
        from gcnforge.dialect.value_ops import input_target
        from gcnforge.raising import module_asm
        from gcnforge.raising.emit import recount_grown

        if kernels:
            raise Diagnostic("--kernel does not apply to a raised module (it is emitted whole)", str(path))
        recount_grown(mod)  # an edit that needs more registers than the descriptor gives
        text = module_asm(mod)
        return text if asm_only else assemble(text, target=input_target(mod), toolchain=toolchain,
                                               filename=str(path))
    if asm_only:
        return to_assembly(mod, kernels)
    return to_code_object(mod, toolchain, kernels, filename=str(path))


def _raised(module) -> bool:
    from gcnforge.dialect.structure_ops import ModuleOp

    return any(isinstance(op, ModuleOp) and "lift.target" in op.attributes for op in module.walk())


def _run(args: argparse.Namespace) -> int:
    from gcnforge.passes import pipeline as pl

    if args.print_pipeline:
        print(args.pipeline)
        return 0
    if not args.input:
        raise Diagnostic("compile: an input file is required")
    out = compile_file(Path(args.input), args.pipeline, args.kernel or None, args.toolchain, args.S,
                       set(args.print_ir_after or ()), args.print_ir_after_all, target_option.processor(args.target))
    dest = args.output or (Path(args.input).stem + (".s" if args.S else ".hsaco"))
    if dest == "-":
        if isinstance(out, str):
            sys.stdout.write(out)
        else:
            sys.stdout.buffer.write(out)
    elif isinstance(out, str):
        Path(dest).write_text(out)
    else:
        Path(dest).write_bytes(out)
    del pl
    return 0


# kept in step with gcnforge.passes.pipeline.DEFAULT (a test checks); not imported here so
# that building the CLI parser stays cheap and independent of the passes
DEFAULT = ("amdgcn-schedule,amdgcn-lower-loops,amdgcn-inline,amdgcn-lower-abi,amdgcn-regalloc,"
           "amdgcn-insert-waits,amdgcn-hazards")


def register(subparsers) -> None:
    p = subparsers.add_parser("compile", help="compile a kernel (.py or .mlir) to a code object or assembly")
    p.add_argument("input", nargs="?", help="KERNEL.py or KERNEL.mlir")
    p.add_argument("-o", "--output", help="output file (default: input name with .hsaco / .s; '-' for stdout)")
    p.add_argument("-S", action="store_true", help="write assembly text instead of a code object")
    p.add_argument("--kernel", action="append", help="compile only this kernel (repeatable)")
    p.add_argument("--toolchain", choices=("builtin", "llvm"), default="builtin")
    target_option.add_option(p, what=" (default: a Python file's modules are for gfx942, a .mlir module's "
                                     "#amdgcn.target is used)")
    p.add_argument("--pipeline", default=DEFAULT, help=f"pass pipeline (default: {DEFAULT})")
    p.add_argument("--print-pipeline", action="store_true", help="print the pass pipeline and exit")
    p.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    p.add_argument("--print-ir-after", action="append", metavar="PASS", help="print the IR after PASS (stderr)")
    p.set_defaults(func=_run)

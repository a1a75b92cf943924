"""``gcnforge as FILE.s``: assemble and print each instruction with its encoding (like
``llvm-mc -show-encoding``); ``-o out.hsaco`` writes a code object via
``gcnforge.binary.assemble`` (the built-in toolchain)."""

from __future__ import annotations

import sys


def _run(args) -> int:
    from gcnforge.diagnostics import Diagnostic

    from gcnforge.cli._source import read_text

    text, name = read_text(args.file)
    if args.output:
        if args.toolchain == "builtin":  # straight to the assembler: no subprocess/tempfile imports
            from gcnforge.binary.assembler import assemble_builtin

            data = assemble_builtin(text, args.mcpu, name)
        else:
            from gcnforge.binary import assemble

            data = assemble(text, target=args.mcpu, toolchain=args.toolchain, filename=name)
        with open(args.output, "wb") as f:
            f.write(data)
        return 0
    from gcnforge.isa import table

    if table.processor(args.mcpu) not in table.known_targets():  # don't encode with another table silently
        raise Diagnostic(f"--mcpu {args.mcpu}: the encoding listing knows {', '.join(table.known_targets())} "
                         "(with -o, the code object's target may be another gfx9 processor)")
    from gcnforge.asm.listing import show_encoding
    from gcnforge.binary.assembler import check_statements

    listing = show_encoding(text, name, target=args.mcpu)
    check_statements(text, args.mcpu, name)  # the directives too, as llvm-mc -show-encoding reads them
    sys.stdout.write(listing)
    return 0


def register(sub) -> None:
    p = sub.add_parser("as", help="assemble gfx942/gfx950 assembly (print encodings, or -o a code object)")
    p.add_argument("file", help="assembly file ('-' for stdin)")
    p.add_argument("-o", "--output", help="write a code object (HSACO) here instead of printing encodings")
    from gcnforge.cli._mcpu import known

    p.add_argument("--mcpu", "--target", "-mcpu", dest="mcpu", default="gfx942",
                   help=f"target processor or id ({known()}; default gfx942)")
    p.add_argument("--toolchain", default="builtin", choices=("builtin", "llvm"))
    p.set_defaults(func=_run)

"""``gcnforge raise FILE.hsaco|FILE.s -o FILE.mlir``: a code object into the ``amdgcn`` dialect.

``FILE.mlir`` (a raised module, possibly edited) goes the other way: ``-o out.hsaco``
(or ``-S`` for the ``.s``). ``--verify waits,hazards`` runs the wait and hazard verifiers
on the raised code and reports each finding with the original pc (exit 1 when any).
``--ssa`` lifts registers to SSA values and re-allocates them (``--ssa`` alone prints the
SSA form; with ``--realloc`` the allocated form), reporting the register counts before and
after. ``--check-roundtrip`` raises, emits again and compares ``.text`` and descriptors.
A gfx950 code object raises into a ``#amdgcn.target<gfx950>`` module; ``--target`` checks
the code object's processor (and is the target of a ``.s`` without ``.amdgcn_target``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from gcnforge.cli import _mcpu as target_option
from gcnforge.diagnostics import Diagnostic


def register(sub) -> None:
    p = sub.add_parser("raise", help="raise a gfx942/gfx950 code object or .s file into the amdgcn dialect (or back)")
    p.add_argument("input", help="a code object (.hsaco/.so/.o bundle), a .s file, or a raised .mlir")
    p.add_argument("-o", "--output", help="output file (default: stdout for text)")
    p.add_argument("-S", dest="asm", action="store_true", help="with a .mlir input: write the .s, not a code object")
    p.add_argument("--toolchain", default="builtin", choices=("builtin", "llvm"))
    p.add_argument("--verify", default="", help="comma list of checks on the raised code: waits, hazards")
    p.add_argument("--ssa", action="store_true", help="lift registers to SSA values (not ABI/special ones)")
    p.add_argument("--realloc", action="store_true", help="with --ssa: re-allocate and report register counts")
    p.add_argument("--check-roundtrip", action="store_true", help="emit again and compare with the input")
    target_option.add_option(p, what=" (default: the code object's; a .s file's .amdgcn_target, else gfx942)")
    p.set_defaults(func=run)


def _write(out: str | None, data: str | bytes) -> None:
    if out is None or out == "-":
        if isinstance(data, bytes):
            raise Diagnostic("refusing to write a code object to stdout (use -o FILE)")
        sys.stdout.write(data)
        return
    try:
        Path(out).write_bytes(data if isinstance(data, bytes) else data.encode())
    except OSError as e:
        raise Diagnostic(f"cannot write {out}: {e.strerror}", out) from None


def run(args) -> int:
    from gcnforge import raising

    try:
        path = Path(args.input)
        if path.suffix == ".mlir":
            from gcnforge.cli._source import read_text

            text, name = read_text(str(path))
            try:
                module = raising.parse_module(text, name)
            except RecursionError:  # xDSL's parser recurses per nesting level
                raise Diagnostic("input nested too deeply to parse", name) from None
            want = target_option.processor(args.target)
            if want is not None:
                from gcnforge.dialect.value_ops import input_target

                if input_target(module) != want:
                    raise Diagnostic(f"--target {want}: the input is for {input_target(module)}", name)
            if args.asm:
                _write(args.output, raising.module_asm(module))
            else:
                if not args.output:
                    raise Diagnostic("a code object needs -o FILE (or -S for the assembly)")
                _write(args.output, raising.module_code_object(module, args.toolchain, str(path)))
            return 0
        from gcnforge.cli._progress import progress

        with progress(f"raising {path.name if hasattr(path, 'name') else path}", unit="kernels") as bar:
            module = raising.raise_file(path, target_option.processor(args.target), progress=bar)
        from gcnforge.dialect.value_ops import input_target
        from gcnforge.isa import table

        with table.use_target(input_target(module)):  # the checks read the module target's facts
            return _after_raise(args, path, module)
    except Diagnostic as d:
        print(d, file=sys.stderr)
        return 1


def _after_raise(args, path: Path, module) -> int:
    from gcnforge import raising

    try:
        status = 0
        if args.check_roundtrip:
            from gcnforge.raising.roundtrip import compare_file

            problems = compare_file(path, module)
            for p in problems:
                print(f"{path}: mismatch: {p}", file=sys.stderr)
            print(f"{path}: round trip {'byte-identical' if not problems else 'DIFFERS'}", file=sys.stderr)
            status = 1 if problems else 0
        checks = [c.strip() for c in args.verify.split(",") if c.strip()]
        if checks:
            from gcnforge.raising.verify import verify_module

            findings = verify_module(module, checks)
            for f in findings:
                print(f"{path}: {f}", file=sys.stderr)
            if findings:
                status = 1
        if args.ssa:
            from gcnforge.raising.ssa import lift_to_ssa, reallocate

            if args.realloc:
                for line in reallocate(module):
                    print(line, file=sys.stderr)
            else:
                lift_to_ssa(module)
        _write(args.output, raising.print_module(module))
        return status
    except Diagnostic as d:
        print(d, file=sys.stderr)
        return 1

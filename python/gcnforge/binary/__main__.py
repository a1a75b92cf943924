"""``python -m gcnforge.binary FILE.s -o FILE.hsaco [--toolchain builtin|llvm] [--target gfx942]``
``python -m gcnforge.binary --to-asm FILE.hsaco -o FILE.s`` (reassemblable text of a code object)

A minimal driver for the binary layer (tests and benchmarks use it); the user-facing commands
are ``gcnforge as`` / ``gcnforge dis`` / ``gcnforge info``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gcnforge.diagnostics import Diagnostic


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gcnforge.binary", description=__doc__.split("\n\n")[0])
    p.add_argument("source")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--toolchain", choices=("builtin", "llvm"), default="builtin")
    p.add_argument("--target", default="gfx942")
    p.add_argument("--to-asm", action="store_true", help="code object -> reassemblable assembly text")
    args = p.parse_args(argv)
    from gcnforge.binary import assemble, read_code_object

    try:
        if args.to_asm:
            from gcnforge.binary.to_asm import code_object_to_asm

            Path(args.output).write_text(code_object_to_asm(read_code_object(args.source, target=args.target)))
            return 0
        text = Path(args.source).read_text()
        data = assemble(text, target=args.target, toolchain=args.toolchain, filename=args.source)
        Path(args.output).write_bytes(data)
    except Diagnostic as d:
        print(d, file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

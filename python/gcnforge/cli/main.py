"""``gcnforge``: the command-line driver.

Each subcommand lives in its own module ``gcnforge.cli.cmd_<name>`` that defines
``register(subparsers)``; the parser it adds sets ``func(args) -> int``. Diagnostics
(``gcnforge.diagnostics.Diagnostic``) are printed and turn into exit code 1; a CLI never
shows a Python traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import gcnforge.cli as cli_pkg
from gcnforge.diagnostics import Diagnostic


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gcnforge", description="AMD GPU kernels at the assembly level (gfx942)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(cli_pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"gcnforge.cli.{info.name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except Diagnostic as d:
        print(d, file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        sys.stderr.close()
        return 0
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or with just ``only`` when it names one: a command
    imports only its own module (``gcnforge compile`` never loads the runtime's NumPy)."""
    from gcnforge.cli._target import known

    parser = argparse.ArgumentParser(prog="gcnforge", description=f"AMD GPU kernels at the assembly level ({known()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = sorted(m.name for m in pkgutil.iter_modules(cli_pkg.__path__) if m.name.startswith("cmd_"))
    if only is not None and f"cmd_{only}" in names:
        names = [f"cmd_{only}"]
    for name in names:
        importlib.import_module(f"gcnforge.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    as_program = argv is None  # the process's own command line: the process ends with it
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from gcnforge.cli._gc import batch_gc, skip_exit_collection

    skip_exit_collection()
    try:
        with batch_gc(restore=not as_program):
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

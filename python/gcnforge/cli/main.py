"""``gcnforge``: the command-line driver.

Each subcommand lives in its own module ``gcnforge.cli.cmd_<name>`` that defines
``register(subparsers)``; the parser it adds sets ``func(args) -> int``. Diagnostics
(``gcnforge.diagnostics.Diagnostic``) are printed and turn into exit code 1; a CLI never
shows a Python traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys

import gcnforge.cli as cli_pkg
from gcnforge.diagnostics import Diagnostic


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every subcommand, or with just ``only`` when it names one: a command
    imports only its own module (``gcnforge compile`` never loads the runtime's NumPy)."""
    from gcnforge.cli._mcpu import known

    parser = argparse.ArgumentParser(prog="gcnforge", description=f"AMD GPU kernels at the assembly level ({known()})")
    parser.add_argument("-V", "--version", action="store_true", help="print gcnforge's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    mod = _command_module(only) if only is not None else None
    if mod is not None:
        mod.register(sub)
        return parser
    import pkgutil  # listing the commands (help, an unknown one) only: it imports `inspect`

    for name in sorted(m.name for m in pkgutil.iter_modules(cli_pkg.__path__) if m.name.startswith("cmd_")):
        importlib.import_module(f"gcnforge.cli.{name}").register(sub)
    return parser


def _command_module(name: str):
    """The module ``gcnforge.cli.cmd_<name>``, or None when there is no such command (then the
    full parser reports it). An error inside an existing command module is not hidden."""
    if not name.isidentifier():
        return None
    full = f"gcnforge.cli.cmd_{name}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as e:
        if e.name != full:
            raise
        return None


def version_line(prog: str = "gcnforge") -> str:
    """``gcnforge 0.1.0 (targets gfx942, gfx950; xdsl 0.74.0, Python 3.11.7)``: what a bug report needs."""
    from importlib.metadata import PackageNotFoundError, version

    import gcnforge
    from gcnforge.cli._mcpu import known

    try:
        xdsl = version("xdsl")
    except PackageNotFoundError:
        xdsl = "not installed"
    py = ".".join(map(str, sys.version_info[:3]))
    return f"{prog} {gcnforge.__version__} (targets {known()}; xdsl {xdsl}, Python {py})"


def main(argv: list[str] | None = None) -> int:
    as_program = argv is None  # the process's own command line: the process ends with it
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["--version"], ["-V"]):
        print(version_line())
        return 0
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

"""``gcnforge-opt``'s driver (see ``gcnforge.cli.opt``, the entry point): imported by its
``main`` after the collector is set for a batch run, since importing xDSL's driver and every
dialect allocates ~10^5 long-lived objects."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import importlib
import sys
from collections.abc import Callable, Sequence

from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.utils.lexer import Span
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from gcnforge.diagnostics import Diagnostic


def registered_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The gcnforge passes, from ``gcnforge.passes.registry.PASSES`` (empty if absent)."""
    try:
        reg = importlib.import_module("gcnforge.passes.registry")
    except ModuleNotFoundError as e:
        if e.name in ("gcnforge.passes.registry",):
            return {}
        raise
    return dict(getattr(reg, "PASSES", {}))


class LocatedError(DiagnosticException):
    """A verifier error at the ``file:line:col`` of the op that failed."""


class GcnforgeOptMain(xDSLOptMain):
    version_format = "gcnforge-opt (xdsl {xdsl_version})"

    def register_all_frontends(self):
        super().register_all_frontends()
        self._line_offset = 0

        def parse_mlir(io):
            from gcnforge.dialect.source import LocatingParser

            return LocatingParser(
                self.ctx, io.read(), self.get_input_name(), line_offset=self._line_offset
            ).parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

    def parse_chunk(self, chunk, file_extension, start_offset=0):
        self._line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def apply_passes(self, prog):
        from gcnforge.dialect.value_ops import input_target
        from gcnforge.isa import table

        try:
            have = input_target(prog)
        except Diagnostic as d:
            raise LocatedError(str(d)) from None
        want = self._mcpu()
        if want is not None and have != want:
            mod = next((op for op in prog.walk() if op.name == "amdgcn.module"), prog)
            raise LocatedError(str(Diagnostic(f"--mcpu {want}: the module is for {have}", mod)))
        with table.use_target(have):
            self._apply_passes(prog)

    def _mcpu(self) -> str | None:
        from gcnforge.cli._mcpu import processor

        return processor(getattr(self.args, "mcpu", None))

    def _apply_passes(self, prog):
        if not self.args.disable_verify:
            self._verify_located(prog)
        try:
            super().apply_passes(prog)
            from gcnforge.dialect.source import fill_locations

            fill_locations(prog)
        except Diagnostic as d:  # a gcnforge pass's located error: an xDSL diagnostic, so that
            raise LocatedError(str(d)) from None  # --verify-diagnostics prints/checks it
        except (VerifyException, DiagnosticException) as e:  # xDSL's checks inside/after a pass
            raise LocatedError(self._after_pass(prog, str(e))) from None

    def run(self):
        from gcnforge.isa import table

        with table.use_target(self._mcpu()):  # ops outside an amdgcn.module: this target's table
            if not self.args.verify_diagnostics:
                return super().run()
            return self._run_verifying()

    def _run_verifying(self):
        """``--verify-diagnostics``: as xDSL, the diagnostic of each ``// -----`` chunk is
        printed (stdout, exit 0, for FileCheck); and where a chunk has ``expected-error``
        annotations (``// expected-error {{msg}}``, ``@+N``, ``@-N``, as mlir-opt), the
        diagnostic must be at that line and contain that text, or the run fails (exit 1)."""
        chunks, file_extension = self.prepare_input()
        output_stream = self.prepare_output()
        failures: list[str] = []
        name = self.get_input_name()
        try:
            for i, (chunk, offset) in enumerate(chunks):
                text = chunk.read()
                chunk.seek(0)
                if isinstance(text, bytes):
                    text = text.decode("utf-8", "replace")
                expected = expectations(text, offset)
                produced: str | None = None
                try:
                    if i > 0:
                        output_stream.write("// -----\n")
                    module = self.parse_chunk(chunk, file_extension, offset)
                    if module is not None:
                        self.apply_passes(module)
                        output_stream.write(self.output_resulting_program(module))
                    output_stream.flush()
                except ParseError as e:
                    e.span = dataclasses.replace(e.span, line_offset=offset)
                    if not (self.args.parsing_diagnostics or expected):
                        raise
                    produced = _located_parse_error(e)
                    print(produced)
                except DiagnosticException as e:
                    produced = str(e)
                    print(e)
                    for n in getattr(e, "__notes__", ()):
                        print(n)
                finally:
                    chunk.close()
                failures += check_expectations(expected, produced, name)
        finally:
            if output_stream is not sys.stdout:
                output_stream.close()
        if failures:
            for f in failures:
                print(f, file=sys.stderr)
            raise SystemExit(1)

    def _after_pass(self, prog: Operation, msg: str) -> str:
        """An xDSL error escaping a pass names no op: find the first op that does not
        verify now and report there (else the message as it is, marked as an error)."""
        try:
            self._verify_located(prog)
        except LocatedError as located:
            return str(located)
        first = msg.splitlines()[0] if msg else "pass failed"
        return first if first.lstrip().startswith(("error:",)) or ": error:" in first else f"error: {first}"

    def _verify_located(self, prog: Operation) -> None:
        """Verify op by op (outermost first), then SSA dominance, and report the first failure
        at its text."""
        for op in prog.walk():
            try:
                op.verify(verify_nested_ops=False)
            except (VerifyException, DiagnosticException) as e:
                from gcnforge.dialect.source import first_lines

                msg = first_lines(str(e)) or "operation does not verify"
                raise LocatedError(self._where(op, msg)) from None
        from gcnforge.dialect.dominance import check_dominance

        try:
            check_dominance(prog)
        except Diagnostic as d:
            raise LocatedError(str(d)) from None

    def _where(self, op: Operation, msg: str) -> str:
        from gcnforge.dialect.source import loc_of

        loc = loc_of(op)
        if loc is None:
            return f"'{op.name}': error: {msg}"
        return f"{loc}: error: {msg}"

    def register_all_dialects(self):
        # xDSL's dialects, except that ``arith`` is gcnforge's (``arith.constant`` only), so
        # that constants parse as the op class the passes know
        from xdsl.universe import Universe

        from gcnforge.dialect import AMDGCN, ARITH, LIFT

        for name, factory in Universe.get_multiverse().all_dialects.items():
            if name != "arith":
                self.ctx.register_dialect(name, factory)
        self.ctx.register_dialect("arith", lambda: ARITH)
        self.ctx.register_dialect("amdgcn", lambda: AMDGCN)
        self.ctx.register_dialect("lift", lambda: LIFT)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in registered_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        # only the output formats gcnforge-opt means: MLIR text (custom or generic form); the
        # multiverse's other targets (arm-asm, wgsl, ...) do not apply to amdgcn IR
        from xdsl.universe import Universe

        self.available_targets["mlir"] = Universe.get_multiverse().all_targets["mlir"]

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        from gcnforge.cli._mcpu import known

        for action in arg_parser._actions:  # xDSL's help lists every pass of every dialect
            if "--passes" in action.option_strings:
                action.help = ("comma-separated pass pipeline, options in braces ('amdgcn-regalloc,amdgcn-insert-waits"
                               "{mode=verify}'); --list-passes (or -p help) lists gcnforge's passes; xDSL's generic "
                               "passes (canonicalize, cse, dce, ...) are accepted too")
            elif "--target" in action.option_strings:
                action.help = "output format: mlir (default); '--target PROC' names a processor, as --mcpu"
        arg_parser.add_argument("--list-passes", action="store_true",
                                help="list gcnforge's passes, one line each, and exit")

        arg_parser.add_argument(
            "--mcpu", "-mcpu", dest="mcpu", default=None, metavar="PROC",
            help=f"target processor ({known()}): the input's #amdgcn.target must be it; also the table of "
                 "ops outside an amdgcn.module (default gfx942). '--target PROC' is accepted for a processor name",
        )
        arg_parser.add_argument(
            "--emit-irdl", action="store_true", help="write the amdgcn dialect as IRDL (for mlir-opt --irdl-file) and exit"
        )
        arg_parser.add_argument(
            "--mlir-generic",
            action="store_true",
            help="print the generic form with dialect parameters in MLIR's generic syntax "
            "(input for mlir-opt --irdl-file=<--emit-irdl output>)",
        )

    def output_resulting_program(self, prog) -> str:
        if self.args.mlir_generic:
            from gcnforge.dialect.irdl_export import print_mlir_generic

            return print_mlir_generic(prog)
        return super().output_resulting_program(prog)


_EXPECT = re.compile(r"expected-error(?:@([+-]\d+))?\s*\{\{(.*?)\}\}")
_PRODUCED_LINE = re.compile(r"^[^\n]*?:(\d+):(\d+): error: (.*)$", re.M)


def expectations(text: str, line_offset: int = 0) -> list[tuple[int, str]]:
    """``(line, text)`` of every ``expected-error`` annotation of a chunk (absolute lines)."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in _EXPECT.finditer(line):
            out.append((n + line_offset + int(m.group(1) or 0), m.group(2)))
    return out


def check_expectations(expected: list[tuple[int, str]], produced: str | None, name: str) -> list[str]:
    """Messages for the expectations the produced diagnostic does not meet (and for a
    diagnostic nobody expected in an annotated chunk)."""
    if not expected:
        return []
    got = [(int(m.group(1)), m.group(3)) for m in _PRODUCED_LINE.finditer(produced or "")]
    out = []
    for line, want in expected:
        if not any(gl == line and want in gm for gl, gm in got):
            out.append(f"{name}:{line}: error: expected error \"{want}\" was not produced"
                       + (f" (got: {produced.splitlines()[0]})" if produced else ""))
    if produced and not got:
        out.append(f"{name}: error: diagnostic without a location: {produced.splitlines()[0]}")
    for gl, gm in got[:1]:
        if not any(gl == line and want in gm for line, want in expected):
            out.append(f"{name}:{gl}: error: unexpected error: {gm}")
    return out


def _emit_irdl(out_path: str | None) -> int:
    from gcnforge.dialect.irdl_export import dialect_irdl_text

    text = dialect_irdl_text()
    if out_path:
        with open(out_path, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _input_name(tool) -> str | None:
    return getattr(getattr(tool, "args", None), "input_file", None)


def _located_parse_error(e: ParseError) -> str:
    """xDSL prints 'file:line:col' on a line of its own and the message last; put them
    together the way every other gcnforge diagnostic reads, keeping the source context."""
    try:
        loc = e.span.get_location()
        head = f"{loc.file}:{loc.line}:{loc.col}: error: {e.msg}"
    except AttributeError:
        return str(e).rstrip()
    return "\n".join([head, *str(e).rstrip().splitlines()[1:-1]])


def _processor_target(args: list[str]) -> list[str]:
    """``--target gfx950`` names a processor (gcnforge's meaning everywhere else): pass it as
    ``--mcpu``; xDSL's ``--target`` keeps its output formats (``mlir``, ``irdl``, ...)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        v = a.split("=", 1)[1] if a.startswith("--target=") else (
            args[i + 1] if a in ("--target", "-t") and i + 1 < len(args) else None)
        if v is not None and v.startswith(("gfx", "amdgcn-")):
            out += ["--mcpu", v]
            i += 1 if "=" in a else 2
            continue
        out.append(a)
        i += 1
    return out


def run(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    tool = None
    try:
        if "--emit-irdl" in args:
            out = None
            for i, a in enumerate(args):
                if a in ("-o", "--output-file") and i + 1 < len(args):
                    out = args[i + 1]
                elif a.startswith("--output-file="):
                    out = a.split("=", 1)[1]
            return _emit_irdl(out)
        args = _processor_target(args)
        if "--list-passes" in args or _asks_pass_help(args):
            print(list_passes())
            return 0
        tool = GcnforgeOptMain(description="gcnforge-opt: the amdgcn dialect's optimizer driver", args=args)
        tool.run()
        return 0
    except ParseError as e:  # input text: 'file:line:col: error: message', then the context
        print(_located_parse_error(e), file=sys.stderr)
        return 1
    except ArgSpecParseError as e:  # the -p pipeline text
        print(str(e).rstrip(), file=sys.stderr)
        return 1
    except (DiagnosticException, VerifyException) as e:
        print(str(e).rstrip(), file=sys.stderr)
        for n in getattr(e, "__notes__", ()):
            print(n, file=sys.stderr)
        return 1
    except Diagnostic as e:
        print(str(e), file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print(f"error: {e.strerror}: {e.filename}", file=sys.stderr)
        return 1
    except OSError as e:  # a directory, an unreadable file
        print(f"{e.filename}: error: {e.strerror or e}" if e.filename else f"error: {e}", file=sys.stderr)
        return 1
    except UnicodeDecodeError:  # xDSL reads the input as UTF-8 text
        name = _input_name(tool)
        from gcnforge.cli._source import decode_text, read_bytes

        try:
            decode_text(read_bytes(name), name) if name else None
        except Diagnostic as d:
            print(str(d), file=sys.stderr)
            return 1
        print(f"{name or '<stdin>'}: error: invalid UTF-8; is this a text file?", file=sys.stderr)
        return 1
    except RecursionError:  # xDSL's parser and printer recurse once per nesting level
        print(f"{_input_name(tool) or '<stdin>'}: error: input nested too deeply to process", file=sys.stderr)
        return 1
    except ValueError as e:  # unknown pass / file extension / pipeline syntax (xDSL raises ValueError)
        name = _input_name(tool)
        print(f"{name}: error: {e}" if name and "file extension" in str(e) else f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug in gcnforge, not in the input: say so, briefly
        if os.environ.get("GCNFORGE_DEBUG"):
            raise
        print(f"error: internal error in gcnforge-opt: {type(e).__name__}: {e} "
              "(set GCNFORGE_DEBUG=1 for a traceback)", file=sys.stderr)
        return 2


def _asks_pass_help(args: list[str]) -> bool:
    """``-p help`` / ``--passes help`` / ``--passes=help``."""
    for i, a in enumerate(args):
        if a in ("-p", "--passes") and i + 1 < len(args) and args[i + 1] == "help":
            return True
        if a in ("--passes=help", "-phelp"):
            return True
    return False


def list_passes() -> str:
    """gcnforge's passes, one line each: name, options with defaults, what it does (the pass
    class's docstring, else its module's first line, without the leading pass name)."""
    import dataclasses as dc

    lines = []
    passes = registered_passes()
    for name in sorted(passes):
        cls = passes[name]()
        doc = cls.__doc__ or ""
        if doc.startswith(cls.__name__ + "("):  # dataclass's generated text: use the module's
            doc = sys.modules[cls.__module__].__doc__ or ""
        what = " ".join(doc.strip().split("\n\n")[0].split())
        what = re.sub(rf"^``{re.escape(name)}``:\s*", "", what).split(". ")[0].rstrip(".").replace("``", "")
        opts = ", ".join(f"{f.name}={f.default!r}" for f in dc.fields(cls)) if dc.is_dataclass(cls) else ""
        lines.append((name, f"{what}{' {' + opts + '}' if opts else ''}"))
    width = max((len(n) for n, _ in lines), default=0)
    return "\n".join(f"{n.ljust(width)}  {w}" for n, w in lines)

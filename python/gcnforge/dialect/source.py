"""Where an op came from: parsing ``amdgcn`` IR text so that every op remembers its
``file:line:col``, and turning an op back into that place for diagnostics.

The location lives in xDSL's own field (``Operation.location``, a ``FileLineColLoc``), so
it survives ``clone()`` and rewrites that copy it, is printed only when asked
(``--print-debuginfo`` style), and an explicit ``loc(...)`` in the text wins. Ops built
from Python get the author's line the same way (``gcnforge.builder``); a pass that creates
an op for another one (a spill, a copy, a wait, a NOP) gives it ``copy_loc(cause, new)``.

``parse_module`` is the one entry for IR text (``gcnforge-opt``, ``gcnforge compile``): it
also works around two xDSL 0.74 parser bugs that hostile input reaches (see
``_patch_lexer`` and ``LocatingParser._parse_block``).
"""

from __future__ import annotations

import functools
import re

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Block, Operation
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer

from gcnforge.diagnostics import Diagnostic, SourceLoc, op_place

# xDSL 0.74 lexes string literals with '"(?:[^"\\\n\v\f]+|\\(...))*"': the '+' inside '*'
# makes an unterminated literal backtrack exponentially (34 characters: > 30 s). Matching
# one character per repetition accepts the same language in linear time. (Upstream: the
# same one-character change to MLIRLexer._unescaped_characters_regex.)
_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


def _patch_lexer() -> None:
    if getattr(MLIRLexer, "_unescaped_characters_regex", None) is not _STRING_LITERAL:
        MLIRLexer._unescaped_characters_regex = _STRING_LITERAL


_patch_lexer()


def make_loc(file: str, line: int, col: int = 1) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(col))


def loc_of(op: Operation | None) -> SourceLoc | None:
    """The ``file:line:col`` an op was written at (its own, else its nearest located
    ancestor's: an op a pass created inside a located kernel is at least in that kernel)."""
    if op is None:
        return None
    p = op_place(op)
    return p if isinstance(p, SourceLoc) else None


def copy_loc(src: Operation, dst: Operation) -> Operation:
    """Give ``dst`` (an op a pass created because of ``src``) ``src``'s location."""
    if isinstance(src.location, FileLineColLoc):
        dst.location = src.location
    return dst


def where(op: Operation) -> str:
    """``file:line:col`` of ``op``, else ``'op.name'`` (what unlocated IR can offer)."""
    return str(op_place(op))


def fill_locations(root: Operation) -> None:
    """Give every op a pass created without a location the location of the op it was made
    for: the next located op of its block (a wait, a hazard NOP or a reload is inserted
    before the op that needs it), else the previous one (a spill store follows the
    definition), else the enclosing op's. Ops that already have one are left alone."""
    for op in root.walk():
        for region in op.regions:
            for block in region.blocks:
                ops = list(block.ops)
                nxt = None
                after: list = [None] * len(ops)
                for i in range(len(ops) - 1, -1, -1):
                    after[i] = nxt
                    if isinstance(ops[i].location, FileLineColLoc):
                        nxt = ops[i].location
                prev = op.location if isinstance(op.location, FileLineColLoc) else None
                for i, o in enumerate(ops):
                    if isinstance(o.location, FileLineColLoc):
                        prev = o.location
                    elif after[i] is not None or prev is not None:
                        o.location = after[i] if after[i] is not None else prev


@functools.cache
def _parser_class() -> type:
    """``LocatingParser``, defined on first use: ``xdsl.parser`` costs a compile that never
    parses text about 6 ms of CPU (issue 15)."""
    from xdsl.parser import Parser
    from xdsl.parser.core import ForwardDeclaredValue

    class LocatingParser(Parser):
        """xDSL's parser that stamps each op with where its text starts (``line_offset`` for
        ``--split-input-file`` chunks)."""

        def __init__(self, *args, line_offset: int = 0, **kw):
            super().__init__(*args, **kw)
            self._line_offset = line_offset
            self._forward: dict[ForwardDeclaredValue, tuple] = {}  # -> (its first operand's span, name)

        def resolve_operand(self, operand, typ):
            v = super().resolve_operand(operand, typ)
            if isinstance(v, ForwardDeclaredValue) and v not in self._forward:
                self._forward[v] = (operand.span, operand.operand_name)
            return v

        def parse_operation(self) -> Operation:
            span = self._current_token.span
            try:
                op = super().parse_operation()
            except (VerifyException, ValueError) as e:  # an attribute built while parsing (i32 out of range ...)
                raise ParseError(span, str(e).splitlines()[0] if str(e) else "invalid operation") from None
            self._check_forward(op)
            if not isinstance(op.location, FileLineColLoc):
                loc = span.get_location()
                op.location = make_loc(loc.file, loc.line + self._line_offset, loc.col)
            return op

        def parse_module(self, allow_implicit_module: bool = True):
            try:
                return super().parse_module(allow_implicit_module)
            except ParseError as e:  # xDSL puts "used but not defined" at the end of the input: the first use
                uses = [(sp, n) for v, (sp, n) in self._forward.items()
                        if any(v is p for p in self.forward_ssa_references.get(n, {}).values())]
                if not e.msg.startswith("values used but not defined") or not uses:
                    raise
                sp, name = min(uses, key=lambda u: u[0].start)
                raise ParseError(sp, f"%{name} is not defined where it is used (not at all, or in a region "
                                     "that does not enclose this use)") from None

        def _check_forward(self, op: Operation) -> None:
            # xDSL 0.74 resolves a forward reference when the name is defined, by replacing the
            # placeholder's uses; a name defined inside the op's own region (``iter(%a)`` where
            # %a is the loop body's block argument) is defined before the op exists, so the op
            # would keep the placeholder, which has no owner. MLIR scopes it out: refuse it.
            for v in op.operands:
                at = self._forward.get(v) if isinstance(v, ForwardDeclaredValue) else None
                if at is None:
                    continue
                sp, name = at
                pending = self.forward_ssa_references.get(name, {})
                if not any(p is v for p in pending.values()):
                    raise ParseError(sp, f"%{name} is defined inside this op's own region (a block argument or "
                                         "value of its body), which the op's operands cannot use")

        def _parse_block(self) -> Block:
            # xDSL 0.74 forgets where a forward-referenced block was defined, so a second
            # definition of the label pops a forward reference that is gone: KeyError. Record
            # the definition so the second one is xDSL's own "re-declaration" error.
            token = self._current_token
            blocks = self.blocks
            block = super()._parse_block()
            name = token.text[1:]
            if name in blocks and blocks[name][1] is None:
                blocks[name] = (block, token.span)
            return block

    return LocatingParser


def __getattr__(name: str):
    if name == "LocatingParser":  # xDSL's parser that locates every op (see _parser_class)
        return _parser_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_module(text: str, filename: str = "<mlir>", ctx=None, line_offset: int = 0):
    """Parse and verify IR text; every op located; errors are located ``Diagnostic``s."""
    from gcnforge.dialect import context

    try:
        m = _parser_class()(ctx or context(), text, filename, line_offset=line_offset).parse_module()
    except ParseError as e:
        try:
            loc = e.span.get_location()
            at = SourceLoc(filename, loc.line + line_offset, loc.col)
        except AttributeError:
            at = SourceLoc(filename, 1)
        raise Diagnostic(e.msg or "parse error", at) from None
    except RecursionError:  # xDSL's parser recurses per nesting level
        raise Diagnostic("input nested too deeply to parse", SourceLoc(filename, 1)) from None
    if not isinstance(m.location, FileLineColLoc):  # the implicit module: the file itself
        m.location = make_loc(filename, 1 + line_offset, 1)
    verify_located(m)
    return m


def verify_located(root: Operation) -> None:
    """Verify op by op (outermost first) so the first failure is reported at its op's
    location (xDSL's ``verify`` says what failed, not where), then SSA dominance
    (``gcnforge.dialect.dominance``)."""
    from xdsl.utils.exceptions import DiagnosticException, VerifyException

    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            raise Diagnostic(first_lines(str(e)) or "operation does not verify", op) from None
        except DiagnosticException as e:
            raise Diagnostic(first_lines(str(e)) or "operation does not verify", op) from None
    from gcnforge.dialect.dominance import check_dominance

    check_dominance(root)  # (xDSL's verifier does not check it; MLIR's does)


def first_lines(msg: str) -> str:
    """xDSL's verifier messages: a headline ending in ':' says what, the next line why."""
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    if not lines:
        return ""
    return f"{lines[0]} {lines[1]}" if lines[0].endswith(":") and len(lines) > 1 else lines[0]

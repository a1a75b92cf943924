"""The directives that do not change the code object (``assembler.IGNORED``: ``.ident``,
``.file``, ``.loc``, ``.addrsig``, the ``.cfi_*`` family), still checked as llvm-mc 22 checks
them, so that a file gcnforge assembles is one llvm-mc assembles too.

Each rule below is what ``llvm-mc -triple=amdgcn-amd-amdhsa -filetype=obj`` 22 refuses
(messages as it words them; tests/binary/test_ignored_directives.py runs llvm-mc on each
case): ``.ident`` takes one string; ``.file`` a string, or a file number then a string
(more may follow); ``.loc`` a file number that a ``.file N`` gave, then integers or
sub-directives; ``.addrsig`` nothing; ``.addrsig_sym`` one symbol; the ``.cfi_*`` directives
sit inside one ``.cfi_startproc`` ... ``.cfi_endproc`` frame, and ``.cfi_sections`` names
``.eh_frame``, ``.debug_frame`` or ``.sframe``.
"""

from __future__ import annotations

import re

from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.binary.text_util import is_ident, shift, split_args

_STRING = r'"(?:[^"\\\n]|\\.)*"'
_ONE_STRING = re.compile(rf"\s*{_STRING}\s*")
_FILE = re.compile(rf"\s*(?:{_STRING}|(\d+)\s+{_STRING}(?:\s+\S.*)?)\s*")
_CFI_SECTIONS = {".eh_frame", ".debug_frame", ".sframe"}
_LOC_SUBDIRECTIVES = {"basic_block", "prologue_end", "epilogue_begin", "is_stmt", "isa", "discriminator", "view"}


class IgnoredDirectives:
    """Checks one file's ignored directives in order (``.loc`` and the frames need what came
    before); ``finish`` at the end of the input."""

    def __init__(self) -> None:
        self.files: set[int] = set()
        self.frame: SourceLoc | None = None  # the open .cfi_startproc

    def check(self, d: str, args: str, loc: SourceLoc, at: SourceLoc) -> None:
        """``d``: the directive (lower case), ``args`` its text at ``loc``; ``at``: the
        directive itself."""
        a = args.strip()
        if d == ".ident":
            if not _ONE_STRING.fullmatch(args):
                raise Diagnostic("expected string" if not a.startswith('"') else "expected end of directive", loc)
        elif d == ".file":
            m = _FILE.fullmatch(args)
            if m is None:
                raise Diagnostic("expected string", loc)
            if m.group(1) is not None:
                self.files.add(int(m.group(1)))
        elif d == ".loc":
            self._loc(a, loc)
        elif d == ".addrsig":
            if a:
                raise Diagnostic("expected newline", loc)
        elif d == ".addrsig_sym":
            parts = a.split(None, 1)
            if not parts or not (is_ident(parts[0]) or re.fullmatch(_STRING, parts[0])):
                raise Diagnostic("expected identifier", loc)
            if len(parts) > 1 or "," in parts[0]:
                raise Diagnostic("expected newline", loc)
        elif d.startswith(".cfi_"):
            self._cfi(d, a, loc, at)

    def _loc(self, a: str, loc: SourceLoc) -> None:
        parts = a.split()
        if not parts or not parts[0].isdigit():
            raise Diagnostic("expected integer", loc)
        n = int(parts[0])
        if n < 1 and n not in self.files:
            raise Diagnostic("file number less than one in '.loc' directive", loc)
        if n not in self.files:
            raise Diagnostic("unassigned file number in '.loc' directive", loc)
        for p in parts[1:3]:  # line and column, when given, are integers; then sub-directives
            if p.isdigit():
                continue
            if p not in _LOC_SUBDIRECTIVES:
                raise Diagnostic("unknown sub-directive in '.loc' directive", shift(loc, a.find(p)))
            break

    def _cfi(self, d: str, a: str, loc: SourceLoc, at: SourceLoc) -> None:
        if d == ".cfi_sections":
            if not a or any(p.strip() not in _CFI_SECTIONS for p in split_args(a)):
                raise Diagnostic("expected .eh_frame, .debug_frame, or .sframe", loc)
            return
        if d == ".cfi_startproc":
            if a and a != "simple":
                raise Diagnostic("unexpected token", loc)
            if self.frame is not None:
                raise Diagnostic("starting new .cfi frame before finishing the previous one", at)
            self.frame = at
            return
        if self.frame is None:
            raise Diagnostic("this directive must appear between .cfi_startproc and .cfi_endproc directives", at)
        if d == ".cfi_endproc":
            self.frame = None

    def finish(self) -> None:
        if self.frame is not None:
            raise Diagnostic("Unfinished frame! (.cfi_startproc without .cfi_endproc)", self.frame)

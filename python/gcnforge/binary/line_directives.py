"""The line-table side of the assembler's ``.file`` / ``.loc`` directives (DWARF 5 forms, as
llvm-mc reads them; ``binary.ignored_directives`` has already checked them as llvm-mc does):
``.file N "dir" "name" [md5 ...]`` numbers a source file, ``.loc N line [column] [flags]``
says where the next instruction came from. The unnumbered ``.file "name"`` (an ELF symbol
file name) adds nothing. When any ``.loc`` was seen, the code object gets a line table
(``gcnforge.binary.dwarf_line``); without one nothing is written, so plain assembly costs
nothing extra.
"""

from __future__ import annotations

import re

from gcnforge.binary.text_util import unquote
from gcnforge.diagnostics import Diagnostic, SourceLoc

_STR = r'"(?:[^"\\]|\\.)*"'
_FILE = re.compile(rf"\s*(\d+)\s+({_STR})(?:\s+({_STR}))?(?:\s+md5\s+\S+)?(?:\s+source\s+{_STR})?\s*")
_LOC = re.compile(r"\s*(\d+)\s+(\d+)(?:\s+(\d+))?(?:\s+[a-z_]+(?:\s+\d+)?)*\s*")


class LineTable:
    def __init__(self) -> None:
        self.files: dict[int, tuple[str, str]] = {}
        self.rows: list[tuple[str, int, int, int, int]] = []  # (section, offset, file, line, column)
        self.parsed: dict[str, tuple[int, int, int]] = {}  # '.loc' arguments -> (file, line, column)

    def file(self, args: str, loc: SourceLoc) -> None:
        if not args.strip()[:1].isdigit():
            return  # '.file "name"': the ELF file symbol, not a line-table file
        m = _FILE.fullmatch(args)
        if m is None:
            return  # another accepted form (ignored_directives checked it): no line-table file
        first = unquote(m.group(2), loc).decode("utf-8", "replace")
        second = unquote(m.group(3), loc).decode("utf-8", "replace") if m.group(3) else None
        self.files[int(m.group(1))] = (first, second) if second is not None else ("", first)

    def loc(self, args: str, section: str, offset: int, loc) -> None:
        """``loc``: a SourceLoc, or ``(file, line)`` (the assembler's fast path for a compile's
        many ``.loc`` lines makes no SourceLoc unless there is an error)."""
        hit = self.parsed.get(args)
        if hit is None:
            at = SourceLoc(loc[0], loc[1], 2) if type(loc) is tuple else loc
            m = _LOC.fullmatch(args)
            if m is None:
                raise Diagnostic("expected '.loc file line [column]'", at)
            hit = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
            if hit[0] not in self.files:
                raise Diagnostic("unassigned file number in '.loc' directive", at)
            self.parsed[args] = hit
        # the next instruction of the section starts at ``offset`` (translate writes .loc just before it)
        self.rows.append((section, offset, *hit))

    def file_list(self) -> list[tuple[str, str]]:
        """Files by DWARF 5 index from 0 (file 0, the primary source, defaults to the first)."""
        first = self.files[min(self.files)]
        return [self.files.get(i, first) for i in range(max(self.files) + 1)]

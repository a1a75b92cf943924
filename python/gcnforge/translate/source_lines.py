"""``.file`` / ``.loc`` directives for the assembly text: each instruction's source line and
column (the ``.mlir`` line, or the author's Python line for built kernels: the op's
``FileLineColLoc``), so the assembler (built-in or llvm-mc) writes a DWARF line table. A
``.loc`` is written only when the place changes; ops without a location (or with a
``<string>``-like pseudo file) inherit the previous row; a module without locations gets no
directives at all.
"""

from __future__ import annotations

import os

from xdsl.dialects.builtin import FileLineColLoc


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class SourceLines:
    def __init__(self) -> None:
        self.files: dict[str, int] = {}  # path -> DWARF 5 file index (0: the first, the primary source)
        self._last = None  # the last location object written (builder ops share one per place)
        self._last_key: tuple | None = None

    def directive(self, op) -> str | None:
        """The ``.loc`` line for ``op``, or None when its place is unknown or unchanged."""
        loc = op.location
        if loc is self._last or type(loc) is not FileLineColLoc:
            return None
        self._last = loc
        key = (loc.filename.data, loc.line.data, loc.column.data)
        if key == self._last_key or key[0].startswith("<") or key[1] <= 0:
            return None
        self._last_key = key
        idx = self.files.get(key[0])
        if idx is None:
            idx = self.files[key[0]] = len(self.files)
        return f"\t.loc\t{idx} {key[1]} {key[2]}"

    def file_directives(self) -> list[str]:
        out = []
        for path, idx in self.files.items():
            d, n = os.path.split(os.path.abspath(path))
            out.append(f"\t.file\t{idx} {_quote(d)} {_quote(n)}")
        return out

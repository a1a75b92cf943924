"""``.file`` / ``.loc`` directives for the assembly text: each instruction's source line and
column (the ``.mlir`` line, or the author's Python line for built kernels: the op's
``FileLineColLoc``), so the assembler (built-in or llvm-mc) writes a DWARF line table. A
``.loc`` is written only when the place changes; ops without a location (or with a
``<string>``-like pseudo file) inherit the previous row; a module without locations gets no
directives at all.
"""

from __future__ import annotations

import os
import re

from xdsl.dialects.builtin import FileLineColLoc


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


class SourceLines:
    def __init__(self) -> None:
        self.files: dict[str, int] = {}  # path -> DWARF 5 file index (0: the first, the primary source)
        self._last = None  # the last location object written (builder ops share one per place)
        self._last_line: str | None = None
        # id(location) -> (location, its .loc line or None): one look-up per op, the attribute
        # reads and formatting once per place (the entry keeps the object, so its id stays its own)
        self._lines: dict[int, tuple[object, str | None]] = {}

    def directive(self, op) -> str | None:
        """The ``.loc`` line for ``op``, or None when its place is unknown or unchanged."""
        loc = op.location
        if loc is self._last:
            return None
        self._last = loc
        hit = self._lines.get(id(loc))
        if hit is None or hit[0] is not loc:
            hit = self._lines[id(loc)] = (loc, self._format(loc))
        line = hit[1]
        if line is None or line == self._last_line:
            return None
        self._last_line = line
        return line

    def _format(self, loc) -> str | None:
        if type(loc) is not FileLineColLoc:
            return None
        path, line, col = loc.filename.data, loc.line.data, loc.column.data
        if path.startswith("<") or line <= 0:
            return None
        idx = self.files.get(path)
        if idx is None:
            idx = self.files[path] = len(self.files)
        return f"\t.loc\t{idx} {line} {col}"

    def file_directives(self) -> list[str]:
        out = []
        for path, idx in self.files.items():
            d, n = os.path.split(os.path.abspath(path))
            out.append(f"\t.file\t{idx} {_quote(d)} {_quote(n)}")
        return out


_FILE0 = re.compile(r'^\t\.file\t0 ("(?:[^"\\]|\\.)*") ("(?:[^"\\]|\\.)*")$', re.M)
_GLOBL = re.compile(r"^\t\.globl\t(\S+)$", re.M)
_END = re.compile(r"^(\.Lfunc_end\d+):$", re.M)


def compile_unit_text(asm: str) -> str:
    """For llvm-mc: the compile unit the built-in assembler writes by itself (``.debug_info``
    + ``.debug_abbrev``, the same DWARF 5 fields as ``binary.dwarf_line``), as data directives
    appended to ``asm``, so ``llvm-objdump --line-numbers`` finds llvm-mc's line table too
    (llvm-mc makes one from ``.loc`` but no unit). Empty when ``asm`` has no line directives."""
    from gcnforge.binary.dwarf_line import compile_unit_abbrev

    f0, globl, ends = _FILE0.search(asm), _GLOBL.search(asm), _END.findall(asm)
    if f0 is None or globl is None or not ends:
        return ""
    first, end = globl.group(1), ends[-1]
    return "\n".join([
        '\t.section\t.debug_abbrev,"",@progbits',
        "\t.byte\t" + ", ".join(str(b) for b in compile_unit_abbrev()),
        '\t.section\t.debug_info,"",@progbits',
        "\t.long\t.Lgcnforge_cu_end-.Lgcnforge_cu_body",
        ".Lgcnforge_cu_body:",
        "\t.short\t5", "\t.byte\t1", "\t.byte\t8", "\t.long\t.debug_abbrev",
        "\t.byte\t1", '\t.asciz\t"gcnforge"', f"\t.asciz\t{f0.group(2)}", f"\t.asciz\t{f0.group(1)}",
        "\t.long\t.Lline_table_start0", f"\t.quad\t{first}", f"\t.long\t{end}-{first}",
        ".Lgcnforge_cu_end:",
        '\t.section\t.debug_line,"",@progbits',
        ".Lline_table_start0:", ""])

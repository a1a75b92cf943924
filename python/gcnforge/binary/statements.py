"""Assembly text, one statement at a time (``statement_at``): labels, directives,
assignments, instructions.

AMDGPU assembly (LLVM MC): one statement per line, comments start with ``;`` or ``//``
(outside strings), ``/* ... */`` inside a line, a line starting with ``#`` is a comment;
labels are ``name:`` before a statement. The ``.amdgpu_metadata`` block is kept as raw
YAML text up to ``.end_amdgpu_metadata``.
"""

from __future__ import annotations

import re

from gcnforge.diagnostics import Diagnostic, SourceLoc

_LABEL = re.compile(r'\s*([A-Za-z_.$][\w.$]*|"[^"]+")\s*:(?!:)')
_ASSIGN = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*=(?!=)\s*")
_DIRECTIVE = re.compile(r"\s*(\.[A-Za-z_][\w.$]*)\s*")


class Statement:
    """One statement. (A plain class, not a dataclass: one is made per distinct line, and the
    ``gcnforge as`` start-up pays for every dataclass it defines.)"""

    __slots__ = ("kind", "loc", "labels", "name", "args", "args_loc", "text", "block")

    def __init__(self, kind: str, loc: SourceLoc, labels: list[tuple[str, SourceLoc]] | None = None,
                 name: str = "", args: str = "", args_loc: SourceLoc | None = None, text: str = "",
                 block: str = "") -> None:
        self.kind = kind  # "empty" | "directive" | "assign" | "instruction"
        self.loc = loc  # start of the statement (after labels)
        self.labels = [] if labels is None else labels
        self.name = name  # directive name (lower case) or assigned symbol
        self.args = args  # directive arguments / assigned expression
        self.args_loc = args_loc
        self.text = text  # instruction text (comment stripped, trailing space removed)
        self.block = block  # raw YAML for .amdgpu_metadata

    def __repr__(self) -> str:
        return f"Statement({self.kind!r}, {self.loc!r}, name={self.name!r}, text={self.text!r})"


def strip_comment(line: str) -> str:
    if '"' not in line and "/*" not in line:  # fast path: no strings, no block comments
        cut = line.find(";")
        c2 = line.find("//")
        if c2 >= 0 and (cut < 0 or c2 < cut):
            cut = c2
        return (line if cut < 0 else line[:cut]).rstrip()
    out, i, quote = [], 0, False
    n = len(line)
    while i < n:
        c = line[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(line[i + 1])
                i += 2
                continue
            if c == '"':
                quote = False
        elif c == '"':
            quote = True
            out.append(c)
        elif c == ";" or line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            end = line.find("*/", i + 2)
            if end < 0:
                break
            out.append(" " * (end + 2 - i))
            i = end + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out).rstrip()


def statement_at(lines: list[str], i: int, filename: str = "<asm>") -> tuple[Statement, int]:
    """The statement on ``lines[i]`` (0-based) and the index of the line after it (a
    ``.amdgpu_metadata`` block takes the lines up to ``.end_amdgpu_metadata``)."""
    lineno = i + 1
    raw = lines[i]
    i += 1
    lead = raw.lstrip()
    if lead[:1] == "#":
        return Statement("empty", SourceLoc(filename, lineno, 1)), i
    line = strip_comment(raw)
    stripped = line.strip()
    if stripped and (stripped[0].isalpha() or stripped[0] == "_"):
        # Fast path for the common case, a bare instruction: no label, no assignment.
        if "=" not in stripped and (":" not in stripped or ":" not in stripped.split(None, 1)[0]):
            col = len(line) - len(line.lstrip()) + 1
            return Statement("instruction", SourceLoc(filename, lineno, col), [], text=stripped), i
    pos = 0
    labels = []
    while True:
        m = _LABEL.match(line, pos)
        if not m:
            break
        labels.append((m.group(1).strip('"'), SourceLoc(filename, lineno, m.start(1) + 1)))
        pos = m.end()
    rest = line[pos:]
    stripped = rest.strip()
    col = pos + len(rest) - len(rest.lstrip()) + 1
    loc = SourceLoc(filename, lineno, col)
    if not stripped:
        return Statement("empty", loc, labels), i
    m = _ASSIGN.match(line, pos)
    if m and not stripped.startswith("."):
        return Statement("assign", loc, labels, m.group(1), line[m.end():], SourceLoc(filename, lineno, m.end() + 1)), i
    if stripped.startswith("."):
        m = _DIRECTIVE.match(line, pos)
        if not m:
            raise Diagnostic(f"invalid directive '{stripped.split()[0]}'", loc)
        name = m.group(1).lower()
        args = line[m.end():]
        if name == ".amdgpu_metadata":
            body = []
            start = lineno
            while True:
                if i >= len(lines):
                    raise Diagnostic("expected directive .end_amdgpu_metadata not found", loc)
                nxt = lines[i]
                i += 1
                if nxt.strip().lower().startswith(".end_amdgpu_metadata"):
                    break
                body.append(nxt)
            return Statement("directive", loc, labels, name, args, SourceLoc(filename, start, 1),
                             block="\n".join(body)), i
        return Statement("directive", loc, labels, name, args, SourceLoc(filename, lineno, m.end() + 1)), i
    return Statement("instruction", loc, labels, text=stripped), i

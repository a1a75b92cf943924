"""Split assembly text into statements: labels, directives, assignments, instructions.

AMDGPU assembly (LLVM MC): one statement per line, comments start with ``;`` or ``//``
(outside strings), ``/* ... */`` inside a line, a line starting with ``#`` is a comment;
labels are ``name:`` before a statement. The ``.amdgpu_metadata`` block is kept as raw
YAML text up to ``.end_amdgpu_metadata``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gcnforge.diagnostics import Diagnostic, SourceLoc

_LABEL = re.compile(r'\s*([A-Za-z_.$][\w.$]*|"[^"]+")\s*:(?!:)')
_ASSIGN = re.compile(r"\s*([A-Za-z_.$][\w.$]*)\s*=(?!=)\s*")
_DIRECTIVE = re.compile(r"\s*(\.[A-Za-z_][\w.$]*)\s*")


@dataclass
class Statement:
    kind: str  # "empty" | "directive" | "assign" | "instruction"
    loc: SourceLoc  # start of the statement (after labels)
    labels: list[tuple[str, SourceLoc]] = field(default_factory=list)
    name: str = ""  # directive name (lower case) or assigned symbol
    args: str = ""  # directive arguments / assigned expression
    args_loc: SourceLoc | None = None
    text: str = ""  # instruction text (comment stripped, trailing space removed)
    block: str = ""  # raw YAML for .amdgpu_metadata


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


def split_statements(text: str, filename: str = "<asm>") -> list[Statement]:
    lines = text.split("\n")
    out: list[Statement] = []
    bare: dict[str, tuple[str, int]] = {}  # raw line -> (text, column) of a bare instruction line
    i = 0
    while i < len(lines):
        lineno = i + 1
        raw = lines[i]
        i += 1
        hit = bare.get(raw)
        if hit is not None:  # the same text as an earlier bare instruction line (unrolled code)
            out.append(Statement("instruction", SourceLoc(filename, lineno, hit[1]), [], text=hit[0]))
            continue
        if raw.lstrip().startswith("#"):
            out.append(Statement("empty", SourceLoc(filename, lineno, 1)))
            continue
        line = strip_comment(raw)
        stripped = line.strip()
        if stripped and (stripped[0].isalpha() or stripped[0] == "_"):
            # Fast path for the common case, a bare instruction: no label, no assignment.
            head = stripped.split(None, 1)[0]
            if ":" not in head and "=" not in stripped:
                col = len(line) - len(line.lstrip()) + 1
                bare[raw] = (stripped, col)
                out.append(Statement("instruction", SourceLoc(filename, lineno, col), [], text=stripped))
                continue
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
            out.append(Statement("empty", loc, labels))
            continue
        m = _ASSIGN.match(line, pos)
        if m and not stripped.startswith("."):
            out.append(Statement("assign", loc, labels, m.group(1), line[m.end():], SourceLoc(filename, lineno, m.end() + 1)))
            continue
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
                out.append(Statement("directive", loc, labels, name, args, SourceLoc(filename, start, 1),
                                     block="\n".join(body)))
                continue
            out.append(Statement("directive", loc, labels, name, args, SourceLoc(filename, lineno, m.end() + 1)))
            continue
        out.append(Statement("instruction", loc, labels, text=stripped))
    return out

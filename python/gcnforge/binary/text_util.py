"""Small text helpers for directive operands: names, top-level comma splitting, strings."""

from __future__ import annotations

import re

from gcnforge.diagnostics import Diagnostic, SourceLoc

_IDENT = re.compile(r"[A-Za-z_.$][\w.$]*")


def is_ident(s: str) -> bool:
    return _IDENT.fullmatch(s) is not None


def names(args: str, loc: SourceLoc) -> list[str]:
    names = [a.strip() for a in args.split(",")]
    for n in names:
        if not is_ident(n):
            raise Diagnostic(f"expected symbol name, got '{n}'", loc)
    return names


def shift(loc: SourceLoc, n: int) -> SourceLoc:
    return SourceLoc(loc.file, loc.line, loc.col + n)


def split_args(args: str) -> list[str]:
    return [a for a, _ in split_args_with_loc(args, SourceLoc("", 0, 1))]


def split_args_with_loc(args: str, loc: SourceLoc) -> list[tuple[str, SourceLoc]]:
    """Split on top-level commas (not inside parentheses or strings)."""
    out, depth, start, quote = [], 0, 0, False
    for i, c in enumerate(args):
        if quote:
            if c == "\\":
                continue
            if c == '"' and (i == 0 or args[i - 1] != "\\"):
                quote = False
        elif c == '"':
            quote = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            out.append((args[start:i], shift(loc, start)))
            start = i + 1
    if args.strip():
        out.append((args[start:], shift(loc, start)))
    return out


def string_arg(args: str, loc: SourceLoc) -> str:
    s = args.strip()
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise Diagnostic("expected a quoted string", loc)
    return unquote(s, loc).decode()


def unquote(s: str, loc: SourceLoc) -> bytes:
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise Diagnostic("expected a quoted string", loc)
    body, out, i = s[1:-1], bytearray(), 0
    esc = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, '"': 34, "b": 8, "f": 12}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 2 < len(body) and body[i + 2] in "01234567":
                j = i + 1
                while j < len(body) and j < i + 4 and body[j] in "01234567":
                    j += 1
                out.append(int(body[i + 1:j], 8) & 0xFF)
                i = j
                continue
            if nxt not in esc:
                raise Diagnostic(f"unknown escape '\\{nxt}' in string", loc)
            out.append(esc[nxt])
            i += 2
            continue
        out += c.encode()
        i += 1
    return bytes(out)

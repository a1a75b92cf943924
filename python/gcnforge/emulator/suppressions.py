"""Sanitizer suppressions, as compute-sanitizer and Valgrind take them: a report whose kind, pc
and kernel match a rule is counted as suppressed and neither stops nor is listed.

A suppression file holds one rule per line, ``#`` starts a comment; a rule is one or more of
``kind=K[,K2...]`` (``hazard``, ``oob``, ``unwaited``, ... see ``sanitizer.py``),
``pc=0xA`` or ``pc=0xA-0xB`` (inclusive byte addresses, as reports print them) and
``kernel=NAME`` (a shell-style pattern); every part given must match::

    kind=hazard pc=0x1300-0x1340 kernel=bf16gemm_*   # aiter's M0 -> LDS DMA, checked by hand
    kind=uninit
"""

from __future__ import annotations

import fnmatch

from gcnforge.diagnostics import Diagnostic, SourceLoc

MAX_RULES = 10_000  # an input-controlled count: bounded


class Rule:
    __slots__ = ("kinds", "lo", "hi", "kernel", "where")

    def __init__(self, kinds=None, lo=None, hi=None, kernel=None, where=""):
        self.kinds, self.lo, self.hi, self.kernel, self.where = kinds, lo, hi, kernel, where

    def matches(self, kernel: str, pc: int, kind: str) -> bool:
        return ((self.kinds is None or kind in self.kinds)
                and (self.lo is None or self.lo <= pc <= self.hi)
                and (self.kernel is None or fnmatch.fnmatchcase(kernel, self.kernel)))


class Suppressions:
    """The rules of a file; ``match(kernel, pc, kind)`` is the first matching rule or None."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules

    def match(self, kernel: str, pc: int, kind: str) -> Rule | None:
        for r in self.rules:
            if r.matches(kernel, pc, kind):
                return r
        return None

    @classmethod
    def parse(cls, text: str, filename: str = "<suppressions>") -> Suppressions:
        rules = []
        for n, line in enumerate(text.splitlines(), 1):
            body = line.split("#", 1)[0].strip()
            if not body:
                continue
            if len(rules) >= MAX_RULES:
                raise Diagnostic(f"more than {MAX_RULES} suppression rules", SourceLoc(filename, n, 1))
            rules.append(_rule(body, line, filename, n))
        return cls(rules)

    @classmethod
    def load(cls, path: str) -> Suppressions:
        try:
            with open(path, encoding="utf-8") as fh:
                return cls.parse(fh.read(), str(path))
        except OSError as e:
            raise Diagnostic(f"cannot read suppression file: {e.strerror or e}", str(path)) from None
        except UnicodeDecodeError:
            raise Diagnostic("suppression file is not UTF-8 text", str(path)) from None


def _rule(body: str, line: str, filename: str, n: int) -> Rule:
    r = Rule(where=f"{filename}:{n}")
    for part in body.split():
        key, sep, val = part.partition("=")
        loc = SourceLoc(filename, n, line.index(part) + 1)
        if not sep or not val:
            raise Diagnostic(f"'{part}' is not key=value (kind=, pc=, kernel=)", loc)
        if key == "kind":
            r.kinds = frozenset(v for v in val.split(",") if v)
        elif key == "pc":
            lo_s, dash, hi_s = val.partition("-")
            try:
                r.lo = int(lo_s, 0)
                r.hi = int(hi_s, 0) if dash else r.lo
            except ValueError:
                raise Diagnostic(f"pc '{val}' is not an address or a range 0xA-0xB", loc) from None
            if r.hi < r.lo:
                raise Diagnostic(f"pc range '{val}' ends before it starts", loc)
        elif key == "kernel":
            r.kernel = val
        else:
            raise Diagnostic(f"unknown key '{key}' (kind, pc, kernel)", loc)
    return r

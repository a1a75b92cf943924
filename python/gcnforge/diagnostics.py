"""The project's one diagnostic type.

Every error a user can cause (bad assembly text, a malformed code object, an IR verifier
failure, a fault in an emulated kernel) is raised as a ``Diagnostic`` carrying where it
happened. CLIs catch ``Diagnostic``, print ``str(d)`` and exit non-zero; anything else
escaping is a bug in gcnforge.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceLoc:
    """A place in a text file (1-based line and column, as compilers print them)."""

    file: str
    line: int
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Diagnostic(Exception):
    """An error with a location: a ``SourceLoc``, or any object whose ``str`` names the
    place (an op, ``pc=0x40 wave=3 lane=17``, ``.note offset 0x1c``)."""

    def __init__(self, message: str, loc: object | None = None, notes: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.notes = tuple(notes)

    def __str__(self) -> str:
        head = f"{self.loc}: error: {self.message}" if self.loc is not None else f"error: {self.message}"
        return "\n".join([head, *(f"note: {n}" for n in self.notes)])

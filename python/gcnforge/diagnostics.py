"""The project's one diagnostic type.

Every error a user can cause (bad assembly text, a malformed code object, an IR verifier
failure, a fault in an emulated kernel) is raised as a ``Diagnostic`` carrying where it
happened. CLIs catch ``Diagnostic``, print ``str(d)`` and exit non-zero; anything else
escaping is a bug in gcnforge.
"""

from __future__ import annotations

from gcnforge.record import FrozenRecord


class SourceLoc(FrozenRecord):
    """A place in a text file (1-based line and column, as compilers print them). A frozen
    value (equality, hash, ``replace(col=...)``) without ``dataclasses``: one is made per
    assembled line, and the dataclass machinery is a measurable part of ``gcnforge as``."""

    __slots__ = _fields = ("file", "line", "col")
    file: str
    line: int
    col: int

    def __init__(self, file: str, line: int, col: int = 1) -> None:
        _set(self, "file", file)
        _set(self, "line", line)
        _set(self, "col", col)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


_set = object.__setattr__


class Diagnostic(Exception):
    """An error with a location: a ``SourceLoc``, or any object whose ``str`` names the
    place (an op, ``pc=0x40 wave=3 lane=17``, ``.note offset 0x1c``)."""

    def __init__(self, message: str, loc: object | None = None, notes: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.op = loc if _is_op(loc) else None
        self.loc = op_place(loc) if self.op is not None else loc
        self.notes = tuple(notes)

    def __str__(self) -> str:
        head = f"{self.loc}: error: {self.message}" if self.loc is not None else f"error: {self.message}"
        return "\n".join([head, *(f"note: {n}" for n in self.notes)])


MAX_ERRORS = 100  # errors one input reports before the reader stops (as compilers cap them)


class Diagnostics(Diagnostic):
    """Every error found in one input (each bad line of an assembly file), in input order:
    printed one after the other, each at its own location, as compilers report them. The
    first error's message and location are this one's."""

    def __init__(self, errors: list[Diagnostic] | tuple[Diagnostic, ...]):
        first = errors[0]
        super().__init__(first.message, first.loc, first.notes)
        self.errors = tuple(errors)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


def collected(errors: list[Diagnostic]) -> Diagnostic:
    """The one diagnostic to raise for ``errors`` (non-empty): itself, or all of them."""
    return errors[0] if len(errors) == 1 else Diagnostics(errors)


def _is_op(x: object) -> bool:
    return hasattr(x, "parent_op") and hasattr(x, "location") and hasattr(x, "regions")


def op_place(op) -> SourceLoc | str:
    """Where an IR op (an xDSL ``Operation``; duck-typed, this module imports nothing) was
    written: the ``file:line:col`` in its ``location`` (text) or the author's Python line
    (builder), else its nearest located ancestor's; ``'op.name'`` when nothing is known."""
    cur = op
    while cur is not None:
        loc = cur.location
        if hasattr(loc, "filename") and hasattr(loc, "line") and hasattr(loc, "column"):
            return SourceLoc(loc.filename.data, loc.line.data, loc.column.data)
        cur = cur.parent_op()
    return f"'{op.name}'"

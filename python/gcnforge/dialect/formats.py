"""xDSL declarative assembly formats, compiled when an op is first parsed or printed.

xDSL compiles an op's ``assembly_format`` when the class is defined, which imports its
format machinery (``xdsl.irdl.declarative_assembly_format``, about 15 ms of CPU) in every
process that imports the dialect, although ``gcnforge compile`` of a Python kernel never
parses or prints IR. An op writes instead

    parse, print = deferred_format("$parts attr-dict `:` type($parts) `->` type($result)")

(the same format text, the same xDSL parser and printer), and the format is compiled on its
first use. The methods carry the text as ``.format`` (a test compiles every op's format).
"""

from __future__ import annotations

from typing import Any

def deferred_format(fmt: str) -> tuple[Any, Any]:
    """``parse`` (a classmethod) and ``print`` for an op class body, from a declarative format."""
    programs: dict[type, Any] = {}

    def program(cls: type) -> Any:
        p = programs.get(cls)
        if p is None:
            from xdsl.irdl.declarative_assembly_format import FormatProgram

            p = programs[cls] = FormatProgram.from_str(fmt, cls.get_irdl_definition())  # type: ignore[attr-defined]
        return p

    def parse(cls, parser):
        return program(cls).parse(parser, cls)

    def print_(self, printer) -> None:
        program(type(self)).print(printer, self)

    parse.__qualname__ = "parse"
    print_.__name__ = print_.__qualname__ = "print"
    print_.format = parse.format = fmt  # type: ignore[attr-defined]
    return classmethod(parse), print_


__all__ = ["deferred_format"]

"""Plain slotted value records for modules on the ``gcnforge as`` start-up path.

``@dataclass`` costs every process the ``dataclasses`` import (it pulls in ``inspect``) and
generates and compiles code for each class it decorates: about 20 ms of a 0.16 s
``gcnforge as`` run when the assembler, the ISA schema and the code-object writer used it
(issue 15). These bases give the same behaviour with no code generation: the subclass names
its fields in ``_fields`` (in constructor order; usually also its ``__slots__``) and writes
its ``__init__``.

* ``Record``: equality by type and fields, ``repr``, ``replace(**changes)`` (as
  ``dataclasses.replace``), pickling/copying; unhashable, like a mutable dataclass.
* ``FrozenRecord``: also hashable and immutable (assignment raises
  ``FrozenInstanceError``); ``__init__`` sets its fields with ``set_fields``.
"""

from __future__ import annotations


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record (the name ``dataclasses`` uses)."""


class Record:
    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _values(self) -> tuple:
        return tuple([getattr(self, n) for n in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._fields)})"

    def __reduce__(self) -> tuple:
        return type(self), self._values()

    def replace(self, **changes: object):
        """A copy with ``changes`` applied (unknown names raise ``TypeError``)."""
        return type(self)(**{**{n: getattr(self, n) for n in self._fields}, **changes})


class FrozenRecord(Record):
    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


def set_fields(record: Record, *values: object) -> None:
    """Set a record's fields to ``values``, in ``_fields`` order (a frozen record's
    ``__init__`` body: its signature keeps the names, types and defaults)."""
    for name, value in zip(record._fields, values, strict=True):
        object.__setattr__(record, name, value)

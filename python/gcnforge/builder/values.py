"""Python handles on IR values: registers, tokens and kernel-argument specs.

A ``Reg`` wraps an SSA value of a register type and knows the kernel builder that made it,
so range helpers (``r[1]``, ``r[0:2]``, ``r.split()``) can insert ``amdgcn.split_range``
ops. Python lists of ``Reg`` are the way to hold many registers; Python loops over them
unroll into straight-line IR.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.ir import SSAValue

from gcnforge.dialect.attrs import KernelArgAttr
from gcnforge.dialect.types import RegisterType, SpecialRegType
from gcnforge.record import FrozenRecord

if TYPE_CHECKING:
    from gcnforge.builder.kernel import Builder


class Value:
    """Any SSA value the builder hands out."""

    __slots__ = ("value", "builder")

    def __init__(self, value: SSAValue, builder: Builder | None = None):
        self.value = value
        self.builder = builder

    @property
    def type(self):
        return self.value.type

    def named(self, name: str):
        """Give the value a name in the printed IR (``%off``); returns self."""
        self.value.name_hint = name
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.value.type})"


class Token(Value):
    """A memory token (``!amdgcn.read_token`` / ``!amdgcn.write_token``); pass to ``k.wait``."""


class Reg(Value):
    """A register or register range (VGPR, SGPR, AGPR) or a special register."""

    @property
    def width(self) -> int:
        return self.type.width

    @property
    def file(self) -> str:
        t = self.type
        return t.FILE if isinstance(t, RegisterType) else t.reg.data  # type: ignore[union-attr]

    def __len__(self) -> int:
        return self.width

    def split(self, *sizes: int) -> list[Reg]:
        """Split into parts of ``sizes`` dwords (default: single dwords)."""
        assert self.builder is not None
        return self.builder.split(self, *sizes)

    def __getitem__(self, key: int | slice) -> Reg:
        assert self.builder is not None
        return self.builder.slice(self, key)

    def __iter__(self):
        return iter(self.split())


def unwrap(v: object) -> object:
    return v.value if isinstance(v, Value) else v


class Arg(FrozenRecord):
    """A kernel argument: ``Arg.ptr("a", access="read_only")``, ``Arg.value("n")``. (A frozen
    record: no ``@dataclass`` code generation at import, issue 15.)"""

    __slots__ = _fields = ("name", "kind", "size", "align", "space", "access")
    name: str
    kind: str
    size: int
    align: int
    space: str
    access: str

    def __init__(self, name: str, kind: str = "by_value", size: int = 4, align: int = 4, space: str = "none",
                 access: str = "none") -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "kind", kind)
        _set(self, "size", size)
        _set(self, "align", align)
        _set(self, "space", space)
        _set(self, "access", access)

    @staticmethod
    def ptr(name: str, *, access: str = "read_write", space: str = "global") -> Arg:
        return Arg(name, "global_buffer", 8, 8, space, access)

    @staticmethod
    def value(name: str, size: int = 4, align: int | None = None) -> Arg:
        return Arg(name, "by_value", size, align or min(size, 8))

    def attr(self) -> KernelArgAttr:
        return KernelArgAttr.make(
            name=self.name, kind=self.kind, size=self.size, align=self.align, space=self.space, access=self.access
        )


__all__ = ["Value", "Reg", "Token", "Arg", "unwrap", "SpecialRegType"]

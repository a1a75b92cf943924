"""Python handles on IR values: registers, tokens and kernel-argument specs.

A ``Reg`` wraps an SSA value of a register type and knows the kernel builder that made it,
so range helpers (``r[1]``, ``r[0:2]``, ``r.split()``) can insert ``amdgcn.split_range``
ops. Python lists of ``Reg`` are the way to hold many registers; Python loops over them
unroll into straight-line IR.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.ir import SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.attrs import ARG_TYPE_BYTES, KernelArgAttr
from gcnforge.dialect.types import RegisterType, SpecialRegType
from gcnforge.record import FrozenRecord, set_fields

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
    """A kernel argument: ``Arg.ptr("x", np.float32, access="read_only")``,
    ``Arg.value("alpha", np.float32)``, ``Arg.value("n", np.int32)``. The type (a NumPy dtype
    or a short name: ``"f32"``, ``"u32"``, ``"bf16"``...) is the pointee's element type for a
    pointer and the value's type for a scalar; it goes into the code object's metadata as
    clang writes it (``.type_name: 'float*'``), so a launch checks arrays and scalars against
    it. Without a type the argument is raw bytes (``Arg.value("bits", size=8)``). (A frozen
    record: no ``@dataclass`` code generation at import, issue 15.)"""

    __slots__ = _fields = ("name", "kind", "size", "align", "space", "access", "type")
    name: str
    kind: str
    size: int
    align: int
    space: str
    access: str
    type: str

    def __init__(self, name: str, kind: str = "by_value", size: int = 4, align: int = 4, space: str = "none",
                 access: str = "none", type: str = "none") -> None:
        set_fields(self, name, kind, size, align, space, access, type)

    @staticmethod
    def ptr(name: str, dtype: object = None, *, access: str = "read_write", space: str = "global") -> Arg:
        return Arg(name, "global_buffer", 8, 8, space, access, arg_type(dtype))

    @staticmethod
    def value(name: str, dtype: object = None, *, size: int | None = None, align: int | None = None) -> Arg:
        t = arg_type(dtype)
        if t != "none" and size is not None and size != ARG_TYPE_BYTES[t]:
            raise _fail(f"argument '{name}': a {t} value is {ARG_TYPE_BYTES[t]} bytes, not size={size}")
        size = ARG_TYPE_BYTES[t] if t != "none" else (4 if size is None else size)
        return Arg(name, "by_value", size, align or min(size, 8), type=t)

    def attr(self) -> KernelArgAttr:
        return KernelArgAttr.make(
            name=self.name, kind=self.kind, size=self.size, align=self.align, space=self.space, access=self.access,
            type=self.type,
        )


def _fail(msg: str) -> Diagnostic:
    from gcnforge.builder.emit import user_location  # (emit imports this module)

    return Diagnostic(msg, user_location())


def arg_type(dtype: object) -> str:
    """The ``#amdgcn.arg`` type name of ``dtype``: None (untyped: "none"), a short name
    (``"f32"``), or anything ``numpy.dtype`` takes (``np.float32``, ``"float32"``; ml_dtypes'
    ``bfloat16``). A Diagnostic at the author's line for any other."""
    if dtype is None:
        return "none"
    if isinstance(dtype, str) and dtype in ARG_TYPE_BYTES:
        return dtype
    import numpy as np

    try:
        dt = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        dt = None
    name = None
    if dt is not None and dt.name == "bfloat16":
        name = "bf16"
    elif dt is not None and dt.kind in "iuf":
        name = f"{dt.kind}{dt.itemsize * 8}"
    if name not in ARG_TYPE_BYTES:
        raise _fail(f"argument type {dtype!r} is not one a kernel argument can have "
                    f"(expected a NumPy dtype or one of {', '.join(ARG_TYPE_BYTES)})")
    return name  # type: ignore[return-value]


__all__ = ["Value", "Reg", "Token", "Arg", "arg_type", "unwrap", "SpecialRegType"]

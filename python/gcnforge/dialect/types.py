"""Register, special-register and memory-token types of the ``amdgcn`` dialect.

A register type names a register file (``vgpr``, ``sgpr``, ``agpr``), a width in dwords,
an alignment, and how far allocation has got. There are three states:

====================  =============================  ==============================
state                 one register                   a range of N dwords
====================  =============================  ==============================
SSA value (unbound)   ``!amdgcn.vgpr``               ``!amdgcn.vgpr<[? + 4]>``
unallocated storage   ``!amdgcn.vgpr<?>``            ``!amdgcn.vgpr<[? : ? + 4]>``
allocated             ``!amdgcn.vgpr<5>``            ``!amdgcn.vgpr<[8 : 12]>``
====================  =============================  ==============================

Allocated ranges are half-open like MLIR ranges: ``[8 : 12]`` is LLVM's ``v[8:11]``.
Before allocation every definition is a fresh SSA value; after allocation the same ops are
in-place writes to the named registers.

Alignment is part of the type. Its default is what gfx942 requires (AMD Instinct MI300
ISA Reference Guide, 3.6 "SGPR alignment": 64-bit SGPR operands start at an even SGPR,
128-bit and wider at a multiple of 4; LLVM's gfx90a+ ``FeatureGFX90AInsts`` requires
even-aligned VGPR/AGPR tuples). A stricter alignment is printed as ``, align N``
(``!amdgcn.vgpr<[? + 4], align 4>``) and verified against allocated indices.

Special registers are ``!amdgcn.special<vcc>`` (vcc, exec, their ``_lo``/``_hi`` halves,
scc, m0). Memory operations yield ``!amdgcn.read_token`` / ``!amdgcn.write_token`` values
that ``amdgcn.wait`` consumes.

Parameters are plain integers; in MLIR-compatible output (see ``mlir_compat``) they print
as ``i32`` attributes so that LLVM's ``mlir-opt`` can check them against the IRDL export.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.exceptions import VerifyException

from gcnforge.dialect import mlir_compat
from gcnforge.isa.target import target as _target

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import AttrParser
    from xdsl.printer import Printer

VALUE = -2  # state: an SSA value not bound to storage
UNALLOCATED = -1  # state: storage, register not chosen yet

_TARGET = _target()  # gfx942's register files (gfx950 has the same)
# Registers addressable by an instruction on gfx942 (ISA guide 3.6 / 3.7). The allocator
# uses gcnforge.isa.target for the budget; these are the hard encoding limits.
FILE_LIMIT = {"v": _TARGET.arch_vgprs, "a": _TARGET.agprs, "s": _TARGET.sgprs}
VALID_COUNTS = (1, 2, 3, 4, 5, 6, 7, 8, 16, 32)


_MADE: dict[tuple, "RegisterType"] = {}  # bounded by the distinct (file, begin, count, align) in use


def default_align(file: str, count: int) -> int:
    if file == "s":
        return 1 if count == 1 else (2 if count == 2 else 4)
    return 1 if count == 1 else 2


@dataclass(frozen=True)
class RegisterType(ParametrizedAttribute, TypeAttribute):
    """Base of ``!amdgcn.vgpr`` / ``!amdgcn.sgpr`` / ``!amdgcn.agpr``."""

    begin: IntAttr  # first register index, or VALUE / UNALLOCATED
    count: IntAttr  # width in dwords
    align: IntAttr  # required alignment of ``begin`` in registers

    FILE: ClassVar[str] = "?"  # 'v', 's' or 'a' as in LLVM's assembly (v0, s[2:3], a[0:3])

    # -- construction -------------------------------------------------------------------
    @classmethod
    def value(cls, count: int = 1, align: int | None = None):
        return cls._make(VALUE, count, align)

    @classmethod
    def unallocated(cls, count: int = 1, align: int | None = None):
        return cls._make(UNALLOCATED, count, align)

    @classmethod
    def allocated(cls, begin: int, count: int = 1, align: int | None = None):
        return cls._make(begin, count, align)

    @classmethod
    def _make(cls, begin: int, count: int, align: int | None):
        # attributes are immutable values: build each distinct one once (the builder asks
        # for the same few types thousands of times, and xDSL's constructor verifies each)
        key = (cls, begin, count, align)
        t = _MADE.get(key)
        if t is None:
            a = default_align(cls.FILE, count) if align is None else align
            t = _MADE[key] = cls(IntAttr(begin), IntAttr(count), IntAttr(a))
        return t

    # -- queries --------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self.count.data

    @property
    def index(self) -> int | None:
        return self.begin.data if self.begin.data >= 0 else None

    @property
    def is_value(self) -> bool:
        return self.begin.data == VALUE

    @property
    def is_allocated(self) -> bool:
        return self.begin.data >= 0

    def with_state(self, begin: int):
        return type(self)(IntAttr(begin), self.count, self.align)

    def with_count(self, count: int, begin: int | None = None):
        b = self.begin.data if begin is None else begin
        return type(self)._make(b, count, None)

    def asm(self) -> str:
        """LLVM assembly spelling of an allocated register (``v5``, ``s[2:3]``)."""
        b, n = self.begin.data, self.count.data
        if b < 0:
            raise ValueError(f"{self} is not allocated")
        return f"{self.FILE}{b}" if n == 1 else f"{self.FILE}[{b}:{b + n - 1}]"

    # -- text ------------------------------------------------------------------------------
    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        params = cls._parse_params(parser)
        if (msg := cls.problem_of(params[0].data, params[1].data, params[2].data)) is not None:
            parser.raise_error(msg, start, parser.pos)
        return params

    @classmethod
    def _parse_params(cls, parser: AttrParser) -> Sequence[Attribute]:
        if not parser.parse_optional_punctuation("<"):
            return (IntAttr(VALUE), IntAttr(1), IntAttr(1))
        align = None
        if parser.parse_optional_punctuation("["):
            if parser.parse_optional_punctuation("?"):
                if parser.parse_optional_punctuation("+"):
                    begin, count = VALUE, parser.parse_integer(allow_negative=False)
                else:
                    parser.parse_punctuation(":")
                    parser.parse_punctuation("?")
                    parser.parse_punctuation("+")
                    begin, count = UNALLOCATED, parser.parse_integer(allow_negative=False)
            else:
                begin = parser.parse_integer(allow_negative=False)
                parser.parse_punctuation(":")
                end = parser.parse_integer(allow_negative=False)
                count = end - begin
            parser.parse_punctuation("]")
        elif parser.parse_optional_punctuation("?"):
            begin, count = UNALLOCATED, 1
        elif parser.parse_optional_keyword("align"):
            begin, count = VALUE, 1
            align = parser.parse_integer(allow_negative=False)
            parser.parse_punctuation(">")
            return (IntAttr(begin), IntAttr(count), IntAttr(align))
        else:
            begin, count = parser.parse_integer(allow_negative=False), 1
        if parser.parse_optional_punctuation(","):
            parser.parse_keyword("align")
            align = parser.parse_integer(allow_negative=False)
        parser.parse_punctuation(">")
        if count <= 0:
            parser.raise_error(f"register range must have a positive width, got {count}")
        a = default_align(cls.FILE, count) if align is None else align
        return (IntAttr(begin), IntAttr(count), IntAttr(a))

    def print_parameters(self, printer: Printer) -> None:
        if mlir_compat.active():
            mlir_compat.print_int_params(printer, (self.begin.data, self.count.data, self.align.data))
            return
        b, n, a = self.begin.data, self.count.data, self.align.data
        non_default = a != default_align(self.FILE, n)
        if b == VALUE and n == 1:
            if non_default:
                printer.print_string(f"<align {a}>")
            return
        if n == 1:
            body = "?" if b == UNALLOCATED else ("[? + 1]" if b == VALUE else str(b))
        elif b == VALUE:
            body = f"[? + {n}]"
        elif b == UNALLOCATED:
            body = f"[? : ? + {n}]"
        else:
            body = f"[{b} : {b + n}]"
        printer.print_string(f"<{body}, align {a}>" if non_default else f"<{body}>")

    def verify(self) -> None:
        if (msg := self.problem()) is not None:
            raise VerifyException(msg)

    def problem(self) -> str | None:
        return self.problem_of(self.begin.data, self.count.data, self.align.data)

    @classmethod
    def problem_of(cls, b: int, n: int, a: int | None = None) -> str | None:
        """Why ``(begin, count, align)`` is not a valid type of this file, or None."""
        self = cls  # messages use the class's name and file
        a = default_align(cls.FILE, n) if a is None else a
        if n not in VALID_COUNTS:
            return f"{self.name}: a register range holds 1-8, 16 or 32 dwords, not {n}"
        if a <= 0 or a & (a - 1):
            return f"{self.name}: alignment must be a power of two, got {a}"
        need = default_align(self.FILE, n)
        if a < need:
            return f"{self.name}: a {n}-dword range needs alignment {need} on gfx942, got {a}"
        if b < VALUE:
            return f"{self.name}: invalid register index {b}"
        if b >= 0:
            if b % a:
                return f"{self.name}: register {b} is not aligned to {a} (a {n}-dword range)"
            if b + n > FILE_LIMIT[self.FILE]:
                return (
                    f"{self.name}: registers [{b} : {b + n}] exceed the {FILE_LIMIT[self.FILE]} "
                    f"addressable {self.FILE.upper()}GPRs"
                )
        return None


@irdl_attr_definition
class VGPRType(RegisterType):
    name = "amdgcn.vgpr"
    FILE: ClassVar[str] = "v"


@irdl_attr_definition
class SGPRType(RegisterType):
    name = "amdgcn.sgpr"
    FILE: ClassVar[str] = "s"


@irdl_attr_definition
class AGPRType(RegisterType):
    name = "amdgcn.agpr"
    FILE: ClassVar[str] = "a"


REGISTER_TYPES: dict[str, type[RegisterType]] = {"v": VGPRType, "s": SGPRType, "a": AGPRType}

# Special registers and their width in dwords (scc is one bit, held like a 1-dword value).
SPECIAL_WIDTH = {
    "vcc": 2,
    "vcc_lo": 1,
    "vcc_hi": 1,
    "exec": 2,
    "exec_lo": 1,
    "exec_hi": 1,
    "scc": 1,
    "m0": 1,
}


@irdl_attr_definition
class SpecialRegType(ParametrizedAttribute, TypeAttribute):
    """A named special register: ``!amdgcn.special<vcc>``."""

    name = "amdgcn.special"
    reg: StringAttr

    @staticmethod
    def get(reg: str) -> SpecialRegType:
        return SpecialRegType(StringAttr(reg))

    @property
    def width(self) -> int:
        return SPECIAL_WIDTH.get(self.reg.data, 1)

    def asm(self) -> str:
        return self.reg.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            name = parser.parse_identifier()
            if name not in SPECIAL_WIDTH:
                parser.raise_error(
                    f"unknown special register '{name}' (expected one of {', '.join(SPECIAL_WIDTH)})",
                    pos,
                    parser.pos,
                )
        return (StringAttr(name),)

    def print_parameters(self, printer: Printer) -> None:
        if mlir_compat.active():
            printer.print_string(f'<"{self.reg.data}">')
        else:
            printer.print_string(f"<{self.reg.data}>")

    def verify(self) -> None:
        if self.reg.data not in SPECIAL_WIDTH:
            raise VerifyException(f"unknown special register '{self.reg.data}'")


@irdl_attr_definition
class ReadTokenType(ParametrizedAttribute, TypeAttribute):
    """Yielded by a memory read; ``amdgcn.wait`` on it waits for the data to arrive."""

    name = "amdgcn.read_token"


@irdl_attr_definition
class WriteTokenType(ParametrizedAttribute, TypeAttribute):
    """Yielded by a memory write or atomic without return."""

    name = "amdgcn.write_token"


TokenType = ReadTokenType | WriteTokenType

"""Attributes of the ``amdgcn`` dialect: target, instruction, kernel ABI.

* ``#amdgcn.target<gfx942>`` / ``#amdgcn.target<gfx950>`` on ``amdgcn.module``: which
  instruction table and target facts (LDS size, registers) its kernels are checked against.
* ``#amdgcn.inst<v_add_f32_e32>``: an instruction of the ISA table, spelled exactly as
  LLVM prints its mnemonic (``gcnforge.isa.table.by_mnemonic`` key).
* ``#amdgcn.arg<...>``: one kernel argument as the AMDGPU code-object metadata describes it
  (``.value_kind``, ``.size``, ``.offset`` alignment, ``.address_space``, ``.access``).
* ``#amdgcn.float_mode<...>``: the kernel descriptor's FP mode fields
  (``.amdhsa_float_round_mode_32`` ... ``.amdhsa_ieee_mode``).

Key/value attributes print as ``#amdgcn.arg<kind = global_buffer, size = 8, ...>`` with
fields in a fixed order, defaults omitted, so print -> parse -> print is stable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.exceptions import VerifyException

from gcnforge.dialect import mlir_compat
from gcnforge.isa.target import TARGETS as _TARGET_FACTS
from gcnforge.isa.target import SYSTEM_SGPRS, SYSTEM_VGPRS, USER_SGPRS  # noqa: F401  (re-exported)

if TYPE_CHECKING:  # xdsl's parser and printer only when IR text is read or written (issue 15)
    from xdsl.parser import AttrParser
    from xdsl.printer import Printer

TARGETS = tuple(_TARGET_FACTS)  # the processors gcnforge has facts and an instruction table for


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    name = "amdgcn.target"
    chip: StringAttr

    @staticmethod
    def get(chip: str = "gfx942") -> TargetAttr:
        return TargetAttr(StringAttr(chip))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_identifier()),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{mlir_compat.quote(self.chip.data)}>" if mlir_compat.active() else f"<{self.chip.data}>"
        )

    def verify(self) -> None:
        if self.chip.data not in TARGETS:
            raise VerifyException(f"unsupported target '{self.chip.data}' (supported: {', '.join(TARGETS)})")


_INST_ATTRS: dict[str, "InstAttr"] = {}


@irdl_attr_definition
class InstAttr(ParametrizedAttribute):
    """An ISA-table instruction. Which op family may carry it is checked by the op."""

    name = "amdgcn.inst"
    mnemonic: StringAttr

    @staticmethod
    def get(mnemonic: str) -> InstAttr:
        a = _INST_ATTRS.get(mnemonic)
        if a is None:  # one immutable attribute per mnemonic (bounded by the table)
            a = InstAttr(StringAttr(mnemonic))
            if len(_INST_ATTRS) < 8192:
                _INST_ATTRS[mnemonic] = a
        return a

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            name = parser.parse_optional_str_literal() or parser.parse_identifier()
        return (StringAttr(name),)

    def print_parameters(self, printer: Printer) -> None:
        m = self.mnemonic.data
        printer.print_string(f"<{mlir_compat.quote(m)}>" if mlir_compat.active() else f"<{m}>")


class KeyValueAttr(ParametrizedAttribute):
    """A fixed set of named fields, each an identifier (StringAttr) or integer (IntAttr).
    Subclasses list ``FIELDS`` as (name, 'id'|'int'|'str', default, allowed ids or None)."""

    FIELDS: ClassVar[tuple[tuple[str, str, object, tuple[str, ...] | None], ...]] = ()

    @classmethod
    def make(cls, **kw):
        unknown = set(kw) - {f[0] for f in cls.FIELDS}
        if unknown:
            raise ValueError(f"{cls.name}: unknown field(s) {', '.join(sorted(unknown))}")
        params = []
        for fname, kind, default, _ in cls.FIELDS:
            v = kw.get(fname, default)
            params.append(IntAttr(int(v)) if kind == "int" else StringAttr(str(v)))
        return cls(*params)

    def get(self, fname: str):
        for (n, kind, _, _), p in zip(self.FIELDS, self.parameters, strict=True):
            if n == fname:
                return p.data  # type: ignore[attr-defined]
        raise KeyError(fname)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        values: dict[str, object] = {}
        fields = {f[0]: f for f in cls.FIELDS}
        with parser.in_angle_brackets():
            while True:
                pos = parser.pos
                key = parser.parse_optional_identifier()
                if key is None:
                    break
                if key not in fields:
                    parser.raise_error(
                        f"unknown field '{key}' in #{cls.name} (expected {', '.join(fields)})", pos, parser.pos
                    )
                if key in values:
                    parser.raise_error(f"field '{key}' given twice", pos, parser.pos)
                parser.parse_punctuation("=")
                kind = fields[key][1]
                if kind == "int":
                    values[key] = parser.parse_integer()
                elif kind == "str":
                    values[key] = parser.parse_str_literal()
                else:
                    vpos = parser.pos
                    values[key] = parser.parse_identifier()
                    allowed = fields[key][3]
                    if allowed and values[key] not in allowed:
                        parser.raise_error(
                            f"invalid {key} '{values[key]}' (expected one of {', '.join(allowed)})", vpos, parser.pos
                        )
                if not parser.parse_optional_punctuation(","):
                    break
        return cls.make(**values).parameters

    def print_parameters(self, printer: Printer) -> None:
        parts = []
        for (fname, kind, default, _), p in zip(self.FIELDS, self.parameters, strict=True):
            v = p.data  # type: ignore[attr-defined]
            if mlir_compat.active():
                parts.append(f"{v} : i32" if kind == "int" else mlir_compat.quote(v))
                continue
            if v == default:
                continue
            parts.append(f"{fname} = {mlir_compat.quote(v) if kind == 'str' else v}")
        printer.print_string("<" + ", ".join(parts) + ">")

    def verify(self) -> None:
        for (fname, kind, _, allowed), p in zip(self.FIELDS, self.parameters, strict=True):
            if allowed and p.data not in allowed:  # type: ignore[attr-defined]
                raise VerifyException(f"#{self.name}: invalid {fname} '{p.data}'")  # type: ignore[attr-defined]


# AMDGPU code object v5 metadata, ".value_kind" values (LLVM AMDGPUUsage, "Code Object V3+
# Metadata"); hidden_* arguments are laid out by the code-object writer, not written here.
ARG_KINDS = ("by_value", "global_buffer", "dynamic_shared_pointer", "image", "sampler", "pipe", "queue")
ADDRESS_SPACES = ("none", "global", "constant", "local", "private", "generic", "region")
ACCESS = ("none", "read_only", "write_only", "read_write")
# Element types an argument may declare (a by-value argument's type, a pointer's pointee), in
# gcnforge's short names, with their sizes in bytes; "none" is an untyped argument (raw
# bytes). The code-object writer spells them as clang does in ``.type_name``
# (``binary.metadata_schema.TYPE_NAMES``), which is what the runtime checks a launch against.
ARG_TYPE_BYTES = {"i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2,
                  "i32": 4, "u32": 4, "f32": 4, "i64": 8, "u64": 8, "f64": 8}
ARG_TYPES = ("none", *ARG_TYPE_BYTES)


@irdl_attr_definition
class KernelArgAttr(KeyValueAttr):
    """``#amdgcn.arg<name = "a", kind = global_buffer, size = 8, align = 8,
    space = global, access = read_only, type = f32>``: ``type`` is the pointee's element type
    for a pointer, the value's type for a by-value argument, ``none`` (the default) for raw
    bytes."""

    name = "amdgcn.arg"
    arg_name: StringAttr
    kind: StringAttr
    size: IntAttr
    align: IntAttr
    space: StringAttr
    access: StringAttr
    arg_type: StringAttr

    FIELDS = (
        ("name", "str", "", None),
        ("kind", "id", "by_value", ARG_KINDS),
        ("size", "int", 4, None),
        ("align", "int", 4, None),
        ("space", "id", "none", ADDRESS_SPACES),
        ("access", "id", "none", ACCESS),
        ("type", "id", "none", ARG_TYPES),
    )

    def verify(self) -> None:
        super().verify()
        size, align = self.size.data, self.align.data
        if size <= 0:
            raise VerifyException(f"#amdgcn.arg: size must be positive, got {size}")
        if align <= 0 or align & (align - 1):
            raise VerifyException(f"#amdgcn.arg: align must be a power of two, got {align}")
        if self.kind.data == "global_buffer" and size != 8:
            raise VerifyException("#amdgcn.arg: a global_buffer argument is an 8-byte pointer")
        if self.kind.data == "global_buffer" and self.space.data not in ("global", "constant", "generic"):
            raise VerifyException(
                "#amdgcn.arg: a global_buffer argument needs space = global, constant or generic"
            )
        t = self.arg_type.data
        if t != "none" and self.kind.data not in ("by_value", "global_buffer"):
            raise VerifyException(f"#amdgcn.arg: a {self.kind.data} argument takes no type (got {t})")
        if t != "none" and self.kind.data == "by_value" and size != ARG_TYPE_BYTES[t]:
            raise VerifyException(f"#amdgcn.arg: a {t} value is {ARG_TYPE_BYTES[t]} bytes, not size = {size}")


@irdl_attr_definition
class FloatModeAttr(KeyValueAttr):
    """Kernel descriptor FP mode fields (ISA guide, MODE register; LLVM AMDGPUUsage
    ``.amdhsa_float_*``). Defaults are LLVM's for a kernel without FP attributes:
    round to nearest even, denormals preserved (mode 3), dx10_clamp and ieee on."""

    name = "amdgcn.float_mode"
    round32: IntAttr
    round16_64: IntAttr
    denorm32: IntAttr
    denorm16_64: IntAttr
    dx10_clamp: IntAttr
    ieee: IntAttr

    FIELDS = (
        ("round32", "int", 0, None),
        ("round16_64", "int", 0, None),
        ("denorm32", "int", 3, None),
        ("denorm16_64", "int", 3, None),
        ("dx10_clamp", "int", 1, None),
        ("ieee", "int", 1, None),
    )

    def verify(self) -> None:
        for (fname, *_), p in zip(self.FIELDS, self.parameters, strict=True):
            hi = 1 if fname in ("dx10_clamp", "ieee") else 3
            if not 0 <= p.data <= hi:  # type: ignore[attr-defined]
                raise VerifyException(f"#amdgcn.float_mode: {fname} must be in [0, {hi}], got {p.data}")  # type: ignore[attr-defined]


# An ``s_barrier`` op's own release kind (a StringAttr, one of isa.counters.BARRIER_RELEASE):
# what the wait pass waits for before it (``"none"``: the author, or raised code, orders it).
RELEASE_ATTR = "release"

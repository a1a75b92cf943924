"""The kernel-argument ABI: where each argument lives in the kernarg segment and how it is
packed.

Two sources of layouts:

* AMDGPU code-object metadata (``.args`` with ``.offset``, ``.size``, ``.value_kind``...,
  plus ``.kernarg_segment_size`` / ``.kernarg_segment_align``). Explicit arguments are
  ``global_buffer`` (a device pointer), ``by_value`` (a scalar or short vector) and
  ``dynamic_shared_pointer`` (an LDS offset); everything named ``hidden_*`` is filled in by
  the runtime (see ``hidden_values``).
* Explicit layouts for code objects whose metadata does not describe the arguments usefully,
  notably the 16-byte-slot convention of hand-written vendor kernels (``ArgLayout.slots16``):
  a packed struct where each argument starts a 16-byte slot (a pointer is followed by 8 bytes
  of padding, a 32-bit scalar by 12).

Reference for the v5 metadata and hidden arguments: LLVM AMDGPUUsage, "Code Object V5
Metadata" (kernel argument metadata map, value kinds, and the hidden-argument table: block
counts at +0/+4/+8, group sizes at +12/+14/+16, remainders at +18/+20/+22, global offsets at
+40/+48/+56, grid dims at +64, printf buffer +72, hostcall buffer +80, multigrid sync +88,
heap +96, default queue +104, completion action +112, dynamic LDS size +120, private base
+192, shared base +196, queue pointer +200, 256 bytes in all, relative to the first hidden
argument). ``tests/runtime/test_kernargs_clang.py`` checks that table against what clang 22
emits.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.types import ScalarType, encode_scalar, metadata_type, require_type

POINTER_SIZE = 8

# Offsets of the code-object-v5 hidden arguments relative to the first of them, and their
# sizes (LLVM AMDGPUUsage, "Code Object V5 Metadata"). Used to check metadata we read and
# to build layouts for assembly that declares hidden arguments by kind only.
V5_HIDDEN: dict[str, tuple[int, int]] = {
    "hidden_block_count_x": (0, 4), "hidden_block_count_y": (4, 4), "hidden_block_count_z": (8, 4),
    "hidden_group_size_x": (12, 2), "hidden_group_size_y": (14, 2), "hidden_group_size_z": (16, 2),
    "hidden_remainder_x": (18, 2), "hidden_remainder_y": (20, 2), "hidden_remainder_z": (22, 2),
    "hidden_global_offset_x": (40, 8), "hidden_global_offset_y": (48, 8), "hidden_global_offset_z": (56, 8),
    "hidden_grid_dims": (64, 2),
    "hidden_printf_buffer": (72, 8), "hidden_hostcall_buffer": (80, 8),
    "hidden_multigrid_sync_arg": (88, 8), "hidden_heap_v1": (96, 8),
    "hidden_default_queue": (104, 8), "hidden_completion_action": (112, 8),
    "hidden_dynamic_lds_size": (120, 4),
    "hidden_private_base": (192, 4), "hidden_shared_base": (196, 4),
    "hidden_queue_ptr": (200, 8),
}
V5_HIDDEN_BYTES = 256

# Hidden kinds whose value is a pointer to a runtime-owned object. A backend that has the
# object supplies its address (Backend.hidden_pointer); otherwise it is null, which is what
# the HIP runtime passes when a kernel does not need the feature.
HIDDEN_POINTERS = frozenset({
    "hidden_printf_buffer", "hidden_hostcall_buffer", "hidden_multigrid_sync_arg",
    "hidden_heap_v1", "hidden_default_queue", "hidden_completion_action", "hidden_queue_ptr",
})
HIDDEN_KINDS = frozenset(V5_HIDDEN) | {"hidden_none"}

_UNSUPPORTED_KINDS = {"image", "sampler", "pipe", "queue"}


@dataclass(frozen=True, slots=True)
class ArgField:
    """One argument of a layout.

    ``kind``: ``ptr`` (8-byte device address), ``value`` (scalar or vector of ``type``, or
    raw bytes when ``type`` is None), ``lds`` (``dynamic_shared_pointer``: the launch passes a
    byte count; the kernel receives the LDS offset), ``hidden`` (runtime-filled, ``value_kind``
    says which)."""

    name: str
    offset: int
    size: int
    kind: str
    value_kind: str = ""
    type: ScalarType | None = None  # by-value type, or the pointee type of a pointer
    count: tuple[str | int, ...] = ()  # minimum element count of a pointer's buffer (product)
    address_space: str | None = None
    access: str | None = None
    is_const: bool = False
    type_name: str | None = None
    pointee_align: int | None = None

    @property
    def is_explicit(self) -> bool:
        return self.kind != "hidden"


@dataclass(frozen=True, slots=True)
class LaunchDims:
    """What the hidden arguments describe: ``grid`` in workgroups (as hipModuleLaunchKernel),
    ``block`` in work-items, the dynamic LDS bytes, and pointers a backend supplies."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_lds: int = 0
    pointers: Mapping[str, int] = field(default_factory=dict)


def hidden_values(dims: LaunchDims) -> dict[str, int]:
    """Value of every hidden argument kind for a launch, with the meaning AMDGPUUsage gives
    them and the values the HIP runtime supplies for a module launch:

    * block counts are the grid in workgroups; group sizes the block; remainders are 0
      because a grid counted in workgroups has no partial workgroup;
    * global offsets are 0 (HIP has no global offset); grid dims is 3, since HIP dispatches
      every module launch as a 3-dimensional NDRange (ROCm clr ``ihipModuleLaunchKernel``;
      unused dimensions have size 1);
    * the dynamic LDS size is what the launch requested;
    * private/shared base (the aperture high halves, only read by GFX8 code) are 0 here;
    * runtime-object pointers come from the backend or are null.
    """
    g, b = dims.grid, dims.block
    v = {
        "hidden_block_count_x": g[0], "hidden_block_count_y": g[1], "hidden_block_count_z": g[2],
        "hidden_group_size_x": b[0], "hidden_group_size_y": b[1], "hidden_group_size_z": b[2],
        "hidden_remainder_x": 0, "hidden_remainder_y": 0, "hidden_remainder_z": 0,
        "hidden_global_offset_x": 0, "hidden_global_offset_y": 0, "hidden_global_offset_z": 0,
        "hidden_grid_dims": 3,
        "hidden_dynamic_lds_size": dims.dynamic_lds,
        "hidden_private_base": 0, "hidden_shared_base": 0,
        "hidden_none": 0,
    }
    for k in HIDDEN_POINTERS:
        v[k] = int(dims.pointers.get(k, 0))
    return v


def meta_int(m: Mapping[str, object], key: str, default: int | None, where: object, low: int = 0) -> int | None:
    """Integer field ``key`` of a metadata map (``default`` when absent); a Diagnostic when it
    is not an integer >= ``low`` (metadata from a mutated or hand-written code object)."""
    v = m.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise Diagnostic(f"metadata {key} is {v!r}, not an integer >= {low}", where)
    return v


def meta_dims(m: Mapping[str, object], key: str, where: object) -> tuple[int, int, int] | None:
    """A work-group size field (``.reqd_workgroup_size``): 3 positive integers, or None."""
    v = m.get(key)
    if v is None:
        return None
    if (not isinstance(v, (list, tuple)) or len(v) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in v)):
        raise Diagnostic(f"metadata {key} is {v!r}, not 3 positive integers", where)
    return (v[0], v[1], v[2])


_POINTEE = re.compile(r"^\s*(?:const\s+)?([A-Za-z_][A-Za-z0-9_ ]*?)\s*(?:const\s*)?\*\s*$")


def _pointee_type(type_name: str | None, value_type: object = None) -> ScalarType | None:
    """A pointer's pointee from ``float*``, ``const half4*``, ``short4v*`` (and the old
    ``.value_type``); None for ``void*``, pointers to pointers, structs and unknown typedefs."""
    m = _POINTEE.match(type_name) if type_name else None
    if type_name and not m:
        return None
    return metadata_type(m.group(1) if m else None, value_type)  # type: ignore[arg-type]


class ArgLayout:
    """An ordered set of non-overlapping argument fields in a kernarg segment of ``size``
    bytes aligned to ``align``. Build one from metadata (``from_metadata``), from the
    16-byte-slot convention (``slots16``) or from explicit fields."""

    def __init__(self, fields: Iterable[ArgField | Mapping[str, object]], size: int | None = None,
                 align: int = 8, where: object = "argument layout"):
        fs = [f if isinstance(f, ArgField) else _field_from_mapping(f, where) for f in fields]
        names = set()
        for f in fs:
            if f.is_explicit:
                if f.name in names:
                    raise Diagnostic(f"argument '{f.name}' declared twice", where)
                names.add(f.name)
            if f.offset < 0 or f.size <= 0:
                raise Diagnostic(f"argument '{f.name}': bad offset {f.offset} / size {f.size}", where)
        ordered = sorted(fs, key=lambda f: f.offset)
        for a, b in zip(ordered, ordered[1:]):
            if a.offset + a.size > b.offset:
                raise Diagnostic(
                    f"arguments '{a.name}' [{a.offset}, {a.offset + a.size}) and '{b.name}' "
                    f"[{b.offset}, {b.offset + b.size}) overlap", where)
        end = max((f.offset + f.size for f in fs), default=0)
        if size is None:
            size = -(-end // align) * align if align else end
        if end > size:
            raise Diagnostic(f"arguments end at byte {end} but the kernarg segment is {size} bytes", where)
        if align <= 0 or align & (align - 1):
            raise Diagnostic(f"kernarg alignment {align} is not a power of two", where)
        self.fields: tuple[ArgField, ...] = tuple(fs)
        self.size = int(size)
        self.align = int(align)
        self._explicit = tuple(f for f in self.fields if f.is_explicit)

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def from_metadata(cls, kmeta: Mapping[str, object], where: object = None) -> ArgLayout:
        """Layout from one kernel's metadata map (``amdhsa.kernels[i]``, keys with dots)."""
        where = where or f"kernel '{kmeta.get('.name', '?')}' metadata"
        fields: list[ArgField] = []
        args = kmeta.get(".args", []) or []
        if not isinstance(args, (list, tuple)):
            raise Diagnostic(f".args is {type(args).__name__}, not a list of argument maps", where)
        for i, a in enumerate(args):
            if not isinstance(a, Mapping):
                raise Diagnostic(f".args[{i}] is not a map", where)
            vk = str(a.get(".value_kind", ""))
            try:
                off, size = int(a[".offset"]), int(a[".size"])
            except (KeyError, TypeError, ValueError):
                raise Diagnostic(f".args[{i}] lacks an integer .offset/.size", where) from None
            name = str(a.get(".name") or (vk if vk.startswith("hidden_") else f"arg{i}"))
            tn = a.get(".type_name")
            common = dict(name=name, offset=off, size=size, value_kind=vk,
                          address_space=a.get(".address_space"),
                          access=a.get(".actual_access") or a.get(".access"),
                          is_const=bool(a.get(".is_const", False)),
                          type_name=str(tn) if tn is not None else None,
                          pointee_align=meta_int(a, ".pointee_align", None, f"{where}, .args[{i}]", 1))
            vt = a.get(".value_type")
            if vk == "global_buffer":
                fields.append(ArgField(kind="ptr", type=_pointee_type(common["type_name"], vt), **common))
            elif vk == "by_value":
                st = metadata_type(common["type_name"], vt)
                if st is not None and st.size != size:
                    st = None  # e.g. a struct typedef'd to a scalar name: keep it raw
                fields.append(ArgField(kind="value", type=st, **common))
            elif vk == "dynamic_shared_pointer":
                fields.append(ArgField(kind="lds", **common))
            elif vk in HIDDEN_KINDS:
                fields.append(ArgField(kind="hidden", **common))
            elif vk in _UNSUPPORTED_KINDS:
                raise Diagnostic(f"argument {i} ('{name}') has value kind '{vk}', which gcnforge "
                                 "cannot launch (no images, samplers, pipes or device queues)", where)
            else:
                raise Diagnostic(f"argument {i} ('{name}') has unknown value kind '{vk}'", where)
        size = meta_int(kmeta, ".kernarg_segment_size", None, where)
        align = meta_int(kmeta, ".kernarg_segment_align", 8, where, 1) or 8
        return cls(fields, size, align, where)

    @classmethod
    def slots16(cls, specs: Sequence[str]) -> ArgLayout:
        """The vendor 16-byte-slot convention: argument i occupies bytes [16*i, 16*i+16), its
        value at the start of the slot, zeros after it (a pointer + 8 bytes of padding, a
        32-bit scalar + 12). Each spec is ``name:type`` where type is ``ptr``, a typed
        pointer ``f32*`` (``f16x4*`` for vectors) optionally with a minimum element count
        ``f32*[m*k]`` (names of other arguments and integers), ``const`` before a pointer
        the kernel only reads (``const f32*``: read-only arrays accepted), or a scalar type
        (``u32``, ``i32``, ``f32``...)."""
        fields = []
        for i, spec in enumerate(specs):
            f = parse_field_spec(spec, offset=16 * i, where=f"slots16 argument {i} '{spec}'")
            if f.size > 16:
                raise Diagnostic(f"argument '{f.name}' is {f.size} bytes; a slot holds 16",
                                 f"slots16 argument {i}")
            fields.append(f)
        return cls(fields, 16 * len(fields), 8, "slots16 layout")

    # -- queries --------------------------------------------------------------------------
    def check_against(self, meta: ArgLayout, where: object) -> None:
        """A declared layout must not contradict a code object's metadata (a layout that does
        is a silent wrong launch): each explicit field lies inside one explicit metadata
        argument of its own, a pointer where the metadata has one, and a typed field has the
        type the metadata gives it, if any. Raw metadata blobs (untyped 16-byte slots) leave
        room for any field."""
        used: dict[str, str] = {}
        for f in self.explicit:
            m = next((a for a in meta.explicit if a.offset <= f.offset and f.offset + f.size <= a.offset + a.size),
                     None)
            if m is None or m.name in used:
                why = (f"it shares metadata argument '{m.name}' with '{used[m.name]}'" if m is not None else
                       "no argument of the metadata covers those bytes")
                raise Diagnostic(
                    f"the layout's argument '{f.name}' (bytes [{f.offset}, {f.offset + f.size})) contradicts the "
                    f"code object's metadata: {why}", where,
                    (f"the metadata describes: {meta.describe()}",
                     "a layout is for kernels whose metadata does not describe their arguments; "
                     "this one's can be launched without it"))
            used[m.name] = f.name
            typed = m.kind == "ptr" or m.type is not None
            if typed and (m.kind != f.kind or (f.type is not None and m.type is not None and f.type != m.type)):
                raise Diagnostic(
                    f"the layout's argument '{f.name}' ({f.kind} {f.type or 'untyped'}) contradicts the code "
                    f"object's metadata, which has '{m.name}' there as a {m.kind} {m.type or 'untyped'}", where)

    @property
    def explicit(self) -> tuple[ArgField, ...]:
        return self._explicit

    @property
    def hidden(self) -> tuple[ArgField, ...]:
        return tuple(f for f in self.fields if not f.is_explicit)

    def field(self, name: str) -> ArgField:
        for f in self.explicit:
            if f.name == name:
                return f
        raise KeyError(name)

    def describe(self) -> str:
        rows = [f"kernarg segment: {self.size} bytes, align {self.align}"]
        for f in sorted(self.fields, key=lambda f: f.offset):
            t = f.value_kind if f.kind == "hidden" else (
                f"ptr{'<' + str(f.type) + '>' if f.type else ''}" if f.kind == "ptr" else
                f"lds" if f.kind == "lds" else str(f.type or f"bytes[{f.size}]"))
            rows.append(f"  +{f.offset:<4} {f.size:>2}B  {f.name:<28} {t}")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"ArgLayout({', '.join(f.name for f in self.explicit)}; {self.size} bytes)"

    # -- packing --------------------------------------------------------------------------
    def pack(self, values: Mapping[str, object], dims: LaunchDims) -> bytes:
        """The kernarg segment for ``values`` (explicit argument name -> a device address
        (int) for pointers and LDS offsets, a number/array for values, bytes for raw values)
        and the hidden arguments of ``dims``. Every explicit argument must be present."""
        buf = bytearray(self.size)
        hv = hidden_values(dims) if len(self._explicit) != len(self.fields) else {}
        for f in self.fields:
            if f.kind == "hidden":
                data = int(hv[f.value_kind]).to_bytes(8, "little")[: f.size].ljust(f.size, b"\0")
            elif f.name not in values:
                raise Diagnostic(f"missing argument '{f.name}'")
            elif f.kind in ("ptr", "lds"):
                addr = int(values[f.name])  # type: ignore[arg-type]
                if not 0 <= addr < 1 << (8 * f.size):
                    raise Diagnostic(f"argument '{f.name}': address {addr:#x} does not fit {f.size} bytes")
                data = addr.to_bytes(f.size, "little")
            else:
                data = encode_value(values[f.name], f)
            buf[f.offset: f.offset + f.size] = data
        return bytes(buf)


def encode_value(value: object, f: ArgField) -> bytes:
    """Bytes of a by-value argument; raw (untyped) fields take bytes of exactly their size
    or an integer that fits."""
    if f.type is not None:
        data = encode_scalar(value, f.type, f.name)
        if len(data) > f.size:
            raise Diagnostic(f"argument '{f.name}': {f.type} is {len(data)} bytes, field is {f.size}")
        return data.ljust(f.size, b"\0")
    if isinstance(value, (bytes, bytearray, memoryview)) or (isinstance(value, np.ndarray) and value.dtype.kind == "V"):
        raw = bytes(value)
        if len(raw) != f.size:
            raise Diagnostic(f"argument '{f.name}': {len(raw)} bytes given, the argument is {f.size} bytes")
        return raw
    if isinstance(value, np.generic) and value.dtype.kind in "iuf" and value.dtype.itemsize == f.size:
        return value.astype(value.dtype.newbyteorder("<")).tobytes()  # a typed NumPy scalar says what it is
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v = int(value)
        if not -(1 << (8 * f.size - 1)) <= v < 1 << (8 * f.size):
            raise Diagnostic(f"argument '{f.name}': {v} does not fit in {f.size} bytes")
        return (v & ((1 << (8 * f.size)) - 1)).to_bytes(f.size, "little")
    raise Diagnostic(
        f"argument '{f.name}' has no known type ({f.type_name or 'untyped'}, {f.size} bytes): "
        f"pass a NumPy scalar of that size (e.g. np.float32(x)), an integer, or {f.size} bytes")


_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\*)?\s*(?:\[([^\]]*)\])?\s*$")


def parse_field_spec(spec: str, offset: int, where: object) -> ArgField:
    """``name:ptr`` / ``name:f32*`` / ``name:f32*[n]`` / ``name:u32`` at ``offset``."""
    m = _SPEC.match(spec)
    if not m:
        raise Diagnostic("expected 'name:type' (type: ptr, T*, T*[count] or a scalar type)", where)
    name, tname, star, count = m.groups()
    const = tname.startswith("const ")  # a pointer the kernel only reads: read-only arrays welcome
    if const:
        tname = tname[len("const "):].strip()
        if not (star or tname == "ptr"):
            raise Diagnostic("'const' only applies to pointers (const f32*, const ptr)", where)
    if count is not None and not (star or tname == "ptr"):
        raise Diagnostic("an element count '[...]' only applies to pointers", where)
    cnt: tuple[str | int, ...] = ()
    if count is not None:
        parts = [p.strip() for p in count.split("*")]
        if not all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\d+", p) for p in parts):
            raise Diagnostic(f"element count '{count}' must be a product of argument names and integers", where)
        cnt = tuple(int(p) if p.isdigit() else p for p in parts)
    if tname == "ptr" and not star:
        return ArgField(name, offset, POINTER_SIZE, "ptr", "global_buffer", None, cnt, is_const=const)
    st = require_type(tname, where)
    if star:
        return ArgField(name, offset, POINTER_SIZE, "ptr", "global_buffer", st, cnt, is_const=const)
    return ArgField(name, offset, st.size, "value", "by_value", st)


def _field_from_mapping(m: Mapping[str, object], where: object) -> ArgField:
    """``{"name": "n", "offset": 16, "type": "u32"}`` (size defaults to the type's) or
    ``{"name": "out", "offset": 0, "type": "f32*", "count": "n"}``, or a hidden argument
    ``{"offset": 64, "value_kind": "hidden_block_count_x"}``."""
    try:
        off = int(m["offset"])  # type: ignore[call-overload]
    except (KeyError, TypeError, ValueError):
        raise Diagnostic(f"field {dict(m)!r} needs an integer 'offset'", where) from None
    vk = m.get("value_kind")
    if vk:
        vk = str(vk)
        if vk not in HIDDEN_KINDS:
            raise Diagnostic(f"unknown hidden value kind '{vk}'", where)
        size = int(m.get("size", V5_HIDDEN.get(vk, (0, 8))[1]))  # type: ignore[call-overload]
        return ArgField(str(m.get("name", vk)), off, size, "hidden", vk)
    if "name" not in m or "type" not in m:
        raise Diagnostic(f"field {dict(m)!r} needs 'name' and 'type'", where)
    spec = f"{m['name']}:{m['type']}" + (f"[{m['count']}]" if m.get("count") is not None else "")
    f = parse_field_spec(spec, off, where)
    if "size" in m:
        size = int(m["size"])  # type: ignore[call-overload]
        if size < f.size:
            raise Diagnostic(f"argument '{f.name}': size {size} is smaller than its type ({f.size} bytes)", where)
        f = ArgField(f.name, f.offset, size, f.kind, f.value_kind, f.type, f.count, is_const=f.is_const)
    return f

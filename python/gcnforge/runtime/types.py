"""Scalar types of kernel arguments: the short names layouts use and the C/OpenCL type
names AMDGPU metadata carries in ``.type_name``.

A kernel argument is either a pointer (8 bytes, a device address) or a value of one of
these scalar types, possibly a short vector (``float4``) that is packed element by element.
The NumPy dtype is the one authority on width and byte order (little endian, as on the
GPU); nothing here converts numbers by hand.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

import numpy as np

from gcnforge.binary.metadata_schema import TYPE_NAMES
from gcnforge.diagnostics import Diagnostic

# bfloat16 has no NumPy dtype; it is carried as its 16-bit pattern (a uint16) and converted
# from float32 by truncating the low 16 bits after round-to-nearest-even.
SCALARS: dict[str, np.dtype] = {
    "i8": np.dtype("<i1"), "u8": np.dtype("<u1"),
    "i16": np.dtype("<i2"), "u16": np.dtype("<u2"),
    "i32": np.dtype("<i4"), "u32": np.dtype("<u4"),
    "i64": np.dtype("<i8"), "u64": np.dtype("<u8"),
    "f16": np.dtype("<f2"), "bf16": np.dtype("<u2"),
    "f32": np.dtype("<f4"), "f64": np.dtype("<f8"),
}

# OpenCL C / HIP spellings found in `.type_name` (clang prints the source spelling): the
# OpenCL names gcnforge writes too (`binary.metadata_schema.TYPE_NAMES`), then other spellings.
_C_NAMES: dict[str, str] = {
    **{c: t for t, c in TYPE_NAMES.items()},
    "signed char": "i8", "unsigned char": "u8", "bool": "u8", "_Bool": "u8",
    "unsigned short": "u16", "_Float16": "f16", "bfloat16": "bf16",
    "unsigned int": "u32", "unsigned": "u32",
    "unsigned long": "u64", "long long": "i64",
    "unsigned long long": "u64", "size_t": "u64", "ptrdiff_t": "i64",
    "int8_t": "i8", "uint8_t": "u8", "int16_t": "i16", "uint16_t": "u16",
    "int32_t": "i32", "uint32_t": "u32", "int64_t": "i64", "uint64_t": "u64",
}

# Aliases accepted in layout declarations ("n:uint32", "scale:float").
_ALIASES: dict[str, str] = {
    "int8": "i8", "uint8": "u8", "int16": "i16", "uint16": "u16", "int32": "i32", "uint32": "u32",
    "int64": "i64", "uint64": "u64", "float16": "f16", "float32": "f32", "float64": "f64",
    "bfloat16": "bf16", "half": "f16", "float": "f32", "double": "f64", "int": "i32", "uint": "u32",
}

_VECTOR = re.compile(r"^([a-z_ ]+?)(2|3|4|8|16)$")
_OWN_VECTOR = re.compile(r"^([a-z0-9]+)x(2|3|4|8|16)$")  # our own spelling, str(ScalarType): f16x4

# Element spellings seen in typedef'd vector names, beyond the C names: fp16, float16, f32...
_ELEMENT_ALIASES: dict[str, str] = {
    **{k: v for k, v in _ALIASES.items()}, **{k: k for k in SCALARS},
    "fp16": "f16", "fp32": "f32", "fp64": "f64", "bfloat": "bf16", "bhalf": "bf16",
    "_float16": "f16",
}
# A typedef'd vector name as kernels spell them: element, optional separator, lane count,
# optional suffix -- short4v, floatx4, half4_t, f16x4, bf16x8_t, fp32_4, float4_vec. The
# metadata keeps only the source spelling (clang 22 writes `.type_name: 'short4v*'` and no
# `.value_type`), so this is what "recognise" can mean for a typedef.
_TYPEDEF_VECTOR = re.compile(r"^(?:__)?([a-z_][a-z0-9_]*?)(?:_?x|_)?(2|3|4|8|16)(?:_t|_vec|vec|v|_)?$")
_TYPEDEF_SCALAR = re.compile(r"^(?:__)?([a-z_][a-z0-9_]*?)(?:_t|_)$")

# `.value_type` of code objects v2/v3 (LLVM 12 and older; deprecated since, accepted for
# compatibility by LLVM's metadata verifier): the element type of a scalar, vector or
# pointee, in lower case for v3 and capitalised for v2 ("F16"); "struct" for anything else.
_VALUE_TYPES = {"i8", "u8", "i16", "u16", "f16", "i32", "u32", "f32", "i64", "u64", "f64"}


@dataclass(frozen=True, slots=True)
class ScalarType:
    """A by-value argument type: element type name and vector length (1 for scalars)."""

    name: str  # key of SCALARS
    lanes: int = 1

    @property
    def dtype(self) -> np.dtype:
        return SCALARS[self.name]

    @property
    def size(self) -> int:
        # OpenCL 3-element vectors occupy the space of 4 (OpenCL C 3.0, 6.3.5).
        lanes = 4 if self.lanes == 3 else self.lanes
        return self.dtype.itemsize * lanes

    def __str__(self) -> str:
        return self.name if self.lanes == 1 else f"{self.name}x{self.lanes}"


def parse_type(text: str) -> ScalarType | None:
    """Our own short names (``u32``, ``f32``, ``bf16``...), their aliases, and C/OpenCL
    spellings including vectors (``uchar4``); None when unknown."""
    t = text.strip()
    key = _ALIASES.get(t, t)
    if key in SCALARS:
        return ScalarType(key)
    if t in _C_NAMES:
        return ScalarType(_C_NAMES[t])
    if (m := _VECTOR.match(t)) and m.group(1) in _C_NAMES:
        return ScalarType(_C_NAMES[m.group(1)], int(m.group(2)))
    if (m := _OWN_VECTOR.match(t)) and m.group(1) in SCALARS:
        return ScalarType(m.group(1), int(m.group(2)))
    return None


def _element(name: str) -> str | None:
    return _C_NAMES.get(name) or _ELEMENT_ALIASES.get(name)


def metadata_type(type_name: str | None, value_type: str | None = None) -> ScalarType | None:
    """The type a metadata argument entry describes (a by-value argument's type, or with the
    trailing ``*`` removed by the caller, a pointer's pointee), however it is spelled: C and
    OpenCL names (``uint``, ``half4``), typedef'd vectors named after their element
    (``short4v``, ``floatx4``, ``half4_t``, ``bf16x8``), and the ``.value_type`` element of
    old code objects. None when neither says: a typedef such as ``myint4`` or ``pair``
    carries nothing the metadata lets anyone resolve."""
    vt = str(value_type).strip().lower() if value_type is not None else ""
    elem_vt = vt if vt in _VALUE_TYPES else None
    st = None
    if type_name:
        t = " ".join(w for w in str(type_name).split() if w not in ("const", "volatile", "restrict", "__restrict"))
        st = parse_type(t)
        if st is None:
            low = t.lower()
            if (m := _TYPEDEF_VECTOR.match(low)) and (e := _element(m.group(1))):
                st = ScalarType(e, int(m.group(2)))
            elif (m := _TYPEDEF_SCALAR.match(low)) and (e := _element(m.group(1))):
                st = ScalarType(e)
    if elem_vt is None:
        return st
    a, b = SCALARS[elem_vt], st.dtype if st is not None else None
    if b is not None and a.itemsize == b.itemsize and (a.kind == "f") == (b.kind == "f") and st.name != "bf16":
        return ScalarType(elem_vt, st.lanes)  # the compiler's element, the name's lane count
    return ScalarType(elem_vt)


def require_type(text: str, where: object) -> ScalarType:
    st = parse_type(text)
    if st is None:
        raise Diagnostic(
            f"unknown argument type '{text}'", where,
            (f"known types: ptr, {', '.join(SCALARS)} (and C names such as uint, float, uchar4)",),
        )
    return st


def float_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), round to nearest even; NaN stays NaN."""
    f = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounded = (f + np.uint32(0x7FFF) + ((f >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    nan = (f & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    out = np.where(nan, (f >> np.uint32(16)) | np.uint32(0x40), rounded)
    return out.astype(np.uint16)


# struct formats and integer ranges for the fast path of encode_scalar (plain Python
# numbers, the common case on every launch); the NumPy path below is the reference.
_STRUCT = {"i8": "<b", "u8": "<B", "i16": "<h", "u16": "<H", "i32": "<i", "u32": "<I",
           "i64": "<q", "u64": "<Q", "f16": "<e", "f32": "<f", "f64": "<d"}
_RANGE = {n: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for n, d in SCALARS.items() if d.kind in "iu" and n != "bf16"}


def encode_scalar(value: object, st: ScalarType, arg: str) -> bytes:
    """The little-endian bytes of ``value`` as type ``st``. Integers must fit (no silent
    wrap-around), floats are converted as C would (round to nearest), vectors need exactly
    ``lanes`` elements. Raises a Diagnostic naming argument ``arg``."""
    if st.lanes == 1 and st.name != "bf16" and type(value) in (int, float):
        if st.name in _RANGE:
            if type(value) is int:
                lo, hi = _RANGE[st.name]
                if lo <= value <= hi:
                    return struct.pack(_STRUCT[st.name], value)
        else:
            try:
                return struct.pack(_STRUCT[st.name], value)
            except (OverflowError, struct.error):
                pass  # out of range for the float type: NumPy rounds to infinity, as C does
    vals = np.asarray(value)
    if vals.dtype.kind in "OUSV":
        raise Diagnostic(f"argument '{arg}': expected a {st} value, got {type(value).__name__}")
    flat = vals.reshape(-1)
    if flat.size != st.lanes:
        raise Diagnostic(
            f"argument '{arg}': expected {st.lanes} element(s) of {st.name}, got {flat.size}"
        )
    if st.name == "bf16":
        with np.errstate(over="ignore"):
            out = float_to_bf16_bits(flat.astype(np.float64).astype(np.float32))
    elif st.dtype.kind in "iu":
        if flat.dtype.kind == "f":
            if not np.all(np.isfinite(flat)) or np.any(flat != np.round(flat)):
                raise Diagnostic(f"argument '{arg}': {value!r} is not an integer but the type is {st}")
        info = np.iinfo(st.dtype)
        as_int = [int(x) for x in flat.tolist()]
        if any(x < info.min or x > info.max for x in as_int):
            raise Diagnostic(
                f"argument '{arg}': {value!r} does not fit in {st} (range {info.min}..{info.max})"
            )
        out = np.array(as_int, dtype=st.dtype)
    else:
        if flat.dtype.kind not in "biuf":
            raise Diagnostic(f"argument '{arg}': expected a number for {st}, got {vals.dtype}")
        with np.errstate(over="ignore"):  # out-of-range values become +-inf, as in C
            out = flat.astype(st.dtype)
    data = out.tobytes()
    return data + bytes(st.size - len(data))

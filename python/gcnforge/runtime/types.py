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

# OpenCL C / HIP spellings found in `.type_name` (clang prints the source spelling).
_C_NAMES: dict[str, str] = {
    "char": "i8", "signed char": "i8", "uchar": "u8", "unsigned char": "u8", "bool": "u8", "_Bool": "u8",
    "short": "i16", "ushort": "u16", "unsigned short": "u16", "half": "f16", "_Float16": "f16",
    "__bf16": "bf16", "bfloat16": "bf16",
    "int": "i32", "uint": "u32", "unsigned int": "u32", "unsigned": "u32",
    "long": "i64", "ulong": "u64", "unsigned long": "u64", "long long": "i64",
    "unsigned long long": "u64", "size_t": "u64", "ptrdiff_t": "i64",
    "int8_t": "i8", "uint8_t": "u8", "int16_t": "i16", "uint16_t": "u16",
    "int32_t": "i32", "uint32_t": "u32", "int64_t": "i64", "uint64_t": "u64",
    "float": "f32", "double": "f64",
}

# Aliases accepted in layout declarations ("n:uint32", "scale:float").
_ALIASES: dict[str, str] = {
    "int8": "i8", "uint8": "u8", "int16": "i16", "uint16": "u16", "int32": "i32", "uint32": "u32",
    "int64": "i64", "uint64": "u64", "float16": "f16", "float32": "f32", "float64": "f64",
    "bfloat16": "bf16", "half": "f16", "float": "f32", "double": "f64", "int": "i32", "uint": "u32",
}

_VECTOR = re.compile(r"^([a-z_ ]+?)(2|3|4|8|16)$")


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
    return None


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

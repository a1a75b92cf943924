"""Binding Python call arguments to a layout: validation, conversion, and staging of NumPy
arrays into device memory.

Everything here runs before a launch so that every mistake a caller can make (too many
arguments, an array where a scalar belongs, a float64 array for a ``float*``, a buffer
smaller than the layout says) is a Diagnostic naming the argument, never a wrong result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.backend import Backend
from gcnforge.runtime.buffers import DeviceBuffer
from gcnforge.runtime.kernargs import ArgField, ArgLayout, meta_dims, meta_int
from gcnforge.runtime.types import SCALARS


@dataclass
class Bound:
    """The result of binding: values for ``ArgLayout.pack``, the arrays to copy back after
    the launch, the temporaries to free, and the dynamic LDS bytes the LDS arguments need."""

    values: dict[str, object] = field(default_factory=dict)
    copy_back: list[tuple[DeviceBuffer, np.ndarray]] = field(default_factory=list)
    temporaries: list[DeviceBuffer] = field(default_factory=list)
    dynamic_lds: int = 0

    def finish(self, ok: bool) -> None:
        """Copy results back into the caller's arrays (only after a successful launch) and
        free the temporaries."""
        try:
            if ok:
                for buf, arr in self.copy_back:
                    res = buf.numpy()
                    if arr.flags.c_contiguous:
                        arr.reshape(-1).view(np.uint8)[:] = res.reshape(-1).view(np.uint8)
                    else:
                        arr[...] = res.reshape(arr.shape)
        finally:
            for b in self.temporaries:
                b.free()


def name_args(layout: ArgLayout, args: Sequence[object], kwargs: Mapping[str, object], kernel: str) -> dict[str, object]:
    """Positional arguments in layout order plus keywords -> {name: value}."""
    explicit = layout.explicit
    names = [f.name for f in explicit]
    if len(args) > len(explicit):
        raise Diagnostic(f"kernel '{kernel}' takes {len(explicit)} argument(s) ({', '.join(names)}), "
                         f"{len(args)} given")
    out = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise Diagnostic(f"kernel '{kernel}' has no argument '{k}'", notes=(f"arguments: {', '.join(names)}",))
        if k in out:
            raise Diagnostic(f"argument '{k}' of kernel '{kernel}' given twice (by position and by keyword)")
        out[k] = v
    missing = [n for n in names if n not in out]
    if missing:
        raise Diagnostic(f"kernel '{kernel}': missing argument(s) {', '.join(repr(m) for m in missing)}",
                         notes=(f"arguments in order: {', '.join(names)}",))
    return out


def _count(f: ArgField, named: Mapping[str, object]) -> int | None:
    """Minimum element count a pointer's layout declares (a product of integers and scalar
    arguments), or None."""
    if not f.count:
        return None
    n = 1
    for term in f.count:
        if isinstance(term, int):
            n *= term
            continue
        if term not in named:
            raise Diagnostic(f"argument '{f.name}': its element count names '{term}', which is not an argument")
        v = named[term]
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise Diagnostic(f"argument '{f.name}': element count term '{term}' must be an integer, got {v!r}")
        n *= int(v)
    return n


def bind(layout: ArgLayout, named: Mapping[str, object], backend: Backend, static_lds: int = 0) -> Bound:
    b = Bound()
    lds_cursor = static_lds
    try:
        for f in layout.explicit:
            v = named[f.name]
            if f.kind == "ptr":
                b.values[f.name] = _bind_pointer(f, v, named, backend, b)
            elif f.kind == "lds":
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or int(v) < 0:
                    raise Diagnostic(f"argument '{f.name}' is a __local pointer: pass its size in bytes (an int), got {v!r}")
                align = int(f.pointee_align or 4)
                lds_cursor = -(-lds_cursor // align) * align
                b.values[f.name] = lds_cursor
                lds_cursor += int(v)
            else:
                if isinstance(v, DeviceBuffer) or (isinstance(v, np.ndarray) and v.ndim > 0 and (f.type is None or f.type.lanes == 1)):
                    what = f"a {f.type}" if f.type else f"an untyped {f.size}-byte"
                    hint = ("pointers are passed as NumPy arrays or device buffers; scalars as numbers"
                            if f.type else "the metadata does not say what this argument is: declare a layout "
                            "(module.kernel(name, layout=ArgLayout.slots16([...])))")
                    raise Diagnostic(f"argument '{f.name}' takes {what} value, got an array/buffer", notes=(hint,))
                b.values[f.name] = v
        b.dynamic_lds = lds_cursor - static_lds
        return b
    except BaseException:
        b.finish(ok=False)
        raise


def _bind_pointer(f: ArgField, v: object, named: Mapping[str, object], backend: Backend, b: Bound) -> int:
    if v is None:
        return 0
    if isinstance(v, DeviceBuffer):
        if v.backend is not backend:
            raise Diagnostic(f"argument '{f.name}': buffer lives on the {v.backend.name} device, "
                             f"the launch is on {backend.name}")
        nbytes, itemsize, elems, dt = v.nbytes, v.dtype.itemsize, v.size, v.dtype
    elif isinstance(v, np.ndarray):
        if v.dtype.hasobject:
            raise Diagnostic(f"argument '{f.name}': an array of Python objects cannot be copied to the device")
        if v.dtype.byteorder == ">" or any(v.dtype[n].byteorder == ">" for n in (v.dtype.names or ())):
            raise Diagnostic(f"argument '{f.name}': big-endian dtype {v.dtype}; the GPU is little-endian",
                             notes=("convert with arr.astype(arr.dtype.newbyteorder('<'))",))
        nbytes, itemsize, elems, dt = v.nbytes, v.dtype.itemsize, v.size, v.dtype
    elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)  # a raw device address the caller manages
    else:
        raise Diagnostic(f"argument '{f.name}' is a pointer: pass a NumPy array or a device buffer, "
                         f"got {type(v).__name__}")
    units = pointee_units(f, dt, elems)
    need = _count(f, named)
    if need is not None and units < need:
        terms = "*".join(str(t) for t in f.count)
        raise Diagnostic(f"argument '{f.name}': buffer has {units} element(s), the layout needs "
                         f"{terms} = {need}")
    if isinstance(v, DeviceBuffer):
        _label(backend, v.addr, f.name)
        return v.addr
    arr = v  # a host array: stage it
    buf = DeviceBuffer(backend, arr.shape, arr.dtype)
    _label(backend, buf.addr, f.name)
    b.temporaries.append(buf)
    if nbytes:
        backend.copy_to(buf.addr, np.ascontiguousarray(arr).tobytes())
    if may_write(f):
        if not arr.flags.writeable:
            raise Diagnostic(
                f"argument '{f.name}': the array is read-only, but the kernel may write through "
                f"this pointer ({_why_writable(f)}), and the results would be lost",
                notes=("pass a writeable array (arr.copy()); if the kernel only reads it, declare the "
                       "parameter const (or 'const T*' in a layout)",))
        b.copy_back.append((buf, arr))
    return buf.addr


def _label(backend: Backend, addr: int, name: str) -> None:
    """Name the allocation after its argument where the backend keeps names (the emulator's
    sanitizer and faults say which array an access went past)."""
    label = getattr(backend, "label", None)
    if label is not None:
        label(addr, name)


def may_write(f: ArgField) -> bool:
    """Whether the kernel may store through pointer ``f``, as far as the metadata says: not if
    the pointee is const, the access qualifier (``.actual_access``, which the compiler
    proves, else ``.access``) is read_only, or it points to the constant address space."""
    return not (f.is_const or f.access == "read_only" or f.address_space == "constant")


def _why_writable(f: ArgField) -> str:
    if f.access:
        return f"access {f.access}"
    return f"'{f.type_name}', not const" if f.type_name else "not declared const"


_FLOATS = {"f16", "f32", "f64"}


def _holds_elements(dt: np.dtype, elem: str) -> bool:
    """Whether an array of ``dt`` holds elements of scalar type ``elem`` (same width; integers
    of either signedness, since C lets both views of the bits alias; bf16 as its 16-bit
    patterns or a 2-byte record dtype such as ml_dtypes.bfloat16)."""
    size = SCALARS[elem].itemsize
    if dt.itemsize != size:
        return False
    if elem == "bf16":
        return dt.kind in "iu" or (dt.kind == "V" and dt.names is None)
    if elem in _FLOATS:
        return dt.kind == "f"
    return dt.kind in "iu" or (dt.kind == "b" and size == 1)


def pointee_units(f: ArgField, dt: np.dtype, elems: int) -> int:
    """How many values of the pointee type an array of ``elems`` items of ``dt`` holds; a
    Diagnostic naming the argument when the metadata's pointee type says the array is the
    wrong kind (an int32 array for ``float*``) or holds a partial vector. An array of the
    vector's element type counts whole vectors (a float16 array of 4n items for ``half4*``);
    a record dtype (np.void) as wide as the pointee is taken as it is."""
    t = f.type
    if t is None:
        return elems
    lanes = 4 if t.lanes == 3 else t.lanes  # OpenCL 3-vectors are stored as 4
    spelled = (f.type_name or "").rstrip().rstrip("*").strip()
    what = f"{t} ('{spelled}')" if spelled and spelled != str(t) else str(t)
    if _holds_elements(dt, t.name):
        if elems % lanes:
            stored = " (a 3-vector is stored as 4)" if t.lanes == 3 else ""
            raise Diagnostic(f"argument '{f.name}' points to {what}: the {dt} array has {elems} element(s), "
                             f"not a whole number of {lanes}-element vectors{stored}")
        return elems // lanes
    if dt.kind == "V" and dt.itemsize == t.size:
        return elems
    want = ("float16" if t.name == "f16" else "bfloat16 bit patterns (uint16)" if t.name == "bf16"
            else str(SCALARS[t.name]))
    raise Diagnostic(f"argument '{f.name}' points to {what} but the array has dtype {dt} "
                     f"({dt.itemsize}-byte elements)",
                     notes=(f"pass an array of {want}" + (f" ({lanes} per vector)" if lanes > 1 else ""),))


# HSA dispatch packets count the grid in work-items in 32-bit fields (HSA Platform System
# Architecture Specification 1.2, hsa_kernel_dispatch_packet_t grid_size_x/y/z: uint32_t),
# so blocks * block size must fit in each dimension.
_GRID_WORK_ITEMS = (1 << 32) - 1


def normalize_dims(d: object, what: str, max_workgroup: int | None = None) -> tuple[int, int, int]:
    """``grid``/``block`` as 3 positive ints, from an int or any sequence of 1 to 3 ints (a
    tuple, a list, a range, a 1-D array; missing dimensions are 1). ``max_workgroup``: the
    target's limit on work-items per workgroup (for ``block``)."""
    if isinstance(d, (int, np.integer)):
        t: tuple = (d,)
    elif (isinstance(d, Sequence) and not isinstance(d, (str, bytes, bytearray))) or \
            (isinstance(d, np.ndarray) and d.ndim == 1):
        t = tuple(d)
    else:
        t = ()
    if not 1 <= len(t) <= 3 or not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in t):
        raise Diagnostic(f"{what} must be an int or a sequence (tuple, list, 1-D array) of 1 to 3 ints, got {d!r}")
    t = tuple(int(x) for x in t) + (1,) * (3 - len(t))
    if any(x < 1 for x in t):
        raise Diagnostic(f"{what} {t} has a dimension below 1")
    if max_workgroup is not None and math.prod(t) > max_workgroup:
        raise Diagnostic(f"{what} {t} has {math.prod(t)} work-items; the target allows at most {max_workgroup}")
    if what == "grid" and any(x > _GRID_WORK_ITEMS for x in t):
        raise Diagnostic(f"grid {t} exceeds 2^32 - 1 workgroups in a dimension")
    return t  # type: ignore[return-value]


def check_dims(kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], metadata: Mapping) -> None:
    """What a kernel's metadata asks of a launch: ``block`` equal to ``.reqd_workgroup_size``,
    at most ``.max_flat_workgroup_size`` work-items (the code was compiled for no more: its
    registers and barriers assume it), and a grid of at most 2^32 - 1 work-items per
    dimension."""
    where = f"kernel '{kernel}' metadata"
    reqd = meta_dims(metadata, ".reqd_workgroup_size", where)
    if reqd and reqd != block:
        raise Diagnostic(f"kernel '{kernel}' was compiled for block={reqd} "
                         f"(.reqd_workgroup_size); the launch asks for block={block}")
    mx = meta_int(metadata, ".max_flat_workgroup_size", None, where, 1)
    if mx and math.prod(block) > mx:
        raise Diagnostic(f"kernel '{kernel}': block={block} has {math.prod(block)} work-items, more than "
                         f"its .max_flat_workgroup_size {mx}")
    for axis, g, b in zip("xyz", grid, block):
        if g * b > _GRID_WORK_ITEMS:
            raise Diagnostic(f"kernel '{kernel}': grid {g} x block {b} = {g * b} work-items in {axis}; "
                             "a dispatch holds at most 2^32 - 1 per dimension")

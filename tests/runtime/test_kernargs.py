"""Kernarg packing against independent packers (struct, NumPy structured dtypes)."""

import struct

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.kernargs import ArgLayout, LaunchDims, V5_HIDDEN, hidden_values

DIMS = LaunchDims((3, 2, 1), (256, 1, 1))


def test_slots16_matches_packed_struct_convention():
    # The convention as the vendor C++ declares it: void* + p2 (8 bytes), uint + p3 (12 bytes),
    # float + p3, in a __attribute__((packed)) struct.
    lay = ArgLayout.slots16(["out:ptr", "in:ptr", "n:u32", "scale:f32", "k:i32"])
    data = lay.pack({"out": 0x7F0000001000, "in": 0x7F0000002000, "n": 4096, "scale": 0.5, "k": -3}, DIMS)
    ref = struct.pack("<Q8xQ8xI12xf12xi12x", 0x7F0000001000, 0x7F0000002000, 4096, 0.5, -3)
    assert data == ref
    assert lay.size == 80 and len(data) == 80
    assert [f.offset for f in lay.explicit] == [0, 16, 32, 48, 64]


def test_slots16_vendor_topk_layout():
    # The top-k softmax argument block from the seed guide: 3 pointers + 5 uints = 128 bytes.
    names = ["ptr_T:ptr", "ptr_W:ptr", "ptr_A:ptr", "batch:u32", "expert:u32", "topk:u32",
             "renormalize:u32", "out_stride:u32"]
    lay = ArgLayout.slots16(names)
    vals = dict(ptr_T=0x10, ptr_W=0x20, ptr_A=0x30, batch=64, expert=128, topk=4, renormalize=1, out_stride=16)
    rec = np.zeros((), dtype=np.dtype({"names": list(vals), "formats": ["<u8"] * 3 + ["<u4"] * 5,
                                       "offsets": [16 * i for i in range(8)], "itemsize": 128}))
    for k, v in vals.items():
        rec[k] = v
    assert lay.pack(vals, DIMS) == rec.tobytes()
    assert lay.size == 128


def test_general_layout_matches_numpy_structured_dtype():
    fields = [
        {"name": "c", "offset": 0, "type": "f32*"},
        {"name": "alpha", "offset": 8, "type": "f32"},
        {"name": "m", "offset": 12, "type": "u16"},
        {"name": "beta", "offset": 16, "type": "f64"},
        {"name": "flags", "offset": 24, "type": "u8"},
        {"name": "h", "offset": 26, "type": "f16"},
        {"name": "q", "offset": 32, "type": "i64"},
    ]
    lay = ArgLayout(fields)
    vals = dict(c=0xDEADBEEF00, alpha=1.25, m=65535, beta=-2.5e100, flags=7, h=0.333, q=-(2**40))
    dt = np.dtype({"names": [f["name"] for f in fields],
                   "formats": ["<u8", "<f4", "<u2", "<f8", "u1", "<f2", "<i8"],
                   "offsets": [f["offset"] for f in fields], "itemsize": 40})
    rec = np.zeros((), dtype=dt)
    for k, v in vals.items():
        rec[k] = v
    assert lay.size == 40
    assert lay.pack(vals, DIMS) == rec.tobytes()


def test_vector_and_bf16_values():
    lay = ArgLayout([{"name": "v", "offset": 0, "type": "uchar4"}, {"name": "b", "offset": 4, "type": "bf16"},
                     {"name": "f", "offset": 16, "type": "float4"}])
    data = lay.pack({"v": [1, 2, 3, 255], "b": 1.0, "f": np.arange(4, dtype=np.float32)}, DIMS)
    assert data[:4] == bytes([1, 2, 3, 255])
    assert data[4:6] == struct.pack("<H", 0x3F80)  # bf16(1.0) = top half of f32 0x3f800000
    assert data[16:32] == np.arange(4, dtype="<f4").tobytes()


def test_hidden_args_packed_at_metadata_offsets():
    meta = {".name": "k", ".kernarg_segment_size": 272, ".kernarg_segment_align": 8, ".args": [
        {".offset": 0, ".size": 8, ".value_kind": "global_buffer", ".address_space": "global", ".type_name": "float*"},
        {".offset": 8, ".size": 4, ".value_kind": "by_value", ".type_name": "uint"},
    ] + [{".offset": 16 + off, ".size": size, ".value_kind": kind} for kind, (off, size) in V5_HIDDEN.items()]}
    lay = ArgLayout.from_metadata(meta)
    dims = LaunchDims((5, 6, 7), (64, 2, 1), dynamic_lds=1024, pointers={"hidden_hostcall_buffer": 0xABC0})
    data = lay.pack({"arg0": 0x1000, "arg1": 9}, dims)
    h = data[16:]
    assert struct.unpack_from("<III", h, 0) == (5, 6, 7)
    assert struct.unpack_from("<HHH", h, 12) == (64, 2, 1)
    assert struct.unpack_from("<HHH", h, 18) == (0, 0, 0)
    assert struct.unpack_from("<QQQ", h, 40) == (0, 0, 0)
    assert struct.unpack_from("<H", h, 64) == (3,)
    assert struct.unpack_from("<Q", h, 80) == (0xABC0,)
    assert struct.unpack_from("<Q", h, 72) == (0,)
    assert struct.unpack_from("<I", h, 120) == (1024,)
    assert len(data) == 272


def test_hidden_values_cover_every_kind():
    v = hidden_values(DIMS)
    assert set(V5_HIDDEN) | {"hidden_none"} <= set(v)


@pytest.mark.parametrize("fields,msg", [
    ([{"name": "a", "offset": 0, "type": "ptr"}, {"name": "b", "offset": 4, "type": "u32"}], "overlap"),
    ([{"name": "a", "offset": 0, "type": "ptr"}, {"name": "a", "offset": 8, "type": "u32"}], "declared twice"),
    ([{"name": "a", "offset": 0, "type": "u33"}], "unknown argument type 'u33'"),
    ([{"name": "a", "type": "u32"}], "offset"),
    ([{"name": "a", "offset": 0, "type": "u32[4]"}], "only applies to pointers"),
])
def test_bad_layouts(fields, msg):
    with pytest.raises(Diagnostic, match=msg):
        ArgLayout(fields)


def test_bad_slot_spec_names_the_argument():
    with pytest.raises(Diagnostic) as e:
        ArgLayout.slots16(["out:ptr", "n u32"])
    assert "slots16 argument 1 'n u32'" in str(e.value)


@pytest.mark.parametrize("val,msg", [(2**32, "does not fit in u32"), (-1, "does not fit in u32"),
                                      (1.5, "not an integer"), ("7", "expected a u32 value")])
def test_scalar_conversion_errors_name_the_argument(val, msg):
    lay = ArgLayout.slots16(["out:ptr", "n:u32"])
    with pytest.raises(Diagnostic, match=msg) as e:
        lay.pack({"out": 0, "n": val}, DIMS)
    assert "'n'" in str(e.value)


def test_missing_value_is_reported():
    with pytest.raises(Diagnostic, match="missing argument 'n'"):
        ArgLayout.slots16(["out:ptr", "n:u32"]).pack({"out": 0}, DIMS)


def test_unsupported_value_kind():
    with pytest.raises(Diagnostic, match="image"):
        ArgLayout.from_metadata({".name": "k", ".args": [{".offset": 0, ".size": 8, ".value_kind": "image"}]})


def test_describe_lists_fields():
    text = ArgLayout.slots16(["out:f32*[n]", "n:u32"]).describe()
    assert "+0" in text and "ptr<f32>" in text and "+16" in text and "u32" in text


@pytest.mark.parametrize("t", ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "f64"])
@pytest.mark.parametrize("v", [0, 1, -1, 127, 255, 65535, -32768, 2**31 - 1, 2**32 - 1, 2**63 - 1, -(2**63),
                               0.5, -2.75, 1e10, 3.4e38, 1e300])
def test_fast_scalar_path_agrees_with_numpy(t, v):
    from gcnforge.runtime.types import ScalarType, encode_scalar

    st = ScalarType(t)
    try:
        fast = encode_scalar(v, st, "x")
    except Diagnostic:
        fast = None
    try:  # the NumPy reference path (a 0-d array never takes the fast path)
        ref = encode_scalar(np.asarray(v), st, "x")
    except Diagnostic:
        ref = None
    assert fast == ref


def test_untyped_values_take_numpy_scalars_ints_or_bytes():
    lay = ArgLayout([{"offset": 0, "name": "a", "type": "u32"}])  # typed, for contrast
    raw = ArgLayout.from_metadata({".args": [{".offset": 0, ".size": 4, ".value_kind": "by_value", ".name": "a"}],
                                   ".kernarg_segment_size": 8})
    assert raw.pack({"a": np.float32(1.5)}, DIMS)[:4] == struct.pack("<f", 1.5)
    assert raw.pack({"a": -2}, DIMS)[:4] == struct.pack("<i", -2)
    assert raw.pack({"a": b"\x01\x02\x03\x04"}, DIMS)[:4] == b"\x01\x02\x03\x04"
    with pytest.raises(Diagnostic, match=r"pass a NumPy scalar of that size \(e.g. np.float32"):
        raw.pack({"a": 1.5}, DIMS)  # a Python float has no width: refuse to guess
    with pytest.raises(Diagnostic, match="3 bytes given"):
        raw.pack({"a": b"abc"}, DIMS)
    assert lay.size == 8

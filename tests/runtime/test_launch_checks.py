"""Launch checks against clang-built kernels (clang 22 writes the metadata these checks read:
pointee type names, access qualifiers, address spaces, work-group sizes). Vector pointers
run on the emulator and are compared with NumPy; refusals are checked before anything is
launched."""

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.kernargs import ArgLayout
from gcnforge.testing import require_llvm

from .helpers import RecordingBackend, compile_cl, fake_co, kernel_meta, require_emulator

SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef short short4v __attribute__((ext_vector_type(4)));
typedef float floatx4 __attribute__((ext_vector_type(4)));
typedef int myint4 __attribute__((ext_vector_type(4)));
typedef struct { float a, b; } pair;
#define TID (__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x())
__kernel void vec(__global half4* h, __global float4* f, __global short4v* s, __global float3* f3,
                  __global floatx4* fx, __global myint4* mi, __global pair* p, half4 hv, short4v sv) {
  uint i = TID;
  h[i] = h[i] * (half)2 + hv; f[i] = f[i] + (float4)(1, 2, 3, 4); s[i] = s[i] + sv;
  f3[i] = f3[i] * 3; fx[i] = fx[i] * 2; mi[i] += 1; p[i].a = p[i].b;
}
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void reqd(__global float* o) { o[TID] = 1; }
__kernel void dflt(__global float* o) { o[TID] = 1; }
__kernel void access(__global float* out, __global const float* c, __global float* restrict r,
                     __constant float* k, __global float* plain) {
  uint i = TID; out[i] = c[i] + r[i] + k[i] + plain[i];
}
__kernel void typed(__global float* f, __global int* n, __global uint* u, __global uchar* b, __global double* d) {
  uint i = TID; f[i] = n[i] + u[i] + b[i] + d[i];
}
"""


@pytest.fixture(scope="module")
def co(tmp_path_factory):
    tools = require_llvm("clang", "ld.lld")
    return compile_cl(tmp_path_factory.mktemp("launch"), SOURCE, tools, "checks")


@pytest.fixture(scope="module")
def mod(co):
    return rt.load(co)


def _no_launch(mod, kernel, *args, **kw):
    """Call expecting a Diagnostic; nothing may be launched or left allocated."""
    dev = RecordingBackend()
    with pytest.raises(Diagnostic) as e:
        mod[kernel](*args, device=dev, **kw)
    assert dev.launches == [] and dev.mem == {}
    return str(e.value)


# -- vector-typed pointers (issue 19.2) ------------------------------------------------


def test_vector_pointee_types_follow_clang_type_names(co, mod):
    meta = kernel_meta(co, "vec")  # read without gcnforge.binary: what clang wrote
    names = [a.get(".type_name") for a in meta[".args"][:9]]
    assert names == ["half4*", "float4*", "short4v*", "float3*", "floatx4*", "myint4*", "pair*", "half4", "short4v"]
    types = [str(f.type) if f.type else None for f in mod["vec"].layout.explicit]
    # typedef'd vectors named after their element are recognised; 'myint4' and 'pair' say nothing
    assert types == ["f16x4", "f32x4", "i16x4", "f32x3", "f32x4", None, None, "f16x4", "i16x4"]


def test_vector_pointers_take_arrays_of_their_element_type():
    require_llvm("clang", "ld.lld")
    device = require_emulator()
    import tempfile
    from pathlib import Path

    n = 128  # two workgroups of 64, one vector per work-item
    rng = np.random.default_rng(7)
    h = rng.integers(-50, 50, 4 * n).astype(np.float16)
    f = rng.standard_normal((n, 4)).astype(np.float32)
    s = rng.integers(-1000, 1000, 4 * n).astype(np.int16)
    f3 = rng.standard_normal(4 * n).astype(np.float32)
    fx = rng.standard_normal(4 * n).astype(np.float32)
    mi = rng.integers(-9, 9, (n, 4)).astype(np.int32)
    p = rng.standard_normal(2 * n).astype(np.float32)
    want = dict(h=h * np.float16(2) + np.tile(np.array([1, 2, 3, 4], np.float16), n),
                f=f + np.array([1, 2, 3, 4], np.float32), s=s + np.tile(np.array([5, 6, 7, -8], np.int16), n),
                fx=fx * 2, mi=mi + 1)
    f3_want = f3.reshape(n, 4).copy()
    f3_want[:, :3] *= 3  # a float3 store writes x, y, z of its 16-byte slot
    p_want = p.reshape(n, 2).copy()
    p_want[:, 0] = p_want[:, 1]
    with tempfile.TemporaryDirectory() as d:
        k = rt.load(compile_cl(Path(d), SOURCE, require_llvm("clang", "ld.lld"), "vec"))["vec"]
        k(h, f, s, f3, fx, mi, p.view("V8"), [1, 2, 3, 4], [5, 6, 7, -8], grid=2, block=64, device=device)
    np.testing.assert_array_equal(h, want["h"])
    np.testing.assert_array_equal(f, want["f"])
    np.testing.assert_array_equal(s, want["s"])
    np.testing.assert_array_equal(f3.reshape(n, 4), f3_want)
    np.testing.assert_array_equal(fx, want["fx"])
    np.testing.assert_array_equal(mi, want["mi"])
    np.testing.assert_array_equal(p.reshape(n, 2), p_want)


def _vec_args(**over):
    n = 64
    a = dict(arg0=np.zeros(4 * n, np.float16), arg1=np.zeros(4 * n, np.float32), arg2=np.zeros(4 * n, np.int16),
             arg3=np.zeros(4 * n, np.float32), arg4=np.zeros(4 * n, np.float32), arg5=np.zeros(4 * n, np.int32),
             arg6=np.zeros(n, "V8"), arg7=[0, 0, 0, 0], arg8=[0, 0, 0, 0])
    a.update(over)
    return a


@pytest.mark.parametrize("over,msg", [
    (dict(arg0=np.zeros(256, np.float32)), "argument 'arg0' points to f16x4 ('half4') but the array has dtype float32"),
    (dict(arg0=np.zeros(6, np.float16)), "argument 'arg0' points to f16x4 ('half4'): the float16 array has 6 element(s), "
                                         "not a whole number of 4-element vectors"),
    (dict(arg1=np.zeros(256, np.int32)), "argument 'arg1' points to f32x4 ('float4') but the array has dtype int32"),
    (dict(arg2=np.zeros(256, np.float16)), "argument 'arg2' points to i16x4 ('short4v') but the array has dtype float16"),
    (dict(arg3=np.zeros(6, np.float32)), "argument 'arg3' points to f32x3 ('float3'): the float32 array has 6 element(s), "
                                         "not a whole number of 4-element vectors (a 3-vector is stored as 4)"),
    (dict(arg4=np.zeros(10, np.float32)), "argument 'arg4' points to f32x4 ('floatx4'): the float32 array has 10"),
    (dict(arg0=np.zeros(64, "V4")), "argument 'arg0' points to f16x4 ('half4') but the array has dtype |V4"),
])
def test_vector_pointer_mismatches_name_the_argument(mod, over, msg):
    assert msg in _no_launch(mod, "vec", **_vec_args(**over), grid=1, block=64)


def test_vector_pointers_accept_records_buffers_and_2d_arrays(mod):
    dev = RecordingBackend()
    k = mod["vec"]
    buf = rt.to_device(np.zeros(256, np.float16), dev)  # a device buffer of the element type
    k(**_vec_args(arg0=buf, arg1=np.zeros((64, 4), np.float32), arg2=np.zeros(64, "V8"),
                  arg5=np.zeros(7, np.int32)),  # myint4: the metadata says nothing, so no check
      grid=1, block=64, device=dev)
    assert len(dev.launches) == 1


def test_old_value_type_metadata_gives_the_element():
    # Code objects v2/v3 carried `.value_type`, the element type of a vector or pointee
    # (LLVM AMDGPUUsage, code object v3 metadata); a typedef the name cannot resolve then
    # still gets its element checked.
    meta = {".kernarg_segment_size": 16, ".args": [
        {".offset": 0, ".size": 8, ".value_kind": "global_buffer", ".address_space": "global",
         ".type_name": "vec_t*", ".value_type": "f16"},
        {".offset": 8, ".size": 8, ".value_kind": "by_value", ".type_name": "half4", ".value_type": "F16"}]}
    k = rt.load(fake_co("gfx942", {"k": meta}))["k"]
    assert [str(f.type) for f in k.layout.explicit] == ["f16", "f16x4"]
    dev = RecordingBackend()
    k(np.zeros(3, np.float16), [1, 2, 3, 4], grid=1, block=64, device=dev)
    with pytest.raises(Diagnostic, match="argument 'arg0' points to f16 .* dtype float32"):
        k(np.zeros(3, np.float32), [1, 2, 3, 4], grid=1, block=64, device=dev)


# -- element types of scalar pointers (issue 16) ---------------------------------------


@pytest.mark.parametrize("i,dtype", [(0, np.int32), (0, np.float64), (1, np.float32), (2, np.float32),
                                     (3, np.int16), (4, np.float32), (4, np.int64)])
def test_wrong_element_type_refused(mod, i, dtype):
    args = [np.zeros(64, np.float32), np.zeros(64, np.int32), np.zeros(64, np.uint32), np.zeros(64, np.uint8),
            np.zeros(64, np.float64)]
    args[i] = np.zeros(64, dtype)
    msg = _no_launch(mod, "typed", *args, grid=1, block=64)
    assert f"argument 'arg{i}' points to" in msg and f"dtype {np.dtype(dtype)}" in msg


def test_same_width_integers_of_either_signedness_accepted(mod):
    dev = RecordingBackend()
    mod["typed"](np.zeros(64, np.float32), np.zeros(64, np.uint32), np.zeros(64, np.int32),
                 np.zeros(64, np.bool_), np.zeros(64, np.float64), grid=1, block=64, device=dev)
    assert len(dev.launches) == 1


# -- read-only arrays (issue 16) -------------------------------------------------------


def _ro(n=64):
    a = np.zeros(n, np.float32)
    a.flags.writeable = False
    return a


def test_read_only_array_refused_where_the_kernel_may_write(mod):
    w = np.zeros(64, np.float32)
    for i in (0, 4):  # `float* out` and `float* plain`: nothing says the kernel will not write
        args = [w, _ro(), _ro(), _ro(), w.copy()]
        args[i] = _ro()
        msg = _no_launch(mod, "access", *args, grid=1, block=64)
        assert f"argument 'arg{i}': the array is read-only" in msg and "arr.copy()" in msg


def test_read_only_arrays_accepted_where_the_kernel_only_reads(mod, co):
    meta = kernel_meta(co, "access")[".args"]
    # what clang says about each: const pointee, proven read-only (restrict), constant space
    assert meta[1].get(".is_const") and meta[2].get(".actual_access") == "read_only"
    assert meta[3].get(".address_space") == "constant"
    dev = RecordingBackend()
    out = np.zeros(64, np.float32)
    mod["access"](out, _ro(), _ro(), _ro(), np.zeros(64, np.float32), grid=1, block=64, device=dev)
    assert len(dev.launches) == 1


def test_declared_access_and_const_layouts():
    meta = {".kernarg_segment_size": 16, ".args": [
        {".offset": 0, ".size": 8, ".value_kind": "global_buffer", ".access": "read_only", ".name": "a"},
        {".offset": 8, ".size": 8, ".value_kind": "global_buffer", ".access": "write_only", ".name": "c"}]}
    k = rt.load(fake_co("gfx942", {"k": meta}))["k"]
    dev = RecordingBackend()
    k(_ro(), np.zeros(4, np.float32), grid=1, block=64, device=dev)
    with pytest.raises(Diagnostic, match=r"argument .c.: the array is read-only, .*access write_only"):
        k(_ro(), _ro(), grid=1, block=64, device=dev)
    raw = rt.load(fake_co("gfx942", {"v": {}})).kernel("v", layout=ArgLayout.slots16(["o:f32*", "i:const f32*"]))
    raw(np.zeros(4, np.float32), _ro(), grid=1, block=64, device=dev)
    with pytest.raises(Diagnostic, match="argument 'o': the array is read-only"):
        raw(_ro(), _ro(), grid=1, block=64, device=dev)
    with pytest.raises(Diagnostic, match="'const' only applies to pointers"):
        ArgLayout.slots16(["n:const u32"])


# -- grid and block (issue 16) ---------------------------------------------------------


@pytest.mark.parametrize("kw,msg", [
    (dict(grid=1.5, block=64), "grid must be an int or a sequence (tuple, list, 1-D array) of 1 to 3 ints, got 1.5"),
    (dict(grid=None, block=64), "grid must be an int or a sequence (tuple, list, 1-D array) of 1 to 3 ints, got None"),
    (dict(grid=1, block=1.0), "block must be an int or a sequence (tuple, list, 1-D array) of 1 to 3 ints, got 1.0"),
    (dict(grid="4", block=64), "grid must be an int"),
    (dict(grid=(1, 1, 1, 1), block=64), "grid must be an int"),
    (dict(grid=(2, 0), block=64), "grid (2, 0, 1) has a dimension below 1"),
    (dict(grid=1, block=(64, 0, 1)), "block (64, 0, 1) has a dimension below 1"),
    (dict(grid=1, block=(True, 1)), "block must be an int"),
    (dict(grid=1, block=2048), "block (2048, 1, 1) has 2048 work-items; the target allows at most 1024"),
    (dict(grid=1 << 32, block=1), "exceeds 2^32 - 1 workgroups"),
    (dict(grid=1 << 26, block=64), "a dispatch holds at most 2^32 - 1 per dimension"),
])
def test_bad_grid_or_block_is_a_diagnostic(mod, kw, msg):
    assert msg in _no_launch(mod, "dflt", np.zeros(64, np.float32), **kw)


def test_grid_and_block_take_any_sequence_of_ints(mod):
    """issue 28 item 7: a list, a range or a 1-D array is a grid or block as a tuple is, the
    same for both (the message says so); missing dimensions are 1."""
    dev = RecordingBackend()
    for grid, block in (([1, 1], [64]), (range(1, 3), np.array([64, 1])), ((2,), (64, 1, 1))):
        mod["dflt"](np.zeros(256, np.float32), grid=grid, block=block, device=dev)
    assert [(x["grid"], x["block"]) for x in dev.launches] == [((1, 1, 1), (64, 1, 1)), ((1, 2, 1), (64, 1, 1)),
                                                                ((2, 1, 1), (64, 1, 1))]
    for kw in (dict(grid=[1, 1.0], block=64), dict(grid=1, block=[64, "1"]), dict(grid=b"\x01", block=64)):
        assert "must be an int or a sequence (tuple, list, 1-D array) of 1 to 3 ints" in \
            _no_launch(mod, "dflt", np.zeros(64, np.float32), **kw)


def test_unknown_module_attribute_lists_the_kernels(mod):
    """issue 28 item 7: ``mod.nope`` is a Diagnostic naming the kernels, and still an
    AttributeError (``hasattr``/``getattr`` with a default keep working)."""
    with pytest.raises(Diagnostic) as ei:
        mod.nope  # noqa: B018
    assert isinstance(ei.value, AttributeError)
    assert "has no attribute 'nope'" in str(ei.value) and "module['name']" in str(ei.value)
    assert any(n.startswith("kernels: ") and "dflt" in n and "reqd" in n for n in ei.value.notes), ei.value.notes
    assert not hasattr(mod, "nope") and getattr(mod, "nope", 7) == 7
    assert mod.kernels is mod.code_object.kernels  # the CodeObject's own attributes still pass through


def test_reqd_workgroup_size_must_match(mod, co):
    assert kernel_meta(co, "reqd")[".reqd_workgroup_size"] == [64, 1, 1]
    for block in (128, (32, 2), 32):
        msg = _no_launch(mod, "reqd", np.zeros(256, np.float32), grid=1, block=block)
        assert "kernel 'reqd' was compiled for block=(64, 1, 1) (.reqd_workgroup_size)" in msg
    dev = RecordingBackend()
    mod["reqd"](np.zeros(64, np.float32), grid=1, block=(64, 1, 1), device=dev)
    mod["reqd"](np.zeros(64, np.float32), grid=1, device=dev)  # block defaults to the required size
    assert [x["block"] for x in dev.launches] == [(64, 1, 1)] * 2


def test_max_flat_workgroup_size_enforced(mod, co):
    # clang compiles an OpenCL kernel without a size attribute for at most 256 work-items
    assert kernel_meta(co, "dflt")[".max_flat_workgroup_size"] == 256
    for block in (512, (16, 32), (257, 1, 1)):
        msg = _no_launch(mod, "dflt", np.zeros(64, np.float32), grid=1, block=block)
        assert "more than its .max_flat_workgroup_size 256" in msg
    dev = RecordingBackend()
    mod["dflt"](np.zeros(256, np.float32), grid=1, block=(16, 16), device=dev)
    assert dev.launches[0]["block"] == (16, 16, 1)


# -- metadata from mutated or hand-written code objects --------------------------------


@pytest.mark.parametrize("bad,msg", [
    ({".reqd_workgroup_size": "x"}, ".reqd_workgroup_size is 'x', not 3 positive integers"),
    ({".reqd_workgroup_size": [64, 0, 1]}, "not 3 positive integers"),
    ({".reqd_workgroup_size": [64]}, "not 3 positive integers"),
    ({".max_flat_workgroup_size": "big"}, ".max_flat_workgroup_size is 'big', not an integer >= 1"),
    ({".kernarg_segment_align": [8]}, ".kernarg_segment_align is [8], not an integer >= 1"),
    ({".kernarg_segment_size": -8}, ".kernarg_segment_size is -8, not an integer >= 0"),
    ({".group_segment_fixed_size": {}}, ".group_segment_fixed_size is {}, not an integer >= 0"),
    ({".args": "x"}, ".args is str, not a list of argument maps"),
    ({".args": [{".offset": 0, ".size": 4, ".value_kind": "dynamic_shared_pointer", ".pointee_align": "x"}]},
     ".pointee_align is 'x', not an integer >= 1"),
])
def test_malformed_metadata_is_a_diagnostic(bad, msg):
    meta = {".kernarg_segment_size": 8, ".args": [
        {".offset": 0, ".size": 8, ".value_kind": "global_buffer", ".type_name": "float*"}], **bad}
    k = rt.load(fake_co("gfx942", {"k": meta}))["k"]
    dev = RecordingBackend()
    with pytest.raises(Diagnostic, match="kernel 'k' metadata") as e:
        k(16, grid=1, block=64, device=dev)
    assert msg in str(e.value)
    if ".reqd_workgroup_size" in bad:  # also when the launch takes its block from it
        with pytest.raises(Diagnostic, match="not 3 positive integers"):
            k(16, grid=1, device=dev)
    assert dev.launches == []

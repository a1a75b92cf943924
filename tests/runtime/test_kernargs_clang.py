"""The kernarg ABI against what clang 22 emits for OpenCL kernels (compiled live)."""

import struct

import numpy as np
import pytest

from gcnforge.runtime.kernargs import V5_HIDDEN, ArgLayout, LaunchDims
from gcnforge.testing import require_llvm

from .helpers import compile_cl, kernel_meta

PRINTF_KERNEL = r"""
__kernel void pk(__global int* out, int x) {
  printf("%d\n", x);
  out[0] = ((__constant int*)__builtin_amdgcn_implicitarg_ptr())[__builtin_amdgcn_workitem_id_x()];
}
"""
# Reading the implicit-argument pointer at a lane-dependent index keeps every hidden
# argument alive, so clang emits them all in the metadata.
MIXED_KERNEL = r"""
__kernel void mixed(__global double* out, char c, short s, long l, double d, __global const int* p,
                    __local float* lds, uchar4 v) {
  __constant char* ia = (__constant char*)__builtin_amdgcn_implicitarg_ptr();
  out[0] = c + s + l + d + p[0] + v.x + ((__constant uint*)ia)[__builtin_amdgcn_workitem_id_x()];
}
"""
# GFX8 has no aperture registers, so the private/shared aperture bases become hidden args.
APERTURE_KERNEL = r"""
__kernel void ap(__global long* out, __local int* l) {
  __private int pv[4]; pv[__builtin_amdgcn_workitem_id_x() & 3] = 1;
  out[0] = (long)(int*)l + (long)(int*)pv
         + ((__constant int*)__builtin_amdgcn_implicitarg_ptr())[__builtin_amdgcn_workitem_id_x()];
}
"""


@pytest.fixture(scope="module")
def tools():
    return require_llvm("clang", "ld.lld")


def _hidden_offsets(meta):
    args = meta[".args"]
    hidden = [a for a in args if a[".value_kind"].startswith("hidden_")]
    base = hidden[0][".offset"]
    return {a[".value_kind"]: (a[".offset"] - base, a[".size"]) for a in hidden}, base


def test_v5_hidden_table_matches_clang(tools, tmp_path):
    import subprocess

    seen = {}
    for name, src, cpu in (("pk", PRINTF_KERNEL, "gfx942"), ("mixed", MIXED_KERNEL, "gfx942"),
                           ("ap", APERTURE_KERNEL, "gfx803")):
        s = tmp_path / f"{name}.cl"
        s.write_text(src)
        subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={cpu}",
                        "-nogpulib", "-O2", "-c", str(s), "-o", str(tmp_path / f"{name}.o")], check=True)
        subprocess.run([tools["ld.lld"], "-shared", str(tmp_path / f"{name}.o"), "-o", str(tmp_path / f"{name}.co")],
                       check=True)
        meta = kernel_meta(tmp_path / f"{name}.co", name)
        offs, base = _hidden_offsets(meta)
        # the hidden block starts 8-aligned after the explicit args and is 256 bytes
        assert base % 8 == 0
        assert meta[".kernarg_segment_size"] == base + 256
        for kind, pos in offs.items():
            assert V5_HIDDEN[kind] == pos, kind
        seen.update(offs)
        # every argument clang declares, explicit or hidden, is understood
        ArgLayout.from_metadata(meta)
    assert set(seen) == set(V5_HIDDEN), set(V5_HIDDEN) - set(seen)


def test_mixed_kernel_packs_like_the_c_abi(tools, tmp_path):
    co = compile_cl(tmp_path, MIXED_KERNEL, tools, "mixed")
    meta = kernel_meta(co, "mixed")
    lay = ArgLayout.from_metadata(meta)
    assert [f.name for f in lay.explicit] == [f"arg{i}" for i in range(8)]
    assert [f.kind for f in lay.explicit] == ["ptr", "value", "value", "value", "value", "ptr", "lds", "value"]
    assert lay.explicit[5].is_const
    vals = {"arg0": 0x1000, "arg1": -5, "arg2": 300, "arg3": -(2**40), "arg4": 0.1,
            "arg5": 0x2000, "arg6": 64, "arg7": [1, 2, 3, 4]}
    data = lay.pack(vals, LaunchDims((4, 1, 1), (64, 1, 1), dynamic_lds=128))
    # The same argument list laid out by C rules (natural alignment), independently of the metadata:
    explicit = struct.pack("<Qbxh4xqdQI4B", 0x1000, -5, 300, -(2**40), 0.1, 0x2000, 64, 1, 2, 3, 4)
    assert data[: len(explicit)] == explicit
    base = _hidden_offsets(meta)[1]
    assert struct.unpack_from("<IIIHHH", data, base) == (4, 1, 1, 64, 1, 1)
    assert struct.unpack_from("<I", data, base + 120) == (128,)  # hidden_dynamic_lds_size
    assert len(data) == meta[".kernarg_segment_size"]


def test_pointee_types_from_type_names(tools, tmp_path):
    meta = kernel_meta(compile_cl(tmp_path, MIXED_KERNEL, tools, "mixed"), "mixed")
    lay = ArgLayout.from_metadata(meta)
    assert str(lay.explicit[0].type) == "f64" and str(lay.explicit[5].type) == "i32"
    assert str(lay.explicit[7].type) == "u8x4"
    assert np.dtype(lay.explicit[4].type.dtype) == np.float64

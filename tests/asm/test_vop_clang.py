"""Vector-heavy clang-compiled gfx942 code disassembles exactly as llvm-objdump does.

The OpenCL kernels below lean on what the VOP codecs must get right in real code: f16
and packed math (VOP3P), dot products, MFMA (bf16/f16/fp8/xf32/f64/i8 incl. AGPR
accumulators and v_accvgpr_*), DPP and lane ops (update_dpp, readlane, writelane,
readfirstlane), byte/short arithmetic that the backend turns into SDWA, f64 math and
compares. Compiled live with the clang line from DESIGN.md, linked with ld.lld; the
comparison is line for line with ``llvm-objdump -d --mcpu=gfx942``."""

from __future__ import annotations

import subprocess

import pytest

from gcnforge.asm.listing import objdump_lines
from gcnforge.testing import require_llvm

KERNELS = {
    "packed": r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half2 __attribute__((ext_vector_type(2)));
typedef short short2 __attribute__((ext_vector_type(2)));
__kernel void packed(__global half2 *a, __global half2 *b, __global float *o, __global short2 *s, __global char *c) {
  int i = (int)(__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x());
  half2 x = a[i], y = b[i];
  half2 z = x * y + (half2)(1.0h, -2.0h);
  o[i] = __builtin_amdgcn_fdot2(x, y, o[i], false) + (float)z.x;
  s[i] = s[i] * (short2)(3, -5) + (s[i] >> (short2)(1, 2));
  c[i] = (char)(c[i] * c[i + 1] + 7);
  o[i + 64] = __builtin_amdgcn_sdot4(i, i * 3, (int)o[i], true);
}
""",
    "mfma": r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));
typedef half half4 __attribute__((ext_vector_type(4)));
typedef short short4 __attribute__((ext_vector_type(4)));
typedef double double4 __attribute__((ext_vector_type(4)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef float float2 __attribute__((ext_vector_type(2)));
__kernel void mfma(__global float4 *o, __global half4 *a, __global short4 *b, __global float16 *p,
                   __global double4 *d, __global long *l, __global int4 *q, __global float2 *x) {
  int i = (int)(__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x());
  float4 acc = o[i];
  acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a[i], a[i + 1], acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(b[i], b[i + 1], acc, 1, 2, 3);
  acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(l[i], l[i + 1], acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8(l[i], l[i + 2], acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_16x16x8_xf32(x[i], x[i + 1], acc, 0, 0, 0);
  o[i] = acc;
  p[i] = __builtin_amdgcn_mfma_f32_32x32x8f16(a[i], a[i + 2], p[i], 0, 0, 0);
  d[i] = __builtin_amdgcn_mfma_f64_16x16x4f64(d[i].x, d[i].y, d[i], 0, 0, 0);
  q[i] = __builtin_amdgcn_mfma_i32_16x16x32_i8(l[i], l[i + 3], q[i], 0, 0, 0);
}
""",
    "lanes": r"""
__kernel void lanes(__global int *a, __global float *f, __global double *d, __global uint *u) {
  int i = (int)(__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x());
  int v = a[i];
  int s = __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false);
  s += __builtin_amdgcn_update_dpp(0, v, 0x1b, 0xa, 0x5, true);
  s += __builtin_amdgcn_mov_dpp(v, 0x142, 0xf, 0xf, false);
  s += __builtin_amdgcn_readfirstlane(v) + __builtin_amdgcn_readlane(v, 7);
  a[i] = __builtin_amdgcn_ds_bpermute(i * 4, s);
  float x = f[i];
  f[i] = __builtin_amdgcn_rcpf(x) + __builtin_amdgcn_rsqf(x) + __builtin_amdgcn_sinf(x) * __builtin_amdgcn_fractf(x)
       + __builtin_fmaf(x, 2.5f, -x) + (x < 0.5f ? -x : __builtin_fabsf(x)) + __builtin_ldexpf(x, i) + __builtin_rintf(x) + __builtin_floorf(x);
  double y = d[i];
  d[i] = y < 1.0 ? __builtin_sqrt(y) : y * y + 0.25 + __builtin_amdgcn_rcp(y);
  u[i] = (u[i] >> 5) * 0x01010101u + __builtin_clz(u[i] | 1) + __builtin_popcount(u[i]) + ((u[i] << 3) | (u[i] >> 29))
       + (uint)(((ulong)u[i] * 77u) >> 32) + (uint)__builtin_amdgcn_ubfe(u[i], 3, 7);
}
""",
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_vector_kernels_match_llvm_objdump(name, tmp_path):
    tools = require_llvm("clang", "ld.lld", "llvm-objdump")
    from gcnforge.binary import read_code_object

    src = tmp_path / f"{name}.cl"
    src.write_text(KERNELS[name])
    obj, hsaco = tmp_path / f"{name}.o", tmp_path / f"{name}.hsaco"
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib",
                    "-O2", "-c", str(src), "-o", str(obj)], check=True, capture_output=True)
    subprocess.run([tools["ld.lld"], "-shared", str(obj), "-o", str(hsaco)], check=True, capture_output=True)
    want = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx942", str(hsaco)], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    co = read_code_object(hsaco.read_bytes())
    syms = sorted((s.value, s.name) for s in co.symbols.values() if s.type == "FUNC" and s.section == ".text")
    got = objdump_lines(co.text, co.text_address, syms)
    w = [ln for ln in want if ln.startswith("\t")]
    g = [ln for ln in got if ln.startswith("\t")]
    assert len(w) > 20
    vector = [ln for ln in w if ln.split()[0].startswith("v_")]
    assert len(vector) > 10, "kernel compiled to too little vector code to test anything"
    diff = [(a, b) for a, b in zip(w, g) if a.split("//")[0].split() != b.split("//")[0].split()]
    assert not diff, f"{len(diff)} instruction-text differences, first: {diff[:5]}"
    assert len(w) == len(g)

"""Fixtures for code-object tests: real code objects built live by clang 22 + ld.lld."""

from __future__ import annotations

import subprocess

import pytest

from gcnforge.testing import require_llvm

# OpenCL C kernels using only __builtin_amdgcn_* (no device library), compiled by clang 22.
OPENCL_KERNELS = {
    "vadd": """
__kernel void vadd(__global float *a, __global const float *b, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n) a[i] += b[i];
}
""",
    "reduce_lds": """
__kernel void reduce_lds(__global const int *in, __global int *out) {
  __local int tmp[256];
  int t = __builtin_amdgcn_workitem_id_x();
  int g = __builtin_amdgcn_workgroup_id_x();
  tmp[t] = in[g * 256 + t];
  __builtin_amdgcn_s_barrier();
  for (int s = 128; s > 0; s >>= 1) {
    if (t < s) tmp[t] += tmp[t + s];
    __builtin_amdgcn_s_barrier();
  }
  if (t == 0) out[g] = tmp[0];
}
""",
    "two_kernels": """
__kernel void k_xy(__global float *o, float s) {
  int x = __builtin_amdgcn_workitem_id_x(), y = __builtin_amdgcn_workitem_id_y();
  int gx = __builtin_amdgcn_workgroup_id_x(), gy = __builtin_amdgcn_workgroup_id_y();
  o[(gy * 16 + y) * 1024 + gx * 16 + x] *= s;
}
__kernel void k_z(__global double *o, __global const double *i, ulong n) {
  int z = __builtin_amdgcn_workitem_id_z() + __builtin_amdgcn_workgroup_id_z();
  if (z < n) o[z] = i[z] * i[z] + 1.0;
}
""",
    "mfma": """
typedef float float16 __attribute__((ext_vector_type(16)));
typedef half half4 __attribute__((ext_vector_type(4)));
__kernel void mfma(__global float16 *c, __global const half4 *a, __global const half4 *b) {
  int t = __builtin_amdgcn_workitem_id_x();
  c[t] = __builtin_amdgcn_mfma_f32_32x32x8f16(a[t], b[t], c[t], 0, 0, 0);
}
""",
    "atomics_scratch": """
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void atomics_scratch(__global int *counter, __global int *out, int k) {
  int t = __builtin_amdgcn_workitem_id_x();
  volatile int buf[32];
  for (int i = 0; i < 32; ++i) buf[i] = i * t;
  __atomic_fetch_add(counter, buf[k & 31], __ATOMIC_RELAXED);
  out[t] = __builtin_amdgcn_readfirstlane(t) + __builtin_amdgcn_ds_bpermute(4 * ((t + 1) & 63), t);
}
""",
    "half_math": """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void half_math(__global half *x, __global float *y, __global double *z) {
  int t = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
  half h = x[t];
  y[t] = (float)(h * h + (half)1.0) / (y[t] + 3.0f);
  z[t] = __builtin_sqrt(z[t]) * __builtin_fma(z[t], 2.0, 1.0);
}
""",
    "calls": """
__attribute__((noinline)) float helper(__global float *p, int i) { return p[i] * 2.0f + 1.0f; }
__kernel void calls(__global float *a, int n) {
  int i = __builtin_amdgcn_workitem_id_x();
  if (i < n) a[i] = helper(a, i);
}
""",
    "int_math": """
__kernel void int_math(__global int *a, __global uint *b, __global long *c, int d) {
  int t = __builtin_amdgcn_workitem_id_x();
  int x = a[t];
  uint y = b[t];
  a[t] = x / d + x % 7 + (x > 3 ? x : -x) + (x < d ? x : d) + __builtin_clz(y | 1) + __builtin_popcount(y) +
         (x << (d & 31));
  b[t] = y / 3u + ((y << 5) | (y >> 27)) + (uint)(((ulong)y * 0x12345ul) >> 32) + (y >> 3) +
         __builtin_amdgcn_sad_u8(y, 7u, 1u);
  c[t] = (long)x * (long)d + (c[t] >> 7) + (long)(y / (uint)(d | 1));
}
""",
    "dpp_shuffles": """
__kernel void dpp_shuffles(__global int *a, __global float *f) {
  int t = __builtin_amdgcn_workitem_id_x();
  int v = a[t];
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false);   /* row_shr:1 */
  v += __builtin_amdgcn_mov_dpp(v, 0x142, 0xa, 0xf, true);          /* row_bcast:15 */
  v += __builtin_amdgcn_ds_swizzle(v, 0x041f);
  v += __builtin_amdgcn_readlane(v, 5);
  float x = f[t];
  f[t] = __builtin_amdgcn_fmed3f(x, 0.0f, 1.0f) + __builtin_amdgcn_rcpf(x) + __builtin_amdgcn_sinf(x) +
         __builtin_amdgcn_fractf(x) + __builtin_amdgcn_ldexpf(x, v);
  a[t] = v + __builtin_amdgcn_sdot2((short2)(v, 3), (short2)(2, v), t, false);
}
""",
    "loops_atomics": """
__kernel void loops_atomics(__global float *acc, __global const float *x, __global uint *hist, int n) {
  int t = __builtin_amdgcn_workitem_id_x() + 64 * __builtin_amdgcn_workgroup_id_x();
  float s = 0.0f;
  for (int i = t; i < n; i += 4096) {
    float v = x[i];
    s += v * v;
    __atomic_fetch_add(&hist[((uint)(v * 16.0f)) & 255], 1u, __ATOMIC_RELAXED);
  }
  __atomic_fetch_add(acc, s, __ATOMIC_RELAXED);
  __atomic_fetch_max((__global uint *)hist + 256, (uint)t, __ATOMIC_RELAXED);
}
""",
    "const_table": """
__constant float coeffs[8] = {1.0f, 0.5f, 0.25f, 0.125f, 2.0f, 4.0f, 8.0f, 16.0f};
__global int counter_g = 7;
__global int *__global ptr_g = &counter_g;  /* a .quad of a label: R_AMDGPU_RELATIVE64 */
__kernel void const_table(__global float *a) {
  int t = __builtin_amdgcn_workitem_id_x();
  a[t] = a[t] * coeffs[t & 7] + (float)counter_g + (float)*ptr_g;
  counter_g = t;
}
""",
}


def clang_compile(src: str, out, *, emit_asm: bool, extra: tuple[str, ...] = ()) -> None:
    tools = require_llvm("clang")
    cl = out.with_suffix(".cl")
    cl.write_text(src)
    args = [tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942",
            "-nogpulib", "-O2", *extra, str(cl), "-o", str(out)]
    if emit_asm:
        args.insert(-2, "-S")
    subprocess.run(args, check=True, capture_output=True)


@pytest.fixture(scope="session")
def clang_objects(tmp_path_factory) -> dict[str, bytes]:
    """name -> code object bytes (clang + ld.lld) for every OPENCL_KERNELS entry."""
    d = tmp_path_factory.mktemp("clang_co")
    out = {}
    for name, src in OPENCL_KERNELS.items():
        p = d / f"{name}.hsaco"
        clang_compile(src, p, emit_asm=False)
        out[name] = p.read_bytes()
    return out


@pytest.fixture(scope="session")
def clang_asm(tmp_path_factory) -> dict[str, str]:
    """name -> the .s clang 22 emits (-S) for every OPENCL_KERNELS entry."""
    d = tmp_path_factory.mktemp("clang_s")
    out = {}
    for name, src in OPENCL_KERNELS.items():
        p = d / f"{name}.s"
        clang_compile(src, p, emit_asm=True)
        out[name] = p.read_text()
    return out

// MFMA, packed math and conversions (clang builtins for gfx942).
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));
typedef half half4 __attribute__((ext_vector_type(4)));
typedef half half2 __attribute__((ext_vector_type(2)));
typedef short short2 __attribute__((ext_vector_type(2)));
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void mfma(__global float4* c, __global const half4* a, __global const half4* b, __global float16* d) {
  int t = __builtin_amdgcn_workitem_id_x();
  float4 acc = c[t];
  acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a[t], b[t], acc, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a[t + 1], b[t + 1], acc, 1, 2, 3);
  c[t] = acc;
  float16 acc2 = d[t];
  acc2 = __builtin_amdgcn_mfma_f32_32x32x8f16(a[t], b[t], acc2, 0, 0, 0);
  d[t] = acc2;
}
__kernel void packed(__global half2* x, __global int* y, __global float* f) {
  int t = __builtin_amdgcn_workitem_id_x();
  half2 v = x[t] * x[t + 1] + (half2)(1.0h, 2.0h);
  x[t] = v;
  y[t] = __builtin_amdgcn_sdot2((short2)(y[t], 3), (short2)(5, y[t + 1]), y[t + 2], false);
  f[t] = __builtin_amdgcn_fdot2(x[t + 2], x[t + 3], f[t], false) + __builtin_amdgcn_frexp_mantf(f[t + 1]);
}

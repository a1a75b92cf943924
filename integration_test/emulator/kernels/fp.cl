#include "common.h"
__kernel void half_conv(__global half* out, __global float* back, __global const float* in, int n) {
  int i = GID_X; if (i >= n) return;
  half h = (half)in[i];
  half g = h * (half)1.5f + (half)0.25f;
  out[i] = g;
  back[i] = (float)g + (float)(h > (half)0.0f);
}
__kernel void half_math(__global half* out, __global const half* a, __global const half* b, int n) {
  int i = GID_X; if (i >= n) return;
  half2 x = (half2)(a[i], b[i]); half2 y = (half2)(b[i], a[i]);
  half2 z = x * y + x;   // packed math (v_pk_fma_f16)
  out[2*i] = z.x; out[2*i+1] = z.y - __builtin_fmaxf16(a[i], b[i]);
}
__kernel void bf16_conv(__global ushort* out, __global float* back, __global const float* in, int n) {
  int i = GID_X; if (i >= n) return;
  __bf16 h = (__bf16)in[i];
  out[i] = as_ushort(h);
  back[i] = (float)h * 2.0f;
}
__kernel void transcendental(__global float* out, __global const float* in, int n) {
  int i = GID_X; if (i >= n) return;
  float x = in[i];
  out[8*i+0] = __builtin_amdgcn_exp2f(x);
  out[8*i+1] = __builtin_amdgcn_logf(__builtin_fabsf(x) + 0.5f);
  out[8*i+2] = __builtin_amdgcn_rcpf(x + 3.0f);
  out[8*i+3] = __builtin_amdgcn_rsqf(__builtin_fabsf(x) + 1.0f);
  out[8*i+4] = __builtin_amdgcn_sinf(x);
  out[8*i+5] = __builtin_amdgcn_cosf(x);
  out[8*i+6] = __builtin_amdgcn_sqrtf(__builtin_fabsf(x));
  out[8*i+7] = __builtin_amdgcn_fractf(x) + __builtin_ldexpf(x, 3);
}
__kernel void fp8_conv(__global uint* out, __global float* back, __global const float* in, int n) {
  int i = GID_X; if (i >= n) return;
  float a = in[2*i], b = in[2*i+1];
  int p = __builtin_amdgcn_cvt_pk_fp8_f32(a, b, 0, false);
  int q = __builtin_amdgcn_cvt_pk_bf8_f32(a, b, p, true);
  out[i] = (uint)q;
  back[4*i+0] = __builtin_amdgcn_cvt_f32_fp8(q, 0);
  back[4*i+1] = __builtin_amdgcn_cvt_f32_fp8(q, 1);
  back[4*i+2] = __builtin_amdgcn_cvt_f32_bf8(q, 2);
  back[4*i+3] = __builtin_amdgcn_cvt_f32_bf8(q, 3);
}
// stochastic rounding to FNUZ fp8 / bf8 (v_cvt_sr_fp8_f32, v_cvt_sr_bf8_f32), bytes 0 and 3
__kernel void fp8_sr(__global uint* out, __global const float* in, __global const uint* rnd, int n) {
  int i = GID_X; if (i >= n) return;
  int p = __builtin_amdgcn_cvt_sr_fp8_f32(in[i], rnd[i], 0x11223344, 0);
  out[i] = (uint)__builtin_amdgcn_cvt_sr_bf8_f32(in[i], rnd[i], p, 3);
}
__kernel void dot_products(__global float* out, __global const half* a, __global const half* b, int n) {
  int i = GID_X; if (i >= n) return;
  half2 x = (half2)(a[2*i], a[2*i+1]); half2 y = (half2)(b[2*i], b[2*i+1]);
  out[i] = __builtin_amdgcn_fdot2(x, y, 1.0f, false);
}

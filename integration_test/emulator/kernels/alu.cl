#include "common.h"
__kernel void int_ops(__global int* out, __global const int* a, __global const int* b, int n) {
  int i = GID_X; if (i >= n) return;
  int x = a[i], y = b[i];
  out[8*i+0] = x + y * 3 - (x >> 2);
  out[8*i+1] = (x ^ y) | (x & 0x0ff0) ;
  out[8*i+2] = imin(x, y) + imax(x, y) * 2;
  out[8*i+3] = (int)((unsigned)x >> (y & 31)) + (x << (y & 7));
  out[8*i+4] = y != 0 ? x / y : -1;
  out[8*i+5] = y != 0 ? x % y : -2;
  out[8*i+6] = (int)(((long)x * (long)y) >> 32) + (int)(((ulong)(uint)x * (ulong)(uint)y) >> 32);
  out[8*i+7] = __builtin_popcount(x) + (y ? __builtin_clz(y) : 32) + (x < y ? 100 : -100);
}
__kernel void uint_div(__global uint* out, __global const uint* a, __global const uint* b, int n) {
  int i = GID_X; if (i >= n) return;
  uint x = a[i], y = b[i] | 1u;
  out[2*i] = x / y; out[2*i+1] = x % y;
}
__kernel void float_ops(__global float* out, __global const float* a, __global const float* b, int n) {
  int i = GID_X; if (i >= n) return;
  float x = a[i], y = b[i];
  out[8*i+0] = __builtin_fmaf(x, y, 1.5f);
  out[8*i+1] = x * y - x / y;
  out[8*i+2] = __builtin_fminf(x, y) + __builtin_fmaxf(x, y);
  out[8*i+3] = __builtin_floorf(x) + __builtin_ceilf(y) + __builtin_truncf(x * 3.0f);
  out[8*i+4] = __builtin_fabsf(x - y) + __builtin_copysignf(2.0f, x);
  out[8*i+5] = (float)(int)(x * 100.0f) + (float)(uint)(__builtin_fabsf(y) * 7.0f);
  out[8*i+6] = x > y ? x : y * 0.5f;
  out[8*i+7] = __builtin_sqrtf(__builtin_fabsf(x)) + 1.0f / y;
}
__kernel void double_ops(__global double* out, __global const double* a, __global const double* b, int n) {
  int i = GID_X; if (i >= n) return;
  double x = a[i], y = b[i];
  out[4*i+0] = __builtin_fma(x, y, 0.25);
  out[4*i+1] = x * y + x / y;
  out[4*i+2] = __builtin_sqrt(__builtin_fabs(x)) - __builtin_floor(y);
  out[4*i+3] = (double)(long)(x * 1e6) + (double)(float)y;
}
__kernel void long_math(__global long* out, __global const long* a, __global const long* b, int n) {
  int i = GID_X; if (i >= n) return;
  long x = a[i], y = b[i];
  out[4*i+0] = x * y + (x >> 7);
  out[4*i+1] = (long)((ulong)x >> 13) ^ (y << 9);
  out[4*i+2] = y != 0 ? x / y : 0;
  out[4*i+3] = x < y ? x - y : y - x;
}
__kernel void bit_ops(__global uint* out, __global const uint* a, int n) {
  int i = GID_X; if (i >= n) return;
  uint x = a[i];
  out[4*i+0] = (x << 13) | (x >> 19);
  out[4*i+1] = __builtin_bitreverse32(x);
  out[4*i+2] = (x >> 5) & 0x3ff;  // bfe
  out[4*i+3] = (x ? __builtin_ctz(x) : 32) + __builtin_amdgcn_sad_u8(x, 0x01020304u, 7u);
}
__kernel void mad24(__global int* out, __global const int* a, __global const int* b, int n) {
  int i = GID_X; if (i >= n) return;
  out[i] = (int)(((a[i] << 8) >> 8) * ((b[i] << 8) >> 8)) + 5 + (a[i] & 0xffff) * 3;
}

#include "common.h"
__kernel void reduce_sum(__global int* out, __global const int* in) {
  __local int tmp[256];
  int l = LID(x);
  tmp[l] = in[GID_X];
  BARRIER();
  for (int s = 128; s > 0; s >>= 1) { if (l < s) tmp[l] += tmp[l + s]; BARRIER(); }
  if (l == 0) out[WGID(x)] = tmp[0];
}
__kernel void transpose(__global float* out, __global const float* in, int n) {
  __local float tile[16][17];
  int lx = LID(x), ly = LID(y);
  int x = WGID(x) * 16 + lx, y = WGID(y) * 16 + ly;
  tile[ly][lx] = in[y * n + x];
  BARRIER();
  int ox = WGID(y) * 16 + lx, oy = WGID(x) * 16 + ly;
  out[oy * n + ox] = tile[lx][ly];
}
__kernel void scan(__global int* out, __global const int* in) {
  __local int buf[2][128];
  int l = LID(x); int p = 0;
  buf[0][l] = in[GID_X];
  BARRIER();
  for (int off = 1; off < 128; off <<= 1) {
    int v = buf[p][l]; if (l >= off) v += buf[p][l - off];
    buf[1 - p][l] = v; p = 1 - p; BARRIER();
  }
  out[GID_X] = buf[p][l];
}
__kernel void lds_wide(__global uint4* out, __global const uint4* in) {
  __local uint4 t[64];
  int l = LID(x);
  t[63 - l] = in[GID_X];
  BARRIER();
  uint4 v = t[l];
  __local ulong* q = (__local ulong*)t;
  BARRIER();
  out[GID_X] = v + (uint4)((uint)q[l], 0u, 0u, 1u);
}
__kernel void lds_bytes(__global uchar* out, __global const uchar* in) {
  __local uchar b[256];
  __local ushort s[128];
  int l = LID(x);
  b[l] = in[GID_X]; if (l < 128) s[l] = (ushort)(in[GID_X] * 300);
  BARRIER();
  out[GID_X] = b[255 - l] + (uchar)(s[l / 2] >> 3);
}

#include "common.h"
// private array with a dynamic index -> scratch memory
__kernel void private_array(__global int* out, __global const int* in, int n) {
  int i = GID_X; if (i >= n) return;
  int tmp[128];
  for (int k = 0; k < 128; k++) tmp[k] = k;
  for (int k = 0; k < 16; k++) tmp[(in[(i + k) % n] + k) & 127] += k + 1;
  int idx = in[i] & 127;
  out[i] = tmp[idx] + tmp[(idx * 7) & 127];
}
// generic (flat) pointers to both LDS and global memory
__kernel void generic_ptrs(__global int* out, __global const int* in) {
  __local int lbuf[64];
  int l = LID(x);
  lbuf[l] = in[GID_X] * 2;
  BARRIER();
  int* p = (l & 1) ? (int*)&lbuf[63 - l] : (int*)&in[GID_X];   // generic address space
  out[GID_X] = *p + 1;
}
// raw buffer loads/stores through a buffer resource (bounds: num_records)
__kernel void buffer_ops(__global int* out, __global int* in, int nbytes) {
  __amdgpu_buffer_rsrc_t rin = __builtin_amdgcn_make_buffer_rsrc(in, (short)0, nbytes, 0x00027000);
  __amdgpu_buffer_rsrc_t rout = __builtin_amdgcn_make_buffer_rsrc(out, (short)0, 4 * 128, 0x00027000);
  int l = LID(x);
  int v = __builtin_amdgcn_raw_buffer_load_b32(rin, 4 * l, 0, 0);   // lanes past nbytes read 0
  __builtin_amdgcn_raw_buffer_store_b32(v + 1, rout, 4 * l, 0, 0);
}
// uniform dynamic index into a register vector (s_set_gpr_idx / v_movrel or select chains)
__kernel void dyn_extract(__global float* out, __global const float* in, int sel) {
  int l = LID(x);
  float8 v;
  for (int k = 0; k < 8; k++) v[k] = in[8 * l + k];
  out[2 * l] = v[sel & 7];
  out[2 * l + 1] = v[l & 7];
}
// modeled clocks advance
__kernel void clocks(__global ulong* out) {
  ulong t0 = __builtin_amdgcn_s_memtime();
  ulong r0 = __builtin_amdgcn_s_memrealtime();
  float x = 1.0f;
  for (int k = 0; k < 100; k++) x = x * 1.0001f + 0.5f;
  ulong t1 = __builtin_amdgcn_s_memtime();
  if (LID(x) == 0) { out[0] = t0; out[1] = t1; out[2] = r0; out[3] = (ulong)(x > 0.0f); }
}
// wave-wide reduction with __builtin_amdgcn_ds_swizzle + readfirstlane over 256 work-items
__kernel void wave_sum_u64(__global ulong* out, __global const ulong* in) {
  ulong v = in[GID_X];
  for (int off = 32; off > 0; off >>= 1) {
    uint lo = __builtin_amdgcn_ds_bpermute(4 * ((LID(x) + off) & 63), (uint)v);
    uint hi = __builtin_amdgcn_ds_bpermute(4 * ((LID(x) + off) & 63), (uint)(v >> 32));
    v += ((ulong)hi << 32) | lo;
  }
  if ((LID(x) & 63) == 0) out[GID_X / 64] = v;
}

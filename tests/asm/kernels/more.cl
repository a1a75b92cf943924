#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// Kernels chosen to exercise many encodings: SMEM, DS (incl. 2-address forms), global and
// scratch memory, atomics, 64-bit and f16 VALU, VOP3/VOPC/SDWA/DPP-prone code.
#define TID __builtin_amdgcn_workitem_id_x()
#define GID (__builtin_amdgcn_workgroup_id_x() * 256 + TID)
__kernel void transpose(__global float* out, __global const float* in, int w) {
  __local float tile[16][17];
  int x = TID & 15, y = TID >> 4;
  tile[y][x] = in[(__builtin_amdgcn_workgroup_id_x() * 16 + y) * w + x];
  __builtin_amdgcn_s_barrier();
  out[(x * w) + __builtin_amdgcn_workgroup_id_x() * 16 + y] = tile[x][y];
}
__kernel void atomics(__global int* a, __global unsigned long* b, __global float* f, int n) {
  int i = GID;
  __atomic_fetch_min(a + (i & 7), i, __ATOMIC_RELAXED);
  __atomic_fetch_or(b + (i & 3), (unsigned long)i << 33, __ATOMIC_RELAXED);
  __atomic_fetch_add(f, (float)i, __ATOMIC_RELAXED);
  int old = __atomic_exchange_n(a + 8, i, __ATOMIC_SEQ_CST);
  a[16 + (i & 15)] = old;
}
__kernel void stack(__global int* out, int k) {
  int buf[64];
  for (int j = 0; j < 64; ++j) buf[j] = j * k + TID;
  out[GID] = buf[(TID + k) & 63] + buf[k & 63];
}
__kernel void halfmath(__global half* h, __global short* s, __global char* c, float x) {
  int i = GID;
  half v = h[i];
  h[i] = v * (half)x + (half)1.0f;
  s[i] = (short)(s[i] * 3 + (s[i] >> 2));
  c[i] = (char)(c[i] ^ 0x5a);
}
__kernel void shuffles(__global int* o, __global const int* in) {
  int v = in[GID];
  v += __builtin_amdgcn_ds_swizzle(v, 0x401f);
  v += __builtin_amdgcn_mov_dpp(v, 0x111, 0xf, 0xf, 1);
  v += __builtin_amdgcn_readfirstlane(v);
  v += __builtin_amdgcn_ds_bpermute(TID * 4, v);
  o[GID] = v;
}

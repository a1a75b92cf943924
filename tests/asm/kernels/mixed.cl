#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define GID (__builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x())
__kernel void saxpy(__global float* y, __global const float* x, float a, int n) {
  int i = GID;
  if (i < n) y[i] = a * x[i] + y[i];
}
__kernel void reduce(__global int* out, __global const int* in, int n) {
  __local int tmp[256];
  int l = __builtin_amdgcn_workitem_id_x();
  int g = GID;
  tmp[l] = g < n ? in[g] : 0;
  __builtin_amdgcn_s_barrier();
  for (int s = 128; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    __builtin_amdgcn_s_barrier();
  }
  if (l == 0) __atomic_fetch_add(out, tmp[0], __ATOMIC_RELAXED);
}
__kernel void mix(__global double* d, __global half* h, __global uint* u, __global long* q, int n) {
  int i = GID;
  double v = d[i];
  for (int k = 0; k < n; ++k) v = __builtin_sqrt(v) * 1.5 + (double)k;
  d[i] = v;
  h[i] = (half)((float)h[i] * 2.5f + __builtin_amdgcn_rcpf((float)u[i]));
  u[i] = __builtin_popcount(u[i]) + (u[i] >> 3) * 7u + __builtin_clz(u[i] | 1);
  q[i] = q[i] / (long)(n + 1) + (q[i] << 5);
}
__kernel void gemm4(__global float* c, __global const float* a, __global const float* b, int k) {
  int r = __builtin_amdgcn_workitem_id_x() & 15, col = __builtin_amdgcn_workitem_id_x() >> 4;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc = __builtin_fmaf(a[r * k + i], b[i * 16 + col], acc);
  c[r * 16 + col] = acc;
}

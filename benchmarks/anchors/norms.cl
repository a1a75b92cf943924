#include "common.h"
// layer norm and RMS norm of each row (examples/norms.py), one work-group per row
float block_sum(__local float* red, float v) {
  uint t = get_local_id(0);
  red[t] = v; barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 128; s > 0; s >>= 1) { if (t < s) red[t] += red[t + s]; barrier(CLK_LOCAL_MEM_FENCE); }
  float r = red[0]; barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void layer_norm(__global const float* x, __global const float* g, __global const float* b, __global float* y,
                uint n, float eps) {
  __local float red[256];
  const __global float* row = x + get_group_id(0) * n;
  uint t = get_local_id(0);
  float s = 0.0f, q = 0.0f;
  for (uint i = t; i < n; i += 256) { float v = row[i]; s += v; q += v * v; }
  float mean = block_sum(red, s) / n;
  float var = block_sum(red, q) / n - mean * mean;
  float r = rsqrt(var + eps);
  for (uint i = t; i < n; i += 256) y[get_group_id(0) * n + i] = (row[i] - mean) * r * g[i] + b[i];
}
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void rms_norm(__global const float* x, __global const float* g, __global float* y, uint n, float eps) {
  __local float red[256];
  const __global float* row = x + get_group_id(0) * n;
  uint t = get_local_id(0);
  float q = 0.0f;
  for (uint i = t; i < n; i += 256) { float v = row[i]; q += v * v; }
  float r = rsqrt(block_sum(red, q) / n + eps);
  for (uint i = t; i < n; i += 256) y[get_group_id(0) * n + i] = row[i] * r * g[i];
}

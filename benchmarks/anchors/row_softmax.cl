#include "common.h"
// softmax of each row of x (rows x n floats), one work-group per row (examples/row_softmax.py)
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void row_softmax(__global const float* x, __global float* y, uint n) {
  __local float red[256];
  const __global float* row = x + get_group_id(0) * n;
  __global float* out = y + get_group_id(0) * n;
  uint t = get_local_id(0);
  float m = -INFINITY;
  for (uint i = t; i < n; i += 256) m = fmax(m, row[i]);
  red[t] = m; barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 128; s > 0; s >>= 1) { if (t < s) red[t] = fmax(red[t], red[t + s]); barrier(CLK_LOCAL_MEM_FENCE); }
  m = red[0]; barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0.0f;
  for (uint i = t; i < n; i += 256) sum += exp(row[i] - m);
  red[t] = sum; barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 128; s > 0; s >>= 1) { if (t < s) red[t] += red[t + s]; barrier(CLK_LOCAL_MEM_FENCE); }
  float inv = 1.0f / red[0];
  for (uint i = t; i < n; i += 256) out[i] = exp(row[i] - m) * inv;
}

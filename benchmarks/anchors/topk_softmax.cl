#include "common.h"
// MoE routing: softmax over E experts per token, then the top K (examples/topk_softmax.py);
// one wave per token, each lane holds E/64 experts, K rounds of a wave-wide arg-max.
#define E 128
#define K 8
#define PER (E / 64)
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void topk_softmax(__global const float* x, __global float* w, __global int* idx) {
  __local float sv[64]; __local int si[64];
  uint lane = get_local_id(0), tok = get_group_id(0);
  float v[PER];
  float m = -INFINITY;
  for (int j = 0; j < PER; ++j) { v[j] = x[tok * E + lane * PER + j]; m = fmax(m, v[j]); }
  sv[lane] = m; barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 32; s > 0; s >>= 1) { if (lane < s) sv[lane] = fmax(sv[lane], sv[lane + s]); barrier(CLK_LOCAL_MEM_FENCE); }
  m = sv[0]; barrier(CLK_LOCAL_MEM_FENCE);
  float sum = 0.0f;
  for (int j = 0; j < PER; ++j) { v[j] = exp(v[j] - m); sum += v[j]; }
  sv[lane] = sum; barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 32; s > 0; s >>= 1) { if (lane < s) sv[lane] += sv[lane + s]; barrier(CLK_LOCAL_MEM_FENCE); }
  float inv = 1.0f / sv[0]; barrier(CLK_LOCAL_MEM_FENCE);
  for (int r = 0; r < K; ++r) {
    float best = -1.0f; int bi = E;
    for (int j = 0; j < PER; ++j) if (v[j] > best) { best = v[j]; bi = lane * PER + j; }
    sv[lane] = best; si[lane] = bi; barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 32; s > 0; s >>= 1) {
      if (lane < s && (sv[lane + s] > sv[lane] || (sv[lane + s] == sv[lane] && si[lane + s] < si[lane]))) {
        sv[lane] = sv[lane + s]; si[lane] = si[lane + s];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    int win = si[0];
    if (lane == 0) { w[tok * K + r] = sv[0] * inv; idx[tok * K + r] = win; }
    if (win / PER == (int)lane) v[win % PER] = -2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

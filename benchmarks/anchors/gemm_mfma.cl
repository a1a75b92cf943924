#include "common.h"
// C (f32) = A (M x K, f16) * B^T (N x K, f16), a 64x64 tile per work-group of 4 waves, each
// wave one 32x32 block with v_mfma_f32_32x32x8_f16, K staged through LDS in steps of 32
// (examples/gemm_lds.py's work).
typedef half half4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void gemm_f16(__global const half* a, __global const half* bt, __global float* c, uint k_dim, uint n_dim) {
  __local half la[64 * 32], lb[64 * 32];
  uint t = get_local_id(0), wave = t / 64, lane = t % 64;
  uint m0 = get_group_id(1) * 64, n0 = get_group_id(0) * 64;
  uint wm = (wave / 2) * 32, wn = (wave % 2) * 32;
  float16v acc = 0.0f;
  for (uint k0 = 0; k0 < k_dim; k0 += 32) {
    for (uint i = t; i < 64 * 32; i += 256) {
      la[i] = a[(m0 + i / 32) * k_dim + k0 + i % 32];
      lb[i] = bt[(n0 + i / 32) * k_dim + k0 + i % 32];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint kk = 0; kk < 32; kk += 8) {
      half4 av, bv;
      for (int j = 0; j < 4; ++j) {
        av[j] = la[(wm + lane % 32) * 32 + kk + (lane / 32) * 4 + j];
        bv[j] = lb[(wn + lane % 32) * 32 + kk + (lane / 32) * 4 + j];
      }
      acc = __builtin_amdgcn_mfma_f32_32x32x8f16(av, bv, acc, 0, 0, 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int j = 0; j < 16; ++j) {
    uint row = wm + (j / 4) * 8 + (lane / 32) * 4 + j % 4, col = wn + lane % 32;
    c[(m0 + row) * n_dim + n0 + col] = acc[j];
  }
}

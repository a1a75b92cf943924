#include "common.h"
// DPP: row_shr:1,2,4,8 then row_bcast15/31 builds a wave-wide inclusive scan (classic GCN reduction).
__kernel void dpp_scan(__global int* out, __global const int* in) {
  int v = in[GID_X];
  v += __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false);  // row_shr:1
  v += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false);  // row_shr:2
  v += __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, false);  // row_shr:4
  v += __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, false);  // row_shr:8
  v += __builtin_amdgcn_update_dpp(0, v, 0x142, 0xa, 0xf, false);  // row_bcast:15
  v += __builtin_amdgcn_update_dpp(0, v, 0x143, 0xc, 0xf, false);  // row_bcast:31
  out[GID_X] = v;
}
__kernel void dpp_moves(__global int* out, __global const int* in) {
  int v = in[GID_X];
  out[8*GID_X+0] = __builtin_amdgcn_mov_dpp(v, 0x1b, 0xf, 0xf, true);   // quad_perm:[3,2,1,0]
  out[8*GID_X+1] = __builtin_amdgcn_mov_dpp(v, 0x101, 0xf, 0xf, true);  // row_shl:1
  out[8*GID_X+2] = __builtin_amdgcn_mov_dpp(v, 0x123, 0xf, 0xf, true);  // row_ror:3
  out[8*GID_X+3] = __builtin_amdgcn_mov_dpp(v, 0x140, 0xf, 0xf, true);  // row_mirror
  out[8*GID_X+4] = __builtin_amdgcn_mov_dpp(v, 0x141, 0xf, 0xf, true);  // row_half_mirror
  out[8*GID_X+5] = __builtin_amdgcn_mov_dpp(v, 0x130, 0xf, 0xf, true);  // wave_shl:1
  out[8*GID_X+6] = __builtin_amdgcn_mov_dpp(v, 0x13c, 0xf, 0xf, true);  // wave_ror:1
  out[8*GID_X+7] = __builtin_amdgcn_update_dpp(-1, v, 0x111, 0x5, 0x3, false); // masks, no bound_ctrl
}
// gfx90a+ row_newbcast:N (DPP_CTRL 0x150+N), 32-bit and 64-bit (v_mov_b64_dpp, DP ALU)
__kernel void dpp_newbcast(__global int* out, __global const int* in, __global long* out64,
                           __global const long* in64) {
  int v = in[GID_X];
  out[4*GID_X+0] = __builtin_amdgcn_update_dpp(-1, v, 0x150, 0xf, 0xf, false);  // row_newbcast:0
  out[4*GID_X+1] = __builtin_amdgcn_update_dpp(-1, v, 0x153, 0xf, 0xf, false);  // row_newbcast:3
  out[4*GID_X+2] = __builtin_amdgcn_update_dpp(-1, v, 0x15f, 0xf, 0xf, false);  // row_newbcast:15
  out[4*GID_X+3] = __builtin_amdgcn_update_dpp(-1, v, 0x157, 0xa, 0xf, false);  // row_newbcast:7, rows 1, 3
  out64[GID_X] = __builtin_amdgcn_update_dpp(-1L, in64[GID_X], 0x155, 0xf, 0xf, false);  // row_newbcast:5
}
__kernel void dpp_reduce_max(__global int* out, __global const int* in) {
  int v = in[GID_X];
  v = imax(v, __builtin_amdgcn_update_dpp(v, v, 0xb1, 0xf, 0xf, false));  // quad_perm:[1,0,3,2]
  v = imax(v, __builtin_amdgcn_update_dpp(v, v, 0x4e, 0xf, 0xf, false));  // quad_perm:[2,3,0,1]
  v = imax(v, __builtin_amdgcn_update_dpp(v, v, 0x141, 0xf, 0xf, false)); // row_half_mirror
  v = imax(v, __builtin_amdgcn_update_dpp(v, v, 0x140, 0xf, 0xf, false)); // row_mirror
  int r = imax(imax(__builtin_amdgcn_readlane(v, 0), __builtin_amdgcn_readlane(v, 16)),
              imax(__builtin_amdgcn_readlane(v, 32), __builtin_amdgcn_readlane(v, 48)));
  if (LID(x) % 64 == 0) out[GID_X / 64] = r;
}
__kernel void readlanes(__global int* out, __global const int* in) {
  int v = in[GID_X];
  int first = __builtin_amdgcn_readfirstlane(v);
  int l5 = __builtin_amdgcn_readlane(v, 5);
  int mine = 0;
  if (LID(x) % 3 == 1) mine = __builtin_amdgcn_readfirstlane(v);   // first *active* lane
  out[GID_X] = first + 2 * l5 + 3 * mine;
}
__kernel void swizzle_permute(__global int* out, __global const int* in) {
  int v = in[GID_X]; int l = LID(x) & 63;
  out[4*GID_X+0] = __builtin_amdgcn_ds_swizzle(v, 0x801b);          // quad_perm 3,2,1,0
  out[4*GID_X+1] = __builtin_amdgcn_ds_swizzle(v, (0x1f) | (4 << 10)); // xor lane ^ 4
  out[4*GID_X+2] = __builtin_amdgcn_ds_bpermute(((l * 7) & 63) * 4, v);
  out[4*GID_X+3] = __builtin_amdgcn_ds_permute(((l + 9) & 63) * 4, v);
}
__kernel void ballot_mbcnt(__global uint* out, __global const int* in) {
  int v = in[GID_X];
  ulong m = __builtin_amdgcn_ballot_w64(v > 0);
  uint below = __builtin_amdgcn_mbcnt_hi((uint)(m >> 32), __builtin_amdgcn_mbcnt_lo((uint)m, 0u));
  out[GID_X] = below + (uint)(__builtin_popcountl(m) << 8);
}

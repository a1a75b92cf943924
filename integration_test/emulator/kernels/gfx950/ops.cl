#include "../common.h"
// gfx950 (CDNA4) instruction groups through clang's __builtin_amdgcn_* builtins (built with
// -mcpu=gfx950 by test_kernels_gfx950.py); one kernel per group, results checked against NumPy
// and ml_dtypes. A lane's inputs: a = in[i], b = in[n+i], s = in[2n+i] (a scale: its exponent),
// r = ((uint*)in)[3n+i] (random bits).
typedef float v2f __attribute__((ext_vector_type(2)));
typedef short v2s __attribute__((ext_vector_type(2)));
typedef float v16f __attribute__((ext_vector_type(16)));
typedef float v32f __attribute__((ext_vector_type(32)));
typedef uint v6u __attribute__((ext_vector_type(6)));
typedef int v3i __attribute__((ext_vector_type(3)));
typedef int v2i __attribute__((ext_vector_type(2)));
typedef half v2h __attribute__((ext_vector_type(2)));
typedef half v4h __attribute__((ext_vector_type(4)));
typedef __bf16 v2bf __attribute__((ext_vector_type(2)));
typedef short v2s16 __attribute__((ext_vector_type(2)));

#define INPUTS int i = GID_X; if (i >= n) return; \
  float a = in[i], b = in[n + i], s = in[2 * n + i]; uint r = ((__global const uint*)in)[3 * n + i];

// scaled conversions to and from fp8 / bf8 / fp4 (v_cvt_scalef32_*)
__kernel void scaled_cvt(__global uint* out, __global const float* in, int n) {
  INPUTS
  __global uint* o = out + 8 * i;
  o[0] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_fp8_f32((v2s)(0, 0), a, b, s, false));
  o[1] = as_uint(__builtin_amdgcn_cvt_scalef32_pk_bf8_f32((v2s)(0x1234, 0x5678), a, b, s, true));
  o[2] = __builtin_amdgcn_cvt_scalef32_pk_fp4_f32(0x11223344u, a, b, s, 1);
  v2f f = __builtin_amdgcn_cvt_scalef32_pk_f32_fp8(r, s, true);
  o[3] = as_uint(f.x);
  o[4] = as_uint(f.y);
  o[5] = as_uint(__builtin_amdgcn_cvt_scalef32_f32_bf8(r, s, 3));
  v2f g = __builtin_amdgcn_cvt_scalef32_pk_f32_fp4(r, s, 2);
  o[6] = as_uint(g.x);
  o[7] = as_uint(g.y);
}

// stochastic rounding with a scale (fp8 from f32; a pair to fp4, the second with v_prng_b32)
__kernel void scaled_sr(__global uint* out, __global const float* in, int n) {
  INPUTS
  out[2 * i] = __builtin_amdgcn_cvt_scalef32_sr_fp8_f32(0xaabbccddu, a, r, s, 2);
  out[2 * i + 1] = __builtin_amdgcn_cvt_scalef32_sr_pk_fp4_f32(0u, (v2f)(a, b), r, s, 0);
}

// 32 values to fp6 and back: lane i converts in[32i .. 32i+31] (16 + 16 interleaved), scale s
__kernel void fp6_pk32(__global uint* out, __global float* back, __global const float* in,
                       __global const float* scale, int n) {
  int i = GID_X;
  if (i >= n) return;
  v16f x, y;
  for (int k = 0; k < 16; ++k) { x[k] = in[32 * i + k]; y[k] = in[32 * i + 16 + k]; }
  float s = scale[i];
  v6u p = __builtin_amdgcn_cvt_scalef32_2xpk16_fp6_f32(x, y, s);
  for (int k = 0; k < 6; ++k) out[6 * i + k] = p[k];
  v32f v = __builtin_amdgcn_cvt_scalef32_pk32_f32_fp6(p, s);
  for (int k = 0; k < 32; ++k) back[32 * i + k] = v[k];
}

// f32 -> packed f16 / bf16 (v_cvt_pk_f16_f32, v_cvt_pk_bf16_f32) and the f32 IEEE minimum3 / maximum3
__kernel void pk_minmax(__global uint* out, __global const float* in, int n) {
  INPUTS
  out[4 * i] = as_uint(__builtin_convertvector((v2f)(a, b), v2h));
  out[4 * i + 1] = as_uint(__builtin_convertvector((v2f)(a, b), v2bf));
  out[4 * i + 2] = as_uint(__builtin_elementwise_minimum(a, __builtin_elementwise_minimum(b, s)));
  out[4 * i + 3] = as_uint(__builtin_elementwise_maximum(a, __builtin_elementwise_maximum(b, s)));
}

// integer and lane ops: v_prng_b32, v_bitop3_b32, v_ashr_pk_*, v_permlane16/32_swap
__kernel void bits_lanes(__global uint* out, __global const float* in, int n) {
  INPUTS
  uint ua = as_uint(a), ub = as_uint(b);
  out[7 * i] = __builtin_amdgcn_prng_b32(r);
  out[7 * i + 1] = __builtin_amdgcn_bitop3_b32(ua, ub, r, 0x96);
  out[7 * i + 2] = (ushort)__builtin_amdgcn_ashr_pk_i8_i32(as_int(a), as_int(b), r);
  out[7 * i + 3] = (ushort)__builtin_amdgcn_ashr_pk_u8_i32(as_int(a), as_int(b), r);
  uint2 p16 = __builtin_amdgcn_permlane16_swap(ua, ub, false, false);
  uint2 p32 = __builtin_amdgcn_permlane32_swap(ua, ub, false, false);
  out[7 * i + 4] = p16.x;
  out[7 * i + 5] = p16.y;
  out[7 * i + 6] = p32.x ^ (p32.y << 1);
}

// transposing LDS reads: the 64 lanes' block of LDS filled from in, each lane reads at 8*lane
// (16*lane for b96: 128-bit aligned); one work-group of 64
__kernel void lds_tr(__global uint* out, __global const uint* in) {
  __local uint tile[768];
  int l = LID(x);
  for (int k = l; k < 768; k += 64) tile[k] = in[k];
  BARRIER();
  __local char* base = (__local char*)tile;
  v4h t16 = __builtin_amdgcn_ds_read_tr16_b64_v4f16((__local v4h*)(base + 8 * l));
  v2i t8 = __builtin_amdgcn_ds_read_tr8_b64_v2i32((__local v2i*)(base + 8 * l));
  v2i t4 = __builtin_amdgcn_ds_read_tr4_b64_v2i32((__local v2i*)(base + 8 * l));
  v3i t6 = __builtin_amdgcn_ds_read_tr6_b96_v3i32((__local v3i*)(base + 16 * l));
  __global uint* o = out + 9 * l;
  o[0] = __builtin_bit_cast(v2i, t16).x; o[1] = __builtin_bit_cast(v2i, t16).y;
  o[2] = t8.x; o[3] = t8.y; o[4] = t4.x; o[5] = t4.y; o[6] = t6.x; o[7] = t6.y; o[8] = t6.z;
}

// direct loads to LDS of 16 bytes per lane (global_load_lds_dwordx4), read back
__kernel void lds_dma16(__global uint* out, __global const uint* in) {
  __local uint tile[256];
  int l = LID(x);
  __builtin_amdgcn_global_load_lds((__global void*)(in + 4 * l), (__local void*)tile, 16, 0, 0);
  __builtin_amdgcn_s_waitcnt(0);
  BARRIER();
  for (int k = 0; k < 4; ++k) out[64 * k + l] = tile[64 * k + l];
}

// bf16 dot product into f32 (v_dot2_f32_bf16)
__kernel void dot_bf16(__global float* out, __global const uint* x, __global const uint* y,
                       __global const float* c, int n) {
  int i = GID_X;
  if (i >= n) return;
  out[i] = __builtin_amdgcn_fdot2_f32_bf16(__builtin_bit_cast(v2s16, x[i]), __builtin_bit_cast(v2s16, y[i]), c[i], false);
}

// 32 f16 values to bf6 and back to f16; 32 f32 values to fp6 with stochastic rounding (the
// random word stepped by v_prng_b32 per element) and back to bf16; lane i: in[32i ..], hin[32i ..]
typedef half v32h __attribute__((ext_vector_type(32)));
typedef __bf16 v32bf __attribute__((ext_vector_type(32)));
__kernel void fp6_pk32_more(__global uint* out, __global ushort* back, __global const float* in,
                            __global const half* hin, __global const uint* seed, __global const float* scale,
                            int n) {
  int i = GID_X;
  if (i >= n) return;
  v32f x;
  v32h h;
  for (int k = 0; k < 32; ++k) { x[k] = in[32 * i + k]; h[k] = hin[32 * i + k]; }
  float s = scale[i];
  v6u a = __builtin_amdgcn_cvt_scalef32_sr_pk32_fp6_f32(x, seed[i], s);
  v6u b = __builtin_amdgcn_cvt_scalef32_pk32_bf6_f16(h, s);
  v32h hb = __builtin_amdgcn_cvt_scalef32_pk32_f16_bf6(b, s);
  v32bf ab = __builtin_amdgcn_cvt_scalef32_pk32_bf16_fp6(a, s);
  for (int k = 0; k < 6; ++k) { out[12 * i + k] = a[k]; out[12 * i + 6 + k] = b[k]; }
  // whole-vector stores (clang 22 -O2 turned a loop of element stores into copies of element 0)
  *(__global v32h*)(back + 64 * i) = hb;
  *(__global v32bf*)(back + 64 * i + 32) = ab;
}

// buffer loads to LDS of 16 bytes per lane (buffer_load_dwordx4 ... lds) with advancing
// soffset, instruction offset and M0 (the LDS base), four rows; then LDS read back whole
__kernel void lds_dma16_rows(__global uint* out, __global const uint* in, uint sbase) {
  __local uint tile[4 * 288];
  int l = LID(x);
  __amdgpu_buffer_rsrc_t r = __builtin_amdgcn_make_buffer_rsrc((void*)in, (short)0, 1 << 20, 0x00020000);
  __builtin_amdgcn_raw_ptr_buffer_load_lds(r, (__local void*)(tile + 0 * 272), 16, l * 16, sbase + 0 * 2048, 0, 0);
  __builtin_amdgcn_raw_ptr_buffer_load_lds(r, (__local void*)(tile + 1 * 272), 16, l * 16, sbase + 1 * 2048, 16, 0);
  __builtin_amdgcn_raw_ptr_buffer_load_lds(r, (__local void*)(tile + 2 * 272), 16, l * 16, sbase + 2 * 2048, 32, 0);
  __builtin_amdgcn_raw_ptr_buffer_load_lds(r, (__local void*)(tile + 3 * 272), 16, l * 16, sbase + 3 * 2048, 48, 0);
  __builtin_amdgcn_s_waitcnt(0);
  BARRIER();
  for (int k = 0; k < 18; ++k) out[64 * k + l] = tile[64 * k + l];
}

// gfx950 instruction groups through clang 22 builtins (disassembly test only).
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half8 __attribute__((ext_vector_type(8)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float2 __attribute__((ext_vector_type(2)));
typedef int int2 __attribute__((ext_vector_type(2)));
typedef unsigned int uint2v __attribute__((ext_vector_type(2)));

__kernel void mfma_f16(__global const half8* a, __global const half8* b, __global float4* c) {
    int i = __builtin_amdgcn_workitem_id_x();
    c[i] = __builtin_amdgcn_mfma_f32_16x16x32_f16(a[i], b[i], c[i], 0, 0, 0);
}

__kernel void swaps(__global uint* out, __global const uint* in) {
    int i = __builtin_amdgcn_workitem_id_x();
    uint2v r = __builtin_amdgcn_permlane16_swap(in[i], in[i + 64], false, false);
    uint2v s = __builtin_amdgcn_permlane32_swap(r.x, r.y, false, false);
    out[i] = s.x + __builtin_amdgcn_prng_b32(s.y);
}

__kernel void scaled_cvt(__global float2* out, __global const uint* in, float scale) {
    int i = __builtin_amdgcn_workitem_id_x();
    out[i] = __builtin_amdgcn_cvt_scalef32_pk_f32_fp8(in[i], scale, false);
}

__kernel void tr_reads(__global int2* out, __local int* lds) {
    int i = __builtin_amdgcn_workitem_id_x();
    out[i] = __builtin_amdgcn_ds_read_tr8_b64_v2i32((__local int2*)(lds + 2 * i));
}

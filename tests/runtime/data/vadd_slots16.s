// Hand-written gfx942 kernel in the vendor 16-byte-slot argument convention:
// out:f32* @0x0, a:f32* @0x10, b:f32* @0x20, n:u32 @0x30, scale:f32 @0x40 (80 bytes).
// out[i] = scale * (a[i] + b[i]) for i < n; one element per work-item, 64-wide workgroups.
// Like many vendor code objects, the metadata declares each slot only as an untyped 16-byte
// by_value blob: enough for the HIP runtime to copy the bytes, useless for packing them.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl vadd
.p2align 8
.type vadd,@function
vadd:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dwordx2 s[6:7], s[0:1], 0x10
  s_load_dwordx2 s[8:9], s[0:1], 0x20
  s_load_dword s10, s[0:1], 0x30
  s_load_dword s11, s[0:1], 0x40
  s_waitcnt lgkmcnt(0)
  s_lshl_b32 s12, s2, 6
  v_add_u32_e32 v1, s12, v0
  v_cmp_gt_u32_e32 vcc, s10, v1
  s_and_saveexec_b64 s[14:15], vcc
  s_cbranch_execz .Lend
  v_lshlrev_b32_e32 v2, 2, v1
  global_load_dword v3, v2, s[6:7]
  global_load_dword v4, v2, s[8:9]
  s_waitcnt vmcnt(0)
  v_add_f32_e32 v3, v3, v4
  v_mul_f32_e32 v3, s11, v3
  global_store_dword v2, v3, s[4:5]
.Lend:
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel vadd
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_kernarg_size 80
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.kernels:
  - .name: vadd
    .symbol: vadd.kd
    .kernarg_segment_size: 80
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 256
    .args:
      - {.offset: 0, .size: 16, .value_kind: by_value}
      - {.offset: 16, .size: 16, .value_kind: by_value}
      - {.offset: 32, .size: 16, .value_kind: by_value}
      - {.offset: 48, .size: 16, .value_kind: by_value}
      - {.offset: 64, .size: 16, .value_kind: by_value}
.end_amdgpu_metadata

// gcnforge-style kernel whose metadata declares explicit and hidden arguments.
// Copies dwords 0..7 of the hidden block and the scalar 'tag' to out[0..8].
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl hid
.p2align 8
.type hid,@function
hid:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x8
  s_load_dwordx8 s[8:15], s[0:1], 0x10
  s_waitcnt lgkmcnt(0)
  v_mov_b32_e32 v0, 0
  v_mov_b32_e32 v1, s8
  global_store_dword v0, v1, s[4:5]
  v_mov_b32_e32 v1, s9
  global_store_dword v0, v1, s[4:5] offset:4
  v_mov_b32_e32 v1, s10
  global_store_dword v0, v1, s[4:5] offset:8
  v_mov_b32_e32 v1, s11
  global_store_dword v0, v1, s[4:5] offset:12
  v_mov_b32_e32 v1, s12
  global_store_dword v0, v1, s[4:5] offset:16
  v_mov_b32_e32 v1, s13
  global_store_dword v0, v1, s[4:5] offset:20
  v_mov_b32_e32 v1, s14
  global_store_dword v0, v1, s[4:5] offset:24
  v_mov_b32_e32 v1, s15
  global_store_dword v0, v1, s[4:5] offset:28
  v_mov_b32_e32 v1, s6
  global_store_dword v0, v1, s[4:5] offset:32
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel hid
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
  .amdhsa_kernarg_size 272
.end_amdhsa_kernel

.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.kernels:
  - .name: hid
    .symbol: hid.kd
    .kernarg_segment_size: 272
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .max_flat_workgroup_size: 1024
    .args:
      - {.name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .type_name: 'uint*'}
      - {.name: tag, .offset: 8, .size: 4, .value_kind: by_value, .type_name: uint}
      - {.offset: 16, .size: 4, .value_kind: hidden_block_count_x}
      - {.offset: 20, .size: 4, .value_kind: hidden_block_count_y}
      - {.offset: 24, .size: 4, .value_kind: hidden_block_count_z}
      - {.offset: 28, .size: 2, .value_kind: hidden_group_size_x}
      - {.offset: 30, .size: 2, .value_kind: hidden_group_size_y}
      - {.offset: 32, .size: 2, .value_kind: hidden_group_size_z}
      - {.offset: 34, .size: 2, .value_kind: hidden_remainder_x}
      - {.offset: 36, .size: 2, .value_kind: hidden_remainder_y}
      - {.offset: 38, .size: 2, .value_kind: hidden_remainder_z}
.end_amdgpu_metadata

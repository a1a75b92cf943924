// Hand-written gfx950 kernels (assembled by llvm-mc -mcpu=gfx950 in the tests) for what the clang
// suite does not reach. Each stores result k of lane l at out[k*64 + l] (out = kernarg dword 0-1).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.macro KERNEL name
.globl \name
.p2align 8
.type \name,@function
\name:
.endm

// LDS past gfx942's 64 KiB: lane l writes 1000+l at 0x27f00 + 4l (the last 256 bytes of 160 KiB)
KERNEL lds_big
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_add_u32_e32 v1, 0x27f00, v20
  v_add_u32_e32 v2, 0x3e8, v0
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v3, v1
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v3, s[4:5]
  s_endpgm

.rodata
.macro KD name, lds=0
.p2align 6
.amdhsa_kernel \name
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_group_segment_fixed_size \lds
  .amdhsa_next_free_vgpr 64
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 64
.end_amdhsa_kernel
.endm
KD lds_big, 163840

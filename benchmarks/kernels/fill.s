// Timing-model microbenchmark (gfx942; 16-byte kernel-argument slots, ArgLayout.slots16).
// fill(out: u32*): each work-item stores 16 zero bytes (64 work-items per work-group, 1 KiB
// each): what torch.zero_ does before a split-K GEMM accumulates.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl fill
.p2align 8
.type fill,@function
fill:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 4, v0
  s_lshl_b32 s10, s2, 10
  v_add_u32_e32 v1, s10, v1
  v_mov_b32_e32 v4, 0
  v_mov_b32_e32 v5, 0
  v_mov_b32_e32 v6, 0
  v_mov_b32_e32 v7, 0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[4:7], s[4:5]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel fill
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 16
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel

// Timing-model microbenchmark (gfx942; 16-byte kernel-argument slots, ArgLayout.slots16).
// copy(out: u32*, inp: u32*): each work-item copies 16 bytes (one global_load_dwordx4 /
// global_store_dwordx4), 256 work-items per work-group: a streaming copy, limited by HBM
// bandwidth when the grid is large.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl copy
.p2align 8
.type copy,@function
copy:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dwordx2 s[8:9], s[0:1], 0x10
  v_lshlrev_b32_e32 v1, 4, v0
  s_lshl_b32 s10, s2, 12
  v_add_u32_e32 v1, s10, v1
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[4:7], v1, s[8:9]
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v1, v[4:7], s[4:5]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel copy
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 32
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel

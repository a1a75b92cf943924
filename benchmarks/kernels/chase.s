// Timing-model microbenchmark (gfx942; 16-byte kernel-argument slots, ArgLayout.slots16).
// chase(buf: u32*, steps: u32, out: u32*): one wave follows a chain of byte offsets
// (off = buf[off]) steps times, each load waiting for the previous one: a pointer chase whose
// time per step is the latency of wherever the chain's lines live.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl chase
.p2align 8
.type chase,@function
chase:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x10
  s_load_dwordx2 s[8:9], s[0:1], 0x20
  v_mov_b32_e32 v1, 0
  s_waitcnt lgkmcnt(0)
.Lstep:
  global_load_dword v1, v1, s[4:5]
  s_waitcnt vmcnt(0)
  s_sub_u32 s6, s6, 1
  s_cmp_lg_u32 s6, 0
  s_cbranch_scc1 .Lstep
  v_mov_b32_e32 v2, 0
  global_store_dword v2, v1, s[8:9]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel chase
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size 48
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel

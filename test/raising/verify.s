// The wait and hazard verifiers run on raised code and name the original pc (and, for a
// .s input, its line): the
// v_add reads v1 before the load's vmcnt wait (pc 0x1318: .text starts at 0x1300), the load after
// v_readfirstlane reads an SGPR a VALU wrote without the 5 wait states.
// RUN: not gcnforge raise %s --verify waits,hazards -o %t.mlir 2>&1 | filecheck %s
// CHECK: @k pc 0x1318 ({{.*}}verify.s:18): 'v_add_u32_e32' uses v1 while a load writing it may be in flight (needs vmcnt(0)) [missing s_waitcnt]
// CHECK: @k pc 0x1328 ({{.*}}verify.s:21): 'global_load_dword' needs 5 more wait state(s) after 'v_readfirstlane_b32'{{.*}} [hazard]
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	v_lshlrev_b32_e32 v0, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_dword v1, v0, s[2:3]
	v_add_u32_e32 v1, 1, v1
	global_store_dword v0, v1, s[2:3]
	v_readfirstlane_b32 s6, v0
	global_load_dword v2, v0, s[6:7]
	s_endpgm
.Lend:
	.size k, .Lend-k
	.rodata
	.p2align 6
	.amdhsa_kernel k
		.amdhsa_next_free_vgpr 32
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 16
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.end_amdhsa_kernel

// A jump to a computed address cannot be raised: a located diagnostic naming the pc, at the
// .s line of the instruction (a code object input is located by the pc alone).
// RUN: not gcnforge raise %s 2>&1 | filecheck %s
// CHECK: indirect-branch.s:14:1: error: indirect branch 's_setpc_b64 s[4:5]' at pc 0x{{[0-9a-f]+}} in kernel k: its target is computed at run time
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_getpc_b64 s[4:5]
	s_add_u32 s4, s4, 16
	s_addc_u32 s5, s5, 0
	s_setpc_b64 s[4:5]
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

// The built-in assembler turns .amdhsa_kernel directives into a descriptor; `gcnforge info` decodes it.
// RUN: python -m gcnforge.binary %s -o %t.hsaco
// RUN: gcnforge info %t.hsaco | filecheck %s

	.amdgcn_target "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
	.amdhsa_code_object_version 5
	.text
	.globl	k
	.p2align	8
	.type	k,@function
k:
	s_load_dwordx2 s[0:1], s[4:5], 0x0
	s_waitcnt lgkmcnt(0)
	s_endpgm
.Lend:
	.size	k, .Lend-k
	.rodata
	.p2align	6
	.amdhsa_kernel k
		.amdhsa_group_segment_fixed_size 1024
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_vgpr_workitem_id 1
		.amdhsa_next_free_vgpr 130
		.amdhsa_next_free_sgpr 24
		.amdhsa_accum_offset 64
		.amdhsa_ieee_mode 0
		.amdhsa_float_denorm_mode_32 3
	.end_amdhsa_kernel

// CHECK: target: gfx942:sramecc+:xnack-
// CHECK: code object version: 5
// CHECK: kernel k: entry 0x{{[0-9a-f]+}} (.text+0x0), 16 bytes of code
// CHECK: .amdhsa_group_segment_fixed_size 1024
// CHECK: .amdhsa_kernarg_size 16
// CHECK: .amdhsa_accum_offset 64
// CHECK: .amdhsa_next_free_vgpr 136
// CHECK: .amdhsa_next_free_sgpr 32
// CHECK: .amdhsa_float_denorm_mode_32 3
// CHECK: .amdhsa_ieee_mode 0
// CHECK: .amdhsa_system_sgpr_workgroup_id_y 1
// CHECK: .amdhsa_system_vgpr_workitem_id 1
// CHECK: .amdhsa_user_sgpr_dispatch_ptr 1
// CHECK: .amdhsa_user_sgpr_kernarg_segment_ptr 1

// Control flow: a divergent if (s_cbranch_execz), a counted loop (s_cbranch_scc1 back edge),
// an unconditional jump over dead code; fall-through edges are marked and emit nothing.
// RUN: gcnforge raise %s | filecheck %s
// RUN: gcnforge raise %s --check-roundtrip -o %t.mlir 2>&1 | filecheck %s --check-prefix=RT
// RUN: gcnforge raise %t.mlir -S | filecheck %s --check-prefix=ASM

// CHECK: amdgcn.sop1 s_and_saveexec_b64
// CHECK-NEXT: amdgcn.branch s_cbranch_execz ^[[SKIP:bb[0-9]+]], ^[[THEN:bb[0-9]+]] {pc =
// CHECK: ^[[THEN]]:
// CHECK-NEXT: amdgcn.vop2 v_add_u32_e32
// CHECK-NEXT: amdgcn.branch s_branch ^[[SKIP]] {lift.fallthrough}
// CHECK: ^[[SKIP]]:
// CHECK-NEXT: amdgcn.sop2 s_or_b64
// CHECK-NEXT: amdgcn.sop1 s_mov_b32
// CHECK-NEXT: amdgcn.branch s_branch ^[[LOOP:bb[0-9]+]] {lift.fallthrough}
// CHECK: ^[[LOOP]]:
// CHECK-NEXT: amdgcn.sop2 s_add_i32
// CHECK: amdgcn.sopc s_cmp_lt_i32
// CHECK-NEXT: amdgcn.branch s_cbranch_scc1 ^[[LOOP]], ^[[AFTER:bb[0-9]+]] {pc =
// CHECK: ^[[AFTER]]:
// CHECK-NEXT: amdgcn.branch s_branch ^[[DONE:bb[0-9]+]] {pc =
// CHECK: amdgcn.sopp s_nop 0
// CHECK: ^[[DONE]]:
// CHECK-NEXT: amdgcn.end
// RT: round trip byte-identical
// ASM: s_cbranch_execz .Llift0_[[S:[0-9]+]]
// ASM-NEXT: .Llift0_{{[0-9]+}}:
// ASM-NEXT: v_add_u32_e32 v0, 1, v0
// ASM-NEXT: .Llift0_[[S]]:
// ASM: .Llift0_[[L:[0-9]+]]:
// ASM-NEXT: s_add_i32 s3, s3, 1
// ASM: s_cbranch_scc1 .Llift0_[[L]]
// ASM: .amdhsa_kernel k
// ASM: .amdhsa_next_free_vgpr 32
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dword s2, s[0:1], 0x0
	v_cmp_gt_u32_e32 vcc, 32, v0
	s_and_saveexec_b64 s[4:5], vcc
	s_cbranch_execz .Lskip
	v_add_u32_e32 v0, 1, v0
.Lskip:
	s_or_b64 exec, exec, s[4:5]
	s_mov_b32 s3, 0
.Lloop:
	s_add_i32 s3, s3, 1
	s_waitcnt lgkmcnt(0)
	s_cmp_lt_i32 s3, s2
	s_cbranch_scc1 .Lloop
	s_branch .Ldone
	s_nop 0
.Ldone:
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

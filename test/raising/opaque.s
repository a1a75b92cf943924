// Instructions without a faithful dialect form stay exact as lift.inst (text, pc, the
// registers they touch); a literal LLVM prints like an inline constant keeps its encoding.
// RUN: gcnforge raise %s | filecheck %s
// RUN: gcnforge raise %s --check-roundtrip -o %t.mlir 2>&1 | filecheck %s --check-prefix=RT
// CHECK: lift.inst "s_mov_b64 s[6:7], src_shared_base" (%{{[0-9]+}}) {pc = {{[0-9]+}} : i64, src = "{{.*}}opaque.s:{{[0-9]+}}"} : !amdgcn.sgpr<[6 : 8]>
// CHECK: lift.inst "s_mov_b64 s[8:9], 0xffffffff"
// A non-returning atomic is a real instruction op (vdst 'off'), not opaque:
// CHECK: amdgcn.global global_atomic_add off, %{{[0-9]+}}, %{{[0-9]+}}, off {pc = {{[0-9]+}} : i64, src = "{{.*}}opaque.s:{{[0-9]+}}"} : !amdgcn.vgpr<[0 : 2]>, !amdgcn.vgpr<2>
// The raised module compiles back to the same code object (lift.inst included):
// RUN: gcnforge compile %t.mlir -o %t.hsaco && gcnforge as %s -o %t.orig.hsaco && cmp %t.orig.hsaco %t.hsaco
// RT: round trip byte-identical
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_mov_b64 s[6:7], src_shared_base
	s_mov_b64 s[8:9], 0xffffffff
	global_atomic_add v[0:1], v2, off
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

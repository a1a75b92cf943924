// Raising SOP1/SOP2/SOPK/SOPC/SOPP and SMEM: ops on pinned SGPRs, constants, pcs.
// RUN: gcnforge raise %s | filecheck %s
// RUN: gcnforge raise %s --check-roundtrip -o %t.mlir 2>&1 | filecheck %s --check-prefix=RT

// CHECK: amdgcn.kernel @k attributes {{{.*}}user_sgprs = ["kernarg_segment_ptr"]{{.*}}lift.amdhsa = {{{.*}}next_free_vgpr = 32 : i64
// CHECK-DAG: [[S01:%[0-9]+]] = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
// CHECK-DAG: [[EXEC:%[0-9]+]] = amdgcn.alloca : !amdgcn.special<exec>
// CHECK: amdgcn.smem s_load_dwordx2 %{{[0-9]+}}, [[S01]], %{{[0-9]+}} {pc = {{[0-9]+}} : i64, src = "{{.*}}families-scalar.s:27"} : !amdgcn.sgpr<[2 : 4]>, !amdgcn.sgpr<[0 : 2]>, i32
// CHECK: amdgcn.smem s_load_dword %{{[0-9]+}}, [[S01]], %{{[0-9]+}} glc {pc = {{[0-9]+}} : i64, src = {{.*}}} : !amdgcn.sgpr<4>, !amdgcn.sgpr<[0 : 2]>, i32
// CHECK: amdgcn.sop1 s_mov_b32 {{.*}} : !amdgcn.sgpr<6>, i32
// CHECK: amdgcn.sop1 s_not_b64 %{{[0-9]+}}, [[EXEC]] {{.*}} : !amdgcn.sgpr<[8 : 10]>, !amdgcn.special<exec>
// CHECK: amdgcn.sop2 s_add_u32 {{.*}} : !amdgcn.sgpr<7>, !amdgcn.sgpr<6>, i32
// CHECK: amdgcn.sop2 s_lshl_b32
// CHECK: amdgcn.sopk s_movk_i32 %{{[0-9]+}}, 4660 {{.*}} : !amdgcn.sgpr<10>
// CHECK: amdgcn.sopc s_cmp_lt_u32 {{.*}} : !amdgcn.sgpr<6>, !amdgcn.sgpr<7>
// CHECK: amdgcn.sop2 s_cselect_b32
// CHECK: amdgcn.sopp s_waitcnt lgkmcnt(0)
// CHECK: amdgcn.sopp s_nop 3
// CHECK: amdgcn.end {pc = {{[0-9]+}} : i64, src = "{{.*}}families-scalar.s:{{[0-9]+}}"}
// RT: round trip byte-identical
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dwordx2 s[2:3], s[0:1], 0x8
	s_load_dword s4, s[0:1], 0x10 glc
	s_mov_b32 s6, 17
	s_not_b64 s[8:9], exec
	s_add_u32 s7, s6, 0x12345
	s_lshl_b32 s5, s6, 2
	s_movk_i32 s10, 0x1234
	s_cmp_lt_u32 s6, s7
	s_cselect_b32 s11, s6, s7
	s_waitcnt lgkmcnt(0)
	s_nop 3
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

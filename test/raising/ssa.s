// --ssa: registers written once become SSA values (placeholder destinations), a loop-carried
// register becomes storage, v10 and v11 written apart and read as v[10:11] become parts of
// one unallocated range, ABI-preloaded registers (s[0:1] kernarg pointer) stay pinned;
// --realloc re-allocates and reports the counts, and the result emits and re-raises.
// RUN: gcnforge raise %s --ssa | filecheck %s
// RUN: gcnforge raise %s --ssa --realloc -o %t.mlir 2>&1 | filecheck %s --check-prefix=RA
// RUN: gcnforge raise %t.mlir -S | filecheck %s --check-prefix=ASM
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	s_load_dword s20, s[0:1], 0x0
	v_mov_b32_e32 v30, 0
	s_mov_b32 s21, 0
.Lloop:
	v_add_u32_e32 v30, 3, v30
	s_add_i32 s21, s21, 1
	s_waitcnt lgkmcnt(0)
	s_cmp_lt_i32 s21, s20
	s_cbranch_scc1 .Lloop
	v_mov_b32_e32 v31, 0
	global_store_dword v31, v30, s[0:1]
	v_mov_b32_e32 v10, 1
	v_mov_b32_e32 v11, 0
	global_store_dwordx2 v31, v[10:11], s[0:1] offset:8
	s_endpgm
.Lend:
	.size k, .Lend-k
	.rodata
	.p2align 6
	.amdhsa_kernel k
		.amdhsa_next_free_vgpr 32
		.amdhsa_next_free_sgpr 24
		.amdhsa_accum_offset 32
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
	.end_amdhsa_kernel

// CHECK-DAG: = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
// CHECK-DAG: = amdgcn.alloca : !amdgcn.sgpr<?>
// CHECK-DAG: = amdgcn.alloca : !amdgcn.vgpr<?>
// CHECK-DAG: = amdgcn.alloca : !amdgcn.vgpr{{$}}
// CHECK-DAG: [[R:%[0-9]+]] = amdgcn.alloca : !amdgcn.vgpr<[? : ? + 2]>
// CHECK-DAG: amdgcn.split_range [[R]] : !amdgcn.vgpr<[? : ? + 2]> -> !amdgcn.vgpr<?>, !amdgcn.vgpr<?>
// CHECK: [[S20:%[0-9]+]], %{{[0-9]+}} = amdgcn.smem s_load_dword {{.*}} : !amdgcn.sgpr, !amdgcn.sgpr<[0 : 2]>, i32
// CHECK: amdgcn.vop1 v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<?>, i32
// CHECK: amdgcn.sop1 s_mov_b32 {{.*}} : !amdgcn.sgpr<?>, i32
// CHECK: amdgcn.vop2 v_add_u32_e32 {{.*}} : !amdgcn.vgpr<?>, i32, !amdgcn.vgpr<?>
// CHECK: amdgcn.sopc s_cmp_lt_i32 %{{[0-9]+}}, [[S20]] {{.*}} : !amdgcn.sgpr<?>, !amdgcn.sgpr
// RA: @k: webs ssa 2 storage 2 pinned 3 ranges 1; VGPRs 32 -> 3, AGPRs 0 -> 0, SGPRs 22 -> 4
// ASM: s_load_dword s{{[23]}}, s[0:1], 0x0
// ASM: .amdhsa_next_free_vgpr 3

// Raising DS, GLOBAL, FLAT and MUBUF: tokens on loads/stores, off slots, modifiers.
// RUN: gcnforge raise %s | filecheck %s
// RUN: gcnforge raise %s --check-roundtrip -o %t.mlir 2>&1 | filecheck %s --check-prefix=RT

// CHECK: %{{[0-9]+}} = amdgcn.ds ds_write2_b32 {{.*}} offset0 = 4 offset1 = 8 {{.*}} : !amdgcn.vgpr<1>, !amdgcn.vgpr<2>, !amdgcn.vgpr<3>
// CHECK: %{{[0-9]+}}, %{{[0-9]+}} = amdgcn.ds ds_read_b32 {{.*}} offset = 16 {{.*}} : !amdgcn.vgpr<10>, !amdgcn.vgpr<1>
// CHECK: amdgcn.ds ds_add_u32
// CHECK: amdgcn.global global_load_dword {{.*}} offset = 64 sc0 sc1 {{.*}} : !amdgcn.vgpr<11>, !amdgcn.vgpr<1>, !amdgcn.sgpr<[2 : 4]>
// CHECK: amdgcn.global global_store_dwordx2 %{{[0-9]+}}, %{{[0-9]+}}, off nt {{.*}} : !amdgcn.vgpr<[12 : 14]>, !amdgcn.vgpr<[2 : 4]>
// CHECK: amdgcn.global global_atomic_add {{.*}} sc0 {{.*}} : !amdgcn.vgpr<15>, !amdgcn.vgpr<1>, !amdgcn.vgpr<2>, !amdgcn.sgpr<[2 : 4]>
// CHECK: amdgcn.flat flat_store_dword {{.*}} : !amdgcn.vgpr<[12 : 14]>, !amdgcn.vgpr<2>
// CHECK: amdgcn.flat flat_load_dword {{.*}} offset = 4
// CHECK: amdgcn.mubuf buffer_load_dword {{.*}} offen offset = 8 {{.*}} : !amdgcn.vgpr<14>, !amdgcn.vgpr<1>, !amdgcn.sgpr<[4 : 8]>, i32
// CHECK: amdgcn.mubuf buffer_store_dword %{{[0-9]+}}, off, %{{[0-9]+}}, %{{[0-9]+}} offset = 12 {{.*}} : !amdgcn.vgpr<2>, !amdgcn.sgpr<[4 : 8]>, !amdgcn.sgpr<9>
// RT: round trip byte-identical
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	ds_write2_b32 v1, v2, v3 offset0:4 offset1:8
	ds_read_b32 v10, v1 offset:16
	ds_add_u32 v1, v2
	global_load_dword v11, v1, s[2:3] offset:64 sc0 sc1
	global_store_dwordx2 v[12:13], v[2:3], off nt
	global_atomic_add v15, v1, v2, s[2:3] sc0
	flat_store_dword v[12:13], v2
	flat_load_dword v16, v[12:13] offset:4
	buffer_load_dword v14, v1, s[4:7], 0 offen offset:8
	buffer_store_dword v2, off, s[4:7], s9 offset:12
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

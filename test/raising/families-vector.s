// Raising VOP1/VOP2/VOP3/VOPC/VOP3P (with DPP and SDWA forms) and MFMA: float and integer
// inline constants keep their kind, literals are i32, modifiers by the table's names.
// RUN: gcnforge raise %s | filecheck %s
// RUN: gcnforge raise %s --check-roundtrip -o %t.mlir 2>&1 | filecheck %s --check-prefix=RT

// CHECK-DAG: arith.constant 1.000000e+00 : f32
// CHECK-DAG: arith.constant 4660 : i32
// CHECK: amdgcn.vop1 v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<1>, f32
// CHECK: amdgcn.vop1 v_cvt_f32_i32_e32 {{.*}} : !amdgcn.vgpr<20>, !amdgcn.vgpr<1>
// CHECK: amdgcn.vop2 v_add_f32_e32 {{.*}} : !amdgcn.vgpr<2>, f32, !amdgcn.vgpr<1>
// CHECK: amdgcn.vop2 v_sub_u32_e32 {{.*}} : !amdgcn.vgpr<21>, i32, !amdgcn.vgpr<2>
// CHECK: amdgcn.vop3 v_fma_f32 {{.*}} neg0 abs1 {{.*}} : !amdgcn.vgpr<3>, !amdgcn.vgpr<1>, !amdgcn.vgpr<2>, !amdgcn.sgpr<6>
// CHECK: amdgcn.vop3 v_add_f32_e64 {{.*}} clamp omod = 1
// CHECK: amdgcn.vopc v_cmp_gt_f32_e32 {{.*}} : !amdgcn.vgpr<2>, !amdgcn.vgpr<1>
// CHECK: amdgcn.vop3 v_cmp_eq_u32_e64 {{.*}} : !amdgcn.sgpr<[4 : 6]>, i32, !amdgcn.vgpr<1>
// CHECK: amdgcn.vop2 v_cndmask_b32_e32
// CHECK: amdgcn.vop3p v_pk_fma_f16 {{.*}} op_sel = [1, 0, 0] op_sel_hi = [0, 1, 1]
// CHECK: amdgcn.vop1 v_mov_b32_dpp {{.*}} dpp_ctrl = 273 row_mask = 15 bank_mask = 15 bound_ctrl
// CHECK: amdgcn.vop2 v_add_u32_sdwa {{.*}} dst_sel = WORD_1 dst_unused = UNUSED_PAD src0_sel = BYTE_0 src1_sel = DWORD
// CHECK: amdgcn.mfma v_mfma_f32_32x32x8_f16 {{.*}} cbsz = 1 abid = 1 blgp = 2 {{.*}} : !amdgcn.agpr<[0 : 16]>, !amdgcn.vgpr<[6 : 8]>, !amdgcn.vgpr<[8 : 10]>, i32
// DGEMM negation (encoded in BLGP) is the table's neg modifier, not an opaque lift.inst:
// CHECK: amdgcn.mfma v_mfma_f64_16x16x4_f64 {{.*}} neg = [1, 0, 1]
// CHECK: amdgcn.vop3p v_accvgpr_read_b32 {{.*}} : !amdgcn.vgpr<25>, !amdgcn.agpr<3>
// RT: round trip byte-identical
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl k
	.p2align 8
	.type k,@function
k:
	v_mov_b32_e32 v1, 1.0
	v_cvt_f32_i32_e32 v20, v1
	v_add_f32_e32 v2, 0.5, v1
	v_sub_u32_e32 v21, 0x1234, v2
	v_fma_f32 v3, -v1, |v2|, s6
	v_add_f32_e64 v22, v1, v2 clamp mul:2
	v_cmp_gt_f32_e32 vcc, v2, v1
	v_cmp_eq_u32_e64 s[4:5], 3, v1
	v_cndmask_b32_e32 v4, v1, v2, vcc
	v_pk_fma_f16 v5, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[0,1,1]
	v_mov_b32_dpp v23, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
	v_add_u32_sdwa v24, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
	v_mfma_f32_32x32x8_f16 a[0:15], v[6:7], v[8:9], 0 cbsz:1 abid:1 blgp:2
	v_mfma_f64_16x16x4_f64 v[8:15], v[6:7], v[4:5], v[8:15] neg:[1,0,1]
	v_accvgpr_read_b32 v25, a3
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

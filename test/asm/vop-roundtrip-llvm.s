// REQUIRES: llvm
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding %s | grep -v amdgcn_target > %t.llvm
// RUN: gcnforge as %s > %t.ours
// RUN: diff -b %t.llvm %t.ours
// Vector-ALU forms (VOP1/2/C, VOP3A/B, VOP3P, MAI, DPP, SDWA): text and bytes as llvm-mc prints them.
v_add_f32 v1, v2, v3
v_add_f32 v1, v2, s3
v_add_f32_e64 v1, -|v2|, 0.5 clamp mul:2
v_mov_b32 v1, 0x40490fdb
v_add_f16 v1, 1.5, v2
v_fma_f64 v[0:1], -v[2:3], |v[4:5]|, 1.0
v_cmp_lt_f32 vcc, s1, v2
v_cmp_lt_f32 s[4:5], v1, 2.0
v_cmpx_eq_u32 vcc, -1, v2
v_cndmask_b32 v1, v2, v3, s[4:5]
v_add_co_u32 v1, vcc, v2, v3
v_addc_co_u32_e64 v1, s[6:7], v2, v3, s[8:9]
v_div_scale_f32 v1, vcc, v2, v3, v4
v_mad_u64_u32 v[0:1], s[2:3], v2, v3, v[4:5]
v_readlane_b32 s1, v2, 5
v_writelane_b32 v1, s2, m0
v_readfirstlane_b32 s7, v9
v_fmamk_f32 v1, v2, 0x3fc00000, v3
v_mad_f16 v1, v2, v3, v4 op_sel:[1,0,1,1] clamp
v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,0,1]
v_pk_mul_f32 v[0:1], v[2:3], v[4:5] op_sel_hi:[0,1]
v_fma_mix_f32 v0, -|v1|, v2, v3 op_sel:[1,0,0] op_sel_hi:[1,1,1]
v_dot4_i32_i8 v1, v2, v3, v4 clamp
v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3
v_mfma_f32_16x16x32_fp8_bf8 v[0:3], a[4:5], v[6:7], 0
v_mfma_f32_16x16x8_xf32 a[0:3], v[4:5], v[6:7], a[0:3]
v_mfma_f64_16x16x4_f64 a[0:7], v[0:1], v[2:3], a[0:7] neg:[1,0,1]
v_smfmac_f32_16x16x64_fp8_fp8 v[0:3], v[4:5], v[6:9], v10 cbsz:2 abid:1
v_accvgpr_read_b32 v1, a2
v_accvgpr_write_b32 a1, 7
v_accvgpr_mov_b32 a1, a2
v_mov_b32_dpp v1, v2 quad_perm:[3,2,1,0] row_mask:0x5 bank_mask:0xa bound_ctrl:0
v_add_f32 v1, -v2, |v3| row_shr:4
v_mov_b64_dpp v[0:1], v[2:3] row_newbcast:3
v_add_u32_sdwa v1, sext(v2), v3 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:WORD_0
v_cmp_gt_f16_sdwa s[4:5], -v1, v2 src0_sel:WORD_1 src1_sel:WORD_0
v_mov_b32 v1, src_shared_base
v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1]
v_nop

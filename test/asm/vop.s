// RUN: gcnforge as %s | filecheck %s
// Vector-ALU encodings and the canonical text (expected values from LLVM 22 llvm-mc -show-encoding).

v_add_f32 v1, v2, v3
// CHECK: v_add_f32_e32 v1, v2, v3 ; encoding: [0x02,0x07,0x02,0x02]
v_add_f32 v1, v2, s3
// CHECK: v_add_f32_e64 v1, v2, s3 ; encoding: [0x01,0x00,0x01,0xd1,0x02,0x07,0x00,0x00]
v_add_f32_e64 v1, -|v2|, 0.5 clamp mul:2
// CHECK: v_add_f32_e64 v1, -|v2|, 0.5 clamp mul:2 ; encoding: [0x01,0x81,0x01,0xd1,0x02,0xe1,0x01,0x28]
v_mov_b32 v1, 0x40490fdb
// CHECK: v_mov_b32_e32 v1, 0x40490fdb ; encoding: [0xff,0x02,0x02,0x7e,0xdb,0x0f,0x49,0x40]
v_add_f16 v1, 1.5, v2
// CHECK: v_add_f16_e32 v1, 0x3e00, v2 ; encoding: [0xff,0x04,0x02,0x3e,0x00,0x3e,0x00,0x00]
v_fma_f64 v[0:1], -v[2:3], |v[4:5]|, 1.0
// CHECK: v_fma_f64 v[0:1], -v[2:3], |v[4:5]|, 1.0 ; encoding: [0x00,0x02,0xcc,0xd1,0x02,0x09,0xca,0x23]
v_cmp_lt_f32 vcc, s1, v2
// CHECK: v_cmp_lt_f32_e32 vcc, s1, v2 ; encoding: [0x01,0x04,0x82,0x7c]
v_cmp_lt_f32 s[4:5], v1, 2.0
// CHECK: v_cmp_lt_f32_e64 s[4:5], v1, 2.0 ; encoding: [0x04,0x00,0x41,0xd0,0x01,0xe9,0x01,0x00]
v_cmpx_eq_u32 vcc, -1, v2
// CHECK: v_cmpx_eq_u32_e32 vcc, -1, v2 ; encoding: [0xc1,0x04,0xb4,0x7d]
v_cndmask_b32 v1, v2, v3, s[4:5]
// CHECK: v_cndmask_b32_e64 v1, v2, v3, s[4:5] ; encoding: [0x01,0x00,0x00,0xd1,0x02,0x07,0x12,0x00]
v_add_co_u32 v1, vcc, v2, v3
// CHECK: v_add_co_u32_e32 v1, vcc, v2, v3 ; encoding: [0x02,0x07,0x02,0x32]
v_addc_co_u32_e64 v1, s[6:7], v2, v3, s[8:9]
// CHECK: v_addc_co_u32_e64 v1, s[6:7], v2, v3, s[8:9] ; encoding: [0x01,0x06,0x1c,0xd1,0x02,0x07,0x22,0x00]
v_div_scale_f32 v1, vcc, v2, v3, v4
// CHECK: v_div_scale_f32 v1, vcc, v2, v3, v4 ; encoding: [0x01,0x6a,0xe0,0xd1,0x02,0x07,0x12,0x04]
v_mad_u64_u32 v[0:1], s[2:3], v2, v3, v[4:5]
// CHECK: v_mad_u64_u32 v[0:1], s[2:3], v2, v3, v[4:5] ; encoding: [0x00,0x02,0xe8,0xd1,0x02,0x07,0x12,0x04]
v_readlane_b32 s1, v2, 5
// CHECK: v_readlane_b32 s1, v2, 5 ; encoding: [0x01,0x00,0x89,0xd2,0x02,0x0b,0x01,0x00]
v_writelane_b32 v1, s2, m0
// CHECK: v_writelane_b32 v1, s2, m0 ; encoding: [0x01,0x00,0x8a,0xd2,0x02,0xf8,0x00,0x00]
v_readfirstlane_b32 s7, v9
// CHECK: v_readfirstlane_b32 s7, v9 ; encoding: [0x09,0x05,0x0e,0x7e]
v_fmamk_f32 v1, v2, 0x3fc00000, v3
// CHECK: v_fmamk_f32 v1, v2, 0x3fc00000, v3 ; encoding: [0x02,0x07,0x02,0x2e,0x00,0x00,0xc0,0x3f]
v_mad_f16 v1, v2, v3, v4 op_sel:[1,0,1,1] clamp
// CHECK: v_mad_f16 v1, v2, v3, v4 op_sel:[1,0,1,1] clamp ; encoding: [0x01,0xe8,0x03,0xd2,0x02,0x07,0x12,0x04]
v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,0,1]
// CHECK: v_pk_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[1,0,0] neg_hi:[0,0,1] ; encoding: [0x01,0x4c,0x8e,0xd3,0x02,0x07,0x12,0x34]
v_pk_mul_f32 v[0:1], v[2:3], v[4:5] op_sel_hi:[0,1]
// CHECK: v_pk_mul_f32 v[0:1], v[2:3], v[4:5] op_sel_hi:[0,1] ; encoding: [0x00,0x40,0xb1,0xd3,0x02,0x09,0x02,0x10]
v_fma_mix_f32 v0, -|v1|, v2, v3 op_sel:[1,0,0] op_sel_hi:[1,1,1]
// CHECK: v_fma_mix_f32 v0, -|v1|, v2, v3 op_sel:[1,0,0] op_sel_hi:[1,1,1] ; encoding: [0x00,0x49,0xa0,0xd3,0x01,0x05,0x0e,0x3c]
v_dot4_i32_i8 v1, v2, v3, v4 clamp
// CHECK: v_dot4_i32_i8 v1, v2, v3, v4 clamp ; encoding: [0x01,0xc0,0xa8,0xd3,0x02,0x07,0x12,0x1c]
v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3
// CHECK: v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3 ; encoding: [0x00,0x91,0xcc,0xd3,0x00,0x05,0x02,0x64]
v_mfma_f32_16x16x32_fp8_bf8 v[0:3], a[4:5], v[6:7], 0
// CHECK: v_mfma_f32_16x16x32_fp8_bf8 v[0:3], a[4:5], v[6:7], 0 ; encoding: [0x00,0x00,0xf2,0xd3,0x04,0x0d,0x02,0x0a]
v_mfma_f32_16x16x8_xf32 a[0:3], v[4:5], v[6:7], a[0:3]
// CHECK: v_mfma_f32_16x16x8_xf32 a[0:3], v[4:5], v[6:7], a[0:3] ; encoding: [0x00,0x80,0xbe,0xd3,0x04,0x0d,0x02,0x04]
v_mfma_f64_16x16x4_f64 a[0:7], v[0:1], v[2:3], a[0:7] neg:[1,0,1]
// CHECK: v_mfma_f64_16x16x4_f64 a[0:7], v[0:1], v[2:3], a[0:7] neg:[1,0,1] ; encoding: [0x00,0x80,0xee,0xd3,0x00,0x05,0x02,0xa4]
v_smfmac_f32_16x16x64_fp8_fp8 v[0:3], v[4:5], v[6:9], v10 cbsz:2 abid:1
// CHECK: v_smfmac_f32_16x16x64_fp8_fp8 v[0:3], v[4:5], v[6:9], v10 cbsz:2 abid:1 ; encoding: [0x00,0x0a,0xfb,0xd3,0x04,0x0d,0x2a,0x04]
v_accvgpr_read_b32 v1, a2
// CHECK: v_accvgpr_read_b32 v1, a2 ; encoding: [0x01,0x40,0xd8,0xd3,0x02,0x01,0x00,0x18]
v_accvgpr_write_b32 a1, 7
// CHECK: v_accvgpr_write_b32 a1, 7 ; encoding: [0x01,0x40,0xd9,0xd3,0x87,0x00,0x00,0x18]
v_accvgpr_mov_b32 a1, a2
// CHECK: v_accvgpr_mov_b32 a1, a2 ; encoding: [0x02,0xa5,0x02,0x7e]
v_mov_b32_dpp v1, v2 quad_perm:[3,2,1,0] row_mask:0x5 bank_mask:0xa bound_ctrl:0
// CHECK: v_mov_b32_dpp v1, v2 quad_perm:[3,2,1,0] row_mask:0x5 bank_mask:0xa bound_ctrl:1 ; encoding: [0xfa,0x02,0x02,0x7e,0x02,0x1b,0x08,0x5a]
v_add_f32 v1, -v2, |v3| row_shr:4
// CHECK: v_add_f32_dpp v1, -v2, |v3| row_shr:4 row_mask:0xf bank_mask:0xf ; encoding: [0xfa,0x06,0x02,0x02,0x02,0x14,0x91,0xff]
v_mov_b64_dpp v[0:1], v[2:3] row_newbcast:3
// CHECK: v_mov_b64_dpp v[0:1], v[2:3] row_newbcast:3 row_mask:0xf bank_mask:0xf ; encoding: [0xfa,0x70,0x00,0x7e,0x02,0x53,0x01,0xff]
v_add_u32_sdwa v1, sext(v2), v3 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:WORD_0
// CHECK: v_add_u32_sdwa v1, sext(v2), v3 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_1 src1_sel:WORD_0 ; encoding: [0xf9,0x06,0x02,0x68,0x02,0x0d,0x09,0x04]
v_cmp_gt_f16_sdwa s[4:5], -v1, v2 src0_sel:WORD_1 src1_sel:WORD_0
// CHECK: v_cmp_gt_f16_sdwa s[4:5], -v1, v2 src0_sel:WORD_1 src1_sel:WORD_0 ; encoding: [0xf9,0x04,0x48,0x7c,0x01,0x84,0x15,0x04]
v_mov_b32 v1, src_shared_base
// CHECK: v_mov_b32_e32 v1, src_shared_base ; encoding: [0xeb,0x02,0x02,0x7e]
v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1]
// CHECK: v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1] ; encoding: [0x01,0x40,0xa2,0xd2,0x02,0x07,0x02,0x00]
v_nop
// CHECK: v_nop ; encoding: [0x00,0x00,0x00,0x7e]

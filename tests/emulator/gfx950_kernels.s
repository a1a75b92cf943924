// Hand-written gfx950 kernels (assembled by llvm-mc -mcpu=gfx950 in the tests) for what the clang
// suite does not reach. Each stores result k of lane l at out[k*64 + l] (out = kernarg dword 0-1).
.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.text
.macro KERNEL name
.globl \name
.p2align 8
.type \name,@function
\name:
.endm

// LDS past gfx942's 64 KiB: lane l writes 1000+l at 0x27f00 + 4l (the last 256 bytes of 160 KiB)
KERNEL lds_big
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_add_u32_e32 v1, 0x27f00, v20
  v_add_u32_e32 v2, 0x3e8, v0
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v3, v1
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v3, s[4:5]
  s_endpgm

// The VALU additions. Inputs (kernarg 8: in): A f32 at in+0, B f32 at +256, S (scale f32) at
// +512, R (u32 random) at +768, P (packed codes) at +1024, H (packed f16/bf16) at +1280, H2 at +1536.
KERNEL valu
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v1, v20, s[6:7]
  global_load_dword v2, v20, s[6:7] offset:256
  global_load_dword v3, v20, s[6:7] offset:512
  global_load_dword v4, v20, s[6:7] offset:768
  global_load_dword v5, v20, s[6:7] offset:1024
  global_load_dword v6, v20, s[6:7] offset:1280
  global_load_dword v7, v20, s[6:7] offset:1536
  s_waitcnt vmcnt(0)
  v_mov_b32_e32 v10, 0
  v_mov_b32_e32 v11, 0x12345678
  v_mov_b32_e32 v12, 0x12345678
  v_mov_b32_e32 v13, 0x12345678
  v_mov_b32_e32 v27, 0x12345678
  v_mov_b32_e32 v32, 0x12345678
  v_mov_b32_e32 v34, 0x12345678
  v_mov_b32_e32 v42, 0x12345678
  v_mov_b32_e32 v44, 0x12345678
  v_cvt_scalef32_pk_fp8_f32 v10, v1, v2, v3
  v_cvt_scalef32_pk_bf8_f32 v11, v1, v2, v3 op_sel:[0,0,0,1]
  v_cvt_scalef32_sr_fp8_f32 v12, v1, v4, v3 op_sel:[0,0,1,0]
  v_cvt_scalef32_pk_fp4_f32 v13, v1, v2, v3 op_sel:[0,0,1,1]
  v_cvt_scalef32_pk_f32_fp8 v[14:15], v5, v3 op_sel:[1,0]
  v_cvt_scalef32_f32_bf8 v16, v5, v3 op_sel:[1,1]
  v_cvt_scalef32_pk_f32_fp4 v[50:51], v5, v3 op_sel:[0,1]
  v_mov_b32_e32 v17, v50
  v_mov_b32_e32 v18, v51
  v_cvt_scalef32_pk_f16_fp8 v19, v5, v3
  v_cvt_scalef32_pk_bf16_bf8 v21, v5, v3 op_sel:[1,0]
  v_cvt_scalef32_pk_fp8_f16 v22, v6, v3
  v_mov_b32_e32 v8, v1
  v_mov_b32_e32 v9, v2
  v_cvt_scalef32_sr_pk_fp4_f32 v23, v[8:9], v4, v3
  v_cvt_pk_f16_f32 v24, v1, v2
  v_cvt_pk_bf16_f32 v25, v1, v2
  v_cvt_sr_bf16_f32 v26, v1, v4
  v_cvt_sr_f16_f32 v27, v1, v4 op_sel:[0,0,1]
  v_cvt_pk_fp8_f32 v28, v1, v2
  v_cvt_f32_fp8_e32 v29, v5
  v_prng_b32 v30, v4
  v_bitop3_b32 v31, v1, v2, v4 bitop3:0xe8
  v_bitop3_b16 v32, v1, v2, v4 bitop3:0x96 op_sel:[1,0,1,1]
  v_ashr_pk_i8_i32 v33, v1, v2, v4
  v_ashr_pk_u8_i32 v34, v1, v2, v4 op_sel:[0,0,0,1]
  v_minimum3_f32 v35, v1, v2, v6
  v_maximum3_f32 v36, v1, v2, v6
  v_pk_minimum3_f16 v37, v6, v7, v5
  v_mov_b32_e32 v38, v1
  v_mov_b32_e32 v39, v2
  s_nop 1  // a VALU write read by v_permlane*_swap: 2 wait states (gfx950, clang pads s_nop 1)
  v_permlane16_swap_b32 v38, v39
  v_mov_b32_e32 v45, v1
  v_mov_b32_e32 v46, v2
  s_nop 1
  v_permlane32_swap_b32_e64 v45, v46
  v_cvt_f32_bf16_e32 v40, v6
  v_mov_b32_e32 v41, v1
  v_dot2c_f32_bf16_e32 v41, v6, v7
  v_cvt_scalef32_f16_fp8 v42, v5, v3 op_sel:[0,1,1]
  v_cvt_scalef32_pk_fp4_bf16 v43, v6, v3
  v_cvt_scalef32_sr_bf8_bf16 v44, v6, v4, v3 op_sel:[0,0,0,1]
  v_pk_maximum3_f16 v47, v6, v7, v5 op_sel:[1,0,0] op_sel_hi:[0,1,1]
  v_cvt_pk_f32_bf8_sdwa v[48:49], v5 src0_sel:WORD_1
  v_prng_b32_dpp v52, v4 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_mov_b32_e32 v54, v1
  v_dot2c_f32_bf16_dpp v54, v6, v7 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  v_cvt_f32_bf16_sdwa v53, -v6 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  s_nop 1
.irp r, 10,11,12,13,14,15,16,17,18,19,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,45,46,40,41,42,43,44,47,48,49,52,53,54
  global_store_dword v20, v\r, s[4:5]
  v_add_u32_e32 v20, 0x100, v20
.endr
  s_endpgm

// Loads to LDS of 3 and 4 dwords and the transposing LDS reads. Inputs (kernarg 8: in):
// 64 x 16 bytes at in (lane l's 16 bytes at in + 16l) and a byte pattern at in + 1024 (2 KiB).
KERNEL mem
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_lshlrev_b32_e32 v21, 4, v0
  v_mov_b32_e32 v1, 0xaaaaaaaa
  v_add_u32_e32 v2, 0x1000, v21
  ds_write_b32 v2, v1 offset:12
  s_waitcnt lgkmcnt(0)
  s_mov_b32 m0, 0
  s_nop 0
  global_load_lds_dwordx4 v21, s[6:7]
  s_mov_b32 m0, 0x1000
  s_nop 0
  global_load_lds_dwordx3 v21, s[6:7]
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_mov_b32 s10, 0x10000
  s_mov_b32 s11, 0x27000
  s_mov_b32 m0, 0x2000
  s_nop 0
  buffer_load_dwordx4 v21, s[8:11], 0 offen lds
  s_waitcnt vmcnt(0)
  ds_read_b128 v[4:7], v21
  ds_read_b128 v[8:11], v21 offset:4096
  ds_read_b128 v[12:15], v21 offset:8192
  // the byte pattern into LDS 0x3000.. (2 KiB: lane l copies bytes 32l .. 32l+31)
  v_lshlrev_b32_e32 v22, 5, v0
  s_add_u32 s12, s6, 0x400
  s_addc_u32 s13, s7, 0
  global_load_dwordx4 v[24:27], v22, s[12:13]
  global_load_dwordx4 v[28:31], v22, s[12:13] offset:16
  s_waitcnt vmcnt(0)
  v_add_u32_e32 v23, 0x3000, v22
  ds_write_b128 v23, v[24:27]
  ds_write_b128 v23, v[28:31] offset:16
  s_waitcnt lgkmcnt(0)
  // each lane reads at 0x3000 + 8*lane (16*lane for b96: 128-bit aligned)
  v_lshlrev_b32_e32 v32, 3, v0
  v_add_u32_e32 v32, 0x3000, v32
  v_lshlrev_b32_e32 v33, 4, v0
  v_add_u32_e32 v33, 0x3000, v33
  ds_read_b64_tr_b16 v[34:35], v32
  ds_read_b64_tr_b8 v[36:37], v32
  ds_read_b64_tr_b4 v[38:39], v32
  ds_read_b96_tr_b6 v[40:42], v33
  s_waitcnt lgkmcnt(0)
.irp r, 4,5,6,7,8,9,10,11,12,13,14,15,34,35,36,37,38,39,40,41,42
  global_store_dword v20, v\r, s[4:5]
  v_add_u32_e32 v20, 0x100, v20
.endr
  s_endpgm

// a transposing read with half the lanes off, and one at an address not 8-byte aligned
KERNEL tr_bad
  v_lshlrev_b32_e32 v1, 3, v0
  s_load_dword s2, s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  s_cmp_eq_u32 s2, 0
  s_cbranch_scc1 .Lmis
  s_mov_b64 exec, 0xffffffff
  ds_read_b64_tr_b16 v[2:3], v1
  s_endpgm
.Lmis:
  v_add_u32_e32 v1, 4, v1
  ds_read_b64_tr_b8 v[2:3], v1
  s_endpgm

.rodata
.macro KD name, lds=0
.p2align 6
.amdhsa_kernel \name
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_group_segment_fixed_size \lds
  .amdhsa_next_free_vgpr 64
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 64
.end_amdhsa_kernel
.endm
KD lds_big, 163840
KD valu
KD mem, 16384
KD tr_bad, 1024

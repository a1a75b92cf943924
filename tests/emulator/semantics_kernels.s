// Hand-written kernels for instructions clang does not emit for the OpenCL suite:
// VGPR indexing mode (gfx942 has no v_movrel*), lane access, v_cmpx, DS read2/write2/b96, idxen buffers,
// SDWA, s_setvskip, s_trap. Each stores result k of lane l at out[k*64 + l] (out = kernarg dword 0-1).
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.macro KERNEL name
.globl \name
.p2align 8
.type \name,@function
\name:
.endm

KERNEL gpr_idx
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_add_u32_e32 v1, 100, v0
  v_add_u32_e32 v2, 0xc8, v0
  v_add_u32_e32 v3, 0x12c, v0
  v_add_u32_e32 v4, 0x190, v0
  v_add_u32_e32 v5, 0x1f4, v0
  v_add_u32_e32 v6, 0x258, v0
  s_mov_b32 s7, 0
  s_mov_b32 s6, 3
  s_set_gpr_idx_on s6, gpr_idx(SRC0)
  v_mov_b32_e32 v10, v1
  s_set_gpr_idx_off
  s_mov_b32 s6, 5
  s_set_gpr_idx_on s6, gpr_idx(DST)
  v_mov_b32_e32 v1, v0
  s_set_gpr_idx_idx s7
  v_mov_b32_e32 v11, v3
  s_set_gpr_idx_off
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v10, s[4:5]
  global_store_dword v20, v11, s[4:5] offset:256
  global_store_dword v20, v6, s[4:5] offset:512
  global_store_dword v20, v1, s[4:5] offset:768
  s_endpgm

KERNEL gpr_idx_acc
  // AccVGPR operands under VGPR indexing (the epilogue pattern of aiter's gfx950 f4gemm):
  // a[k] = 100*k + lane, then SRC0-indexed v_accvgpr_read and DST-indexed v_accvgpr_write.
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_accvgpr_write_b32 a0, v0
  v_add_u32_e32 v1, 100, v0
  v_accvgpr_write_b32 a1, v1
  v_add_u32_e32 v1, 0xc8, v0
  v_accvgpr_write_b32 a2, v1
  v_add_u32_e32 v1, 0x12c, v0
  v_accvgpr_write_b32 a3, v1
  v_add_u32_e32 v1, 0x190, v0
  v_accvgpr_write_b32 a4, v1
  v_add_u32_e32 v1, 0x1f4, v0
  v_accvgpr_write_b32 a5, v1
  v_add_u32_e32 v1, 0x258, v0
  v_accvgpr_write_b32 a6, v1
  s_nop 4
  s_mov_b32 s6, 4
  s_set_gpr_idx_on s6, gpr_idx(SRC0)
  v_accvgpr_read_b32 v10, a1
  s_set_gpr_idx_off
  s_mov_b32 s6, 2
  s_set_gpr_idx_on s6, gpr_idx(DST)
  v_accvgpr_write_b32 a1, v20
  s_set_gpr_idx_off
  s_nop 4
  v_accvgpr_read_b32 v11, a3
  v_accvgpr_read_b32 v12, a1
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v10, s[4:5]
  global_store_dword v20, v11, s[4:5] offset:256
  global_store_dword v20, v12, s[4:5] offset:512
  s_endpgm

KERNEL lane_ops
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  s_movk_i32 s6, 0x1234
  v_mov_b32_e32 v1, v0
  v_writelane_b32 v1, s6, 7
  v_readlane_b32 s7, v0, 9
  s_nop 1
  v_mov_b32_e32 v2, s7
  v_mov_b32_e32 v3, 0
  v_cmpx_gt_u32_e32 vcc, 32, v0
  v_mov_b32_e32 v3, -1
  s_mov_b64 exec, -1
  v_mbcnt_lo_u32_b32 v4, vcc_lo, 0
  v_mbcnt_hi_u32_b32 v4, vcc_hi, v4
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v1, s[4:5]
  global_store_dword v20, v2, s[4:5] offset:256
  global_store_dword v20, v3, s[4:5] offset:512
  global_store_dword v20, v4, s[4:5] offset:768
  s_endpgm

KERNEL ds_ops
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_lshlrev_b32_e32 v21, 3, v0
  v_lshlrev_b32_e32 v24, 4, v0
  v_mov_b32_e32 v2, v0
  v_add_u32_e32 v3, 0x3e8, v0
  v_add_u32_e32 v4, 0x7d0, v0
  v_add_u32_e32 v5, 0xbb8, v0
  ds_write2_b64 v21, v[2:3], v[4:5] offset1:64
  s_waitcnt lgkmcnt(0)
  ds_read2st64_b32 v[6:7], v20 offset1:2
  ds_read_b96 v[8:10], v24
  v_mov_b32_e32 v22, 0x600
  v_mov_b32_e32 v23, 1
  ds_add_rtn_u32 v11, v22, v23
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v12, v22
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v6, s[4:5]
  global_store_dword v20, v7, s[4:5] offset:256
  global_store_dword v20, v8, s[4:5] offset:512
  global_store_dword v20, v9, s[4:5] offset:768
  global_store_dword v20, v10, s[4:5] offset:1024
  global_store_dword v20, v11, s[4:5] offset:1280
  global_store_dword v20, v12, s[4:5] offset:1536
  s_endpgm

KERNEL buffer_idxen
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_or_b32 s9, s9, 0x80000
  s_mov_b32 s10, 32
  s_mov_b32 s11, 0x00027000
  buffer_load_dword v1, v0, s[8:11], 0 idxen offset:4
  s_waitcnt vmcnt(0)
  global_store_dword v20, v1, s[4:5]
  s_endpgm

KERNEL sdwa_ops
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_mul_u32_u24_e32 v2, 0x101, v0
  v_add_u32_e32 v2, 0x300, v2
  v_mov_b32_e32 v3, v0
  v_mov_b32_e32 v1, 0xaaaa5555
  v_add_u32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:BYTE_0
  v_mov_b32_e32 v4, 0x80
  v_mov_b32_sdwa v5, v4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0
  v_cvt_f32_f16_sdwa v6, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v1, s[4:5]
  global_store_dword v20, v5, s[4:5] offset:256
  global_store_dword v20, v6, s[4:5] offset:512
  s_endpgm

// loads straight into LDS through M0 (global_load_lds_dword, buffer_load_dword ... lds)
KERNEL lds_dma
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  s_mov_b32 m0, 0x100
  s_waitcnt lgkmcnt(0)
  global_load_lds_dword v20, s[6:7]
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_mov_b32 s10, 0x100
  s_mov_b32 s11, 0x00027000
  s_mov_b32 m0, 0x200
  s_nop 0
  buffer_load_dword v20, s[8:11], 0 offen lds
  s_waitcnt vmcnt(0)
  ds_read_b32 v1, v20 offset:256
  ds_read_b32 v2, v20 offset:512
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v1, s[4:5]
  global_store_dword v20, v2, s[4:5] offset:256
  s_endpgm

// LDS DMA lands when vmcnt retires it: LDS holds 1000+l twice; two DMAs refill both halves
// (src[l], then src[64+l]); reads before s_waitcnt vmcnt, between vmcnt(1) and vmcnt(0), after
KERNEL lds_dma_return
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_add_u32_e32 v21, 0x100, v20
  v_add_u32_e32 v1, 0x3e8, v0
  ds_write_b32 v20, v1
  ds_write_b32 v20, v1 offset:256
  s_mov_b32 m0, 0
  s_waitcnt lgkmcnt(0)
  global_load_lds_dword v20, s[6:7]
  s_mov_b32 m0, 0x100
  s_nop 0
  global_load_lds_dword v21, s[6:7]
  ds_read_b32 v2, v20
  s_waitcnt vmcnt(1)
  ds_read_b32 v3, v20
  ds_read_b32 v4, v20 offset:256
  s_waitcnt vmcnt(0)
  ds_read_b32 v5, v20 offset:256
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v2, s[4:5]
  global_store_dword v20, v3, s[4:5] offset:256
  global_store_dword v20, v4, s[4:5] offset:512
  global_store_dword v20, v5, s[4:5] offset:768
  s_endpgm

// two waves: wave 1 DMAs src[l] into LDS[4l] and goes to the barrier without waiting; wave 0
// spins s10 (kernarg dword 4) times, then writes 7 there; after the barrier both spin 400 times
// and read it back
KERNEL lds_dma_order
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dword s10, s[0:1], 0x10
  v_and_b32_e32 v20, 63, v0
  v_lshlrev_b32_e32 v20, 2, v20
  v_lshrrev_b32_e32 v1, 6, v0
  v_readfirstlane_b32 s8, v1
  s_waitcnt lgkmcnt(0)
  s_cmp_eq_u32 s8, 0
  s_cbranch_scc0 .Lorder_dma
.Lorder_spin:
  s_cmp_eq_u32 s10, 0
  s_cbranch_scc1 .Lorder_write
  s_sub_u32 s10, s10, 1
  s_branch .Lorder_spin
.Lorder_write:
  v_mov_b32_e32 v2, 7
  ds_write_b32 v20, v2
  s_waitcnt lgkmcnt(0)
  s_branch .Lorder_join
.Lorder_dma:
  s_mov_b32 m0, 0
  global_load_lds_dword v20, s[6:7]
.Lorder_join:
  s_barrier
  s_movk_i32 s11, 0x190
.Lorder_late:
  s_sub_u32 s11, s11, 1
  s_cmp_eq_u32 s11, 0
  s_cbranch_scc0 .Lorder_late
  ds_read_b32 v3, v20
  v_lshlrev_b32_e32 v21, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v21, v3, s[4:5]
  s_endpgm

// the out pointer arrives preloaded in s[2:3] (gfx942 kernarg preloading), no s_load
KERNEL preload
  v_lshlrev_b32_e32 v20, 2, v0
  v_add_u32_e32 v1, 7, v0
  global_store_dword v20, v1, s[2:3]
  s_endpgm

// lane-mask SALU ops and a scalar atomic
KERNEL salu_misc
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  s_mov_b64 s[6:7], 16
  s_wqm_b64 s[8:9], s[6:7]
  s_mov_b32 s10, 0xf00f01
  s_quadmask_b32 s11, s10
  s_mov_b32 s12, 5
  s_bitreplicate_b64_b32 s[14:15], s12
  s_mov_b32 s13, 3
  s_waitcnt lgkmcnt(0)
  s_atomic_add s13, s[4:5], 0x400 glc
  s_waitcnt lgkmcnt(0)
  v_mov_b32_e32 v1, s8
  v_mov_b32_e32 v2, s11
  v_mov_b32_e32 v3, s14
  v_mov_b32_e32 v4, s13
  global_store_dword v20, v1, s[4:5]
  global_store_dword v20, v2, s[4:5] offset:256
  global_store_dword v20, v3, s[4:5] offset:512
  global_store_dword v20, v4, s[4:5] offset:768
  s_endpgm

// wave 1 spins on an LDS flag that wave 0 sets; the spinner sits at the lower PC
KERNEL spin_wait
  v_mov_b32_e32 v1, 0
  v_cmp_gt_u32_e32 vcc, 64, v0
  s_cbranch_vccnz .Lproducer
.Lspin:
  ds_read_b32 v2, v1
  s_waitcnt lgkmcnt(0)
  v_cmp_eq_u32_e32 vcc, 0, v2
  s_cbranch_vccnz .Lspin
  s_endpgm
.Lproducer:
  v_mov_b32_e32 v3, 1
  s_nop 7
  s_nop 7
  ds_write_b32 v1, v3
  s_endpgm

// 16-bit results: v_add_f16 zeroes the high half, v_fma_f16 keeps it, op_sel dst bit writes it
KERNEL half_dst
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_mov_b32_e32 v2, 0x3c00
  v_mov_b32_e32 v1, 0xdead0000
  v_mov_b32_e32 v3, 0xbeef0000
  v_mov_b32_e32 v4, 0x12340000
  v_add_f16_e32 v1, v2, v2
  v_fma_f16 v3, v2, v2, v2
  v_fma_f16 v4, v2, v2, v2 op_sel:[0,0,0,1]
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v1, s[4:5]
  global_store_dword v20, v3, s[4:5] offset:256
  global_store_dword v20, v4, s[4:5] offset:512
  s_endpgm

// s_setvskip: while VSKIP is set no vector instruction issues (no VGPR, EXEC/VCC or memory
// effect); scalar instructions still run. VSKIP = S0[S1[4:0]].
KERNEL vskip
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_mov_b32_e32 v1, 1
  v_mov_b32_e32 v2, 0x1234
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s6, 2
  s_setvskip s6, 0
  v_mov_b32_e32 v3, 7
  ds_write_b32 v20, v1
  s_setvskip s6, 1
  v_mov_b32_e32 v1, 2
  v_cmpx_gt_u32_e32 vcc, 32, v0
  global_store_dword v20, v2, s[4:5] offset:256
  ds_write_b32 v20, v2
  s_mov_b32 s7, 5
  s_setvskip 0, 0
  v_add_u32_e32 v1, s7, v1
  ds_read_b32 v4, v20
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v1, s[4:5]
  global_store_dword v20, v3, s[4:5] offset:512
  global_store_dword v20, v4, s[4:5] offset:768
  s_endpgm

KERNEL trap
  s_trap 2
  s_endpgm

// packed f32 with SGPR-pair and inline-constant sources under a partial EXEC
KERNEL pk_f32
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v20, 2, v0
  v_cvt_f32_u32_e32 v2, v0
  v_add_f32_e32 v3, 0.5, v2
  v_mov_b32_e32 v4, 0
  v_mov_b32_e32 v5, 0
  v_mov_b32_e32 v6, 0
  v_mov_b32_e32 v7, 0
  v_mov_b32_e32 v8, 0
  v_mov_b32_e32 v9, 0
  s_mov_b32 s8, 0x40400000
  s_mov_b32 s9, 0xc0000000
  s_mov_b64 s[10:11], exec
  s_mov_b32 exec_lo, 0xffff0fff
  s_mov_b32 exec_hi, 0x0000ffff
  v_pk_fma_f32 v[4:5], v[2:3], s[8:9], 1.0 op_sel_hi:[1,1,0]
  v_pk_mul_f32 v[6:7], s[8:9], v[2:3] op_sel_hi:[0,1]
  v_pk_add_f32 v[8:9], v[2:3], 1.0 op_sel_hi:[1,0] neg_hi:[1,0]
  s_mov_b64 exec, s[10:11]
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v4, s[4:5]
  global_store_dword v20, v5, s[4:5] offset:256
  global_store_dword v20, v6, s[4:5] offset:512
  global_store_dword v20, v7, s[4:5] offset:768
  global_store_dword v20, v8, s[4:5] offset:1024
  global_store_dword v20, v9, s[4:5] offset:1280
  s_endpgm

.rodata
.p2align 6
.macro KD name, lds=0, vgprs=32
.amdhsa_kernel \name
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_group_segment_fixed_size \lds
  .amdhsa_next_free_vgpr \vgprs
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 32
.end_amdhsa_kernel
.endm
KD gpr_idx
KD gpr_idx_acc, 0, 40
KD lane_ops
KD ds_ops, 2048
KD buffer_idxen
KD sdwa_ops
KD lds_dma, 1024
KD lds_dma_return, 512
KD lds_dma_order, 256
.amdhsa_kernel preload
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_kernarg_preload_length 2
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 32
.end_amdhsa_kernel
KD salu_misc
KD spin_wait, 64
KD half_dst
KD vskip, 256
KD trap
KD pk_f32

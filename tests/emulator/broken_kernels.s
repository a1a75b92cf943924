// Deliberately broken kernels, one (or more) per sanitizer check. Each kernel takes a
// kernarg segment of one pointer (s[0:1] -> kernarg; s2 = workgroup id x).
// Assembled in the tests with llvm-mc and linked with ld.lld.
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text

.macro KERNEL name
.globl \name
.p2align 8
.type \name,@function
\name:
.endm

// out-of-bounds global load: 64 dwords allocated, reads dword 64 + lane
KERNEL oob_global
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5] offset:256
  s_waitcnt vmcnt(0)
  s_endpgm

// load from an address no allocation covers
KERNEL unmapped_global
  v_mov_b32_e32 v2, 0x1000
  v_mov_b32_e32 v3, 0
  global_load_dword v4, v[2:3], off
  s_waitcnt vmcnt(0)
  s_endpgm

// 4-byte load at a 2-byte aligned address
KERNEL misaligned_global
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5] offset:2
  s_waitcnt vmcnt(0)
  s_endpgm

// buffer load inside num_records (1024 bytes) but past the 256-byte allocation: the range
// check passes, so the hardware reads memory nothing allocated
KERNEL buffer_in_range_oob
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_movk_i32 s6, 0x400
  s_mov_b32 s7, 0x00027000
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  buffer_load_dword v2, v1, s[4:7], 0 offen offset:256
  s_waitcnt vmcnt(0)
  s_endpgm

// buffer load inside num_records from a resource whose base no allocation covers
KERNEL buffer_in_range_unmapped
  s_mov_b32 s4, 0x1000
  s_mov_b32 s5, 0
  s_movk_i32 s6, 0x400
  s_mov_b32 s7, 0x00027000
  v_lshlrev_b32_e32 v1, 2, v0
  buffer_load_dword v2, v1, s[4:7], 0 offen
  s_waitcnt vmcnt(0)
  s_endpgm

// NOT broken: the production pattern of hand-written GEMM kernels (a K loop unrolled by hand).
// Stride 4 in the V#, OFFEN addressing only, the base advanced and num_records shrunk by one
// 128-byte tile per step, and the next tile prefetched before the end test, so the last
// prefetch is past the end: the range check makes it read 0 (and drops a store), which the
// hardware defines (CDNA3 ISA guide, "Range Checking").
KERNEL buffer_prefetch_past_end
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_movk_i32 s6, 0x100             // num_records: the whole 256-byte buffer
  s_mov_b32 s7, 0x00027000
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  s_or_b32 s5, s5, 0x40000         // stride 4 (word 1 bits 29:16)
  s_mov_b64 s[8:9], s[4:5]         // the original resource, kept for the result
  s_mov_b64 s[10:11], s[6:7]
  buffer_load_dword v2, v1, s[4:7], 0 offen     // tile 0: dwords 0..63
  s_add_u32 s4, s4, 0x80
  s_addc_u32 s5, s5, 0
  s_sub_u32 s6, s6, 0x80
  buffer_load_dword v3, v1, s[4:7], 0 offen     // tile 1: dwords 32..63, lanes 32..63 past the end
  s_add_u32 s4, s4, 0x80
  s_addc_u32 s5, s5, 0
  s_sub_u32 s6, s6, 0x80
  buffer_load_dword v4, v1, s[4:7], 0 offen     // tile 2: nothing left, every lane reads 0
  s_waitcnt vmcnt(0)
  v_add_u32_e32 v3, v3, v4
  buffer_store_dword v2, v1, s[4:7], 0 offen    // past the end: dropped
  buffer_store_dword v3, v1, s[8:11], 0 offen   // dword l = tile 1's lane l
  s_waitcnt vmcnt(0)
  s_endpgm

// LDS read beyond the 256-byte group segment
KERNEL oob_lds
  v_lshlrev_b32_e32 v1, 2, v0
  ds_read_b32 v2, v1 offset:1024
  s_waitcnt lgkmcnt(0)
  s_endpgm

// uses a global load's result without s_waitcnt vmcnt
KERNEL unwaited_vmem
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  v_add_u32_e32 v3, v2, v2
  s_waitcnt vmcnt(0)
  s_endpgm

// overwrites a load's destination before waiting for it (the load would land afterwards)
KERNEL unwaited_overwrite
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v1, s[4:5]
  v_mov_b32_e32 v2, 0
  s_waitcnt vmcnt(0)
  s_endpgm

// uses an SMEM result with no s_waitcnt lgkmcnt(0)
KERNEL unwaited_smem
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_add_u32 s6, s4, 4
  s_waitcnt lgkmcnt(0)
  s_endpgm

// stores v5, which nothing wrote
KERNEL uninit_store
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v5, s[4:5]
  s_endpgm

// two waves: each writes its own LDS slots, then reads the other wave's without s_barrier
KERNEL lds_race
  v_lshlrev_b32_e32 v1, 2, v0
  ds_write_b32 v1, v0
  v_add_u32_e32 v2, 64, v0
  v_and_b32_e32 v2, 0x7f, v2
  v_lshlrev_b32_e32 v2, 2, v2
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v3, v2
  s_waitcnt lgkmcnt(0)
  s_endpgm

// DPP reads a VGPR written by the previous VALU instruction (needs 2 wait states)
KERNEL hazard_dpp
  v_mov_b32_e32 v1, v0
  v_mov_b32_dpp v2, v1 row_shr:1 row_mask:0xf bank_mask:0xf
  s_endpgm

// VMEM uses an SGPR just written by a VALU instruction (needs 5 wait states)
KERNEL hazard_valu_sgpr_vmem
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_mov_b32_e32 v3, s4
  v_lshlrev_b32_e32 v1, 2, v0
  v_readfirstlane_b32 s6, v3
  s_mov_b32 s7, s5
  global_load_dword v2, v1, s[6:7]
  s_waitcnt vmcnt(0)
  s_endpgm

// reads an MFMA result one instruction after the MFMA (2 passes: needs 2 + 3)
KERNEL hazard_mfma
  v_mov_b32_e32 v4, 1.0
  v_mov_b32_e32 v5, 2.0
  s_nop 1
  v_mfma_f32_4x4x1_16b_f32 v[0:3], v4, v5, 0
  v_add_f32_e32 v6, v0, v0
  s_endpgm

// a DGEMM 16x16 result stored 10 wait states later: memory reads of a DGEMM 16x16 result
// need 18 (clang 22 emits s_nop 15 + s_nop 1 here; LLVM's DMFMA16x16WriteVgprMemExpRead)
KERNEL hazard_dgemm_store
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mov_b32_e32 v0, 0
  v_mov_b32_e32 v1, 1.0
  v_mov_b32_e32 v2, 0
  v_mov_b32_e32 v3, 2.0
  s_waitcnt lgkmcnt(0)
  s_nop 1
  v_mfma_f64_16x16x4_f64 v[0:7], v[0:1], v[2:3], 0
  s_nop 9
  global_store_dwordx2 v0, v[0:1], s[4:5]
  s_endpgm

// uses v20 with only 8 VGPRs allocated by the descriptor
KERNEL vgpr_beyond_allocation
  v_mov_b32_e32 v20, 0
  s_endpgm

// a VALU reads an SGPR the previous VALU wrote (gfx90a+: needs 2 wait states)
KERNEL hazard_valu_sgpr_valu
  v_readfirstlane_b32 s6, v0
  v_add_u32_e32 v1, s6, v0
  s_endpgm

// never ends
KERNEL endless
.Lspin:
  s_add_u32 s8, s8, 1
  s_branch .Lspin

// an LDS write still in flight at s_barrier: other waves may not see it (needs lgkmcnt(0) first)
KERNEL unwaited_barrier
  v_lshlrev_b32_e32 v1, 2, v0
  ds_write_b32 v1, v0
  s_barrier
  s_waitcnt lgkmcnt(0)
  s_endpgm

// an LDS read and a scalar load pending together: SMEM returns out of order, so lgkmcnt(1)
// proves neither done (clang waits lgkmcnt(0) here)
KERNEL unwaited_lgkm_mixed
  v_lshlrev_b32_e32 v1, 2, v0
  ds_read_b32 v2, v1
  s_load_dword s6, s[0:1], 0x0
  s_waitcnt lgkmcnt(1)
  v_add_u32_e32 v3, v2, v2
  s_waitcnt lgkmcnt(0)
  s_endpgm

// correct counterpart: waits, initializes, barriers, nops (no report expected)
KERNEL clean
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  ds_write_b32 v1, v0
  v_add_u32_e32 v2, 64, v0
  v_and_b32_e32 v2, 0x7f, v2
  v_lshlrev_b32_e32 v2, 2, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v3, v2
  s_waitcnt lgkmcnt(0)
  s_nop 1
  v_mov_b32_dpp v4, v3 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
  global_store_dword v1, v4, s[4:5]
  s_endpgm

.rodata
.p2align 6
.macro KD name, lds=0
.amdhsa_kernel \name
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_group_segment_fixed_size \lds
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.endm
KD oob_global
KD unmapped_global
KD misaligned_global
KD buffer_in_range_oob
KD buffer_in_range_unmapped
KD buffer_prefetch_past_end
KD oob_lds, 256
KD unwaited_vmem
KD unwaited_smem
KD unwaited_overwrite
KD uninit_store
KD lds_race, 512
KD hazard_dpp
KD hazard_valu_sgpr_vmem
KD hazard_mfma
KD hazard_dgemm_store
KD endless
KD hazard_valu_sgpr_valu
KD vgpr_beyond_allocation
KD unwaited_barrier, 512
KD unwaited_lgkm_mixed, 512
KD clean, 512

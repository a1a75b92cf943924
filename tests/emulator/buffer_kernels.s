// Hand-written MUBUF kernels for the buffer range-checking tests (test_buffer_bounds.py).
// Kernel arguments: out (8 bytes), vaddr array (8), a V# (16) and an SOFFSET value (4).
// Every lane loads v2 = varr[lane] and v3 = varr[64 + lane] as its VGPR index/offset, then
// runs one buffer instruction with s[8:11] as the resource and s12 as SOFFSET; result k of
// lane l goes to out[k*64 + l].
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.macro KERNEL name
.globl \name
.p2align 8
.type \name,@function
\name:
  s_load_dwordx8 s[4:11], s[0:1], 0x0
  s_load_dword s12, s[0:1], 0x20
  v_lshlrev_b32_e32 v20, 2, v0
  v_mov_b32_e32 v4, 0xdeadbeef
  v_mov_b32_e32 v5, 0xdeadbeef
  v_mov_b32_e32 v6, 0xdeadbeef
  v_mov_b32_e32 v7, 0xdeadbeef
  s_waitcnt lgkmcnt(0)
  global_load_dword v2, v20, s[6:7]
  global_load_dword v3, v20, s[6:7] offset:256
  s_waitcnt vmcnt(0)
.endm
.macro STORE4
  s_waitcnt vmcnt(0)
  global_store_dword v20, v4, s[4:5]
  global_store_dword v20, v5, s[4:5] offset:256
  global_store_dword v20, v6, s[4:5] offset:512
  global_store_dword v20, v7, s[4:5] offset:768
  s_endpgm
.endm
.macro STORE1
  s_waitcnt vmcnt(0)
  global_store_dword v20, v4, s[4:5]
  s_endpgm
.endm

KERNEL ld_off
  buffer_load_dword v4, off, s[8:11], s12 offset:8
  STORE1

KERNEL ld_offen
  buffer_load_dword v4, v2, s[8:11], s12 offen offset:4
  STORE1

KERNEL ld_offen_hi
  buffer_load_dword v4, v2, s[8:11], s12 offen offset:260
  STORE1

KERNEL ld_idxen
  buffer_load_dword v4, v2, s[8:11], s12 idxen offset:4
  STORE1

KERNEL ld_idxen_offen
  buffer_load_dword v4, v[2:3], s[8:11], s12 idxen offen
  STORE1

KERNEL ld_ubyte_offen
  buffer_load_ubyte v4, v2, s[8:11], s12 offen
  STORE1

KERNEL ld_x4_offen
  buffer_load_dwordx4 v[4:7], v2, s[8:11], s12 offen
  s_waitcnt vmcnt(0)
  global_store_dword v20, v4, s[4:5]
  global_store_dword v20, v5, s[4:5] offset:256
  global_store_dword v20, v6, s[4:5] offset:512
  global_store_dword v20, v7, s[4:5] offset:768
  s_endpgm

KERNEL st_offen
  v_add_u32_e32 v4, 0x7000, v0
  buffer_store_dword v4, v2, s[8:11], s12 offen
  s_endpgm

KERNEL st_x2_offen
  v_add_u32_e32 v4, 0x7000, v0
  v_add_u32_e32 v5, 0x8000, v0
  buffer_store_dwordx2 v[4:5], v2, s[8:11], s12 offen
  s_endpgm

KERNEL st_idxen
  v_add_u32_e32 v4, 0x7000, v0
  buffer_store_dword v4, v2, s[8:11], s12 idxen
  s_endpgm

KERNEL atomic_add_offen
  v_mov_b32_e32 v4, 1
  buffer_atomic_add v4, v2, s[8:11], s12 offen sc0
  STORE1

KERNEL ld_lds_offen
  s_mov_b32 m0, 0
  s_nop 0
  buffer_load_dword v2, s[8:11], s12 offen lds
  s_waitcnt vmcnt(0)
  ds_read_b32 v4, v20
  s_waitcnt lgkmcnt(0)
  global_store_dword v20, v4, s[4:5]
  s_endpgm

KERNEL tbuf_ld_8888_unorm
  tbuffer_load_format_xyzw v[4:7], v2, s[8:11], s12 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_UNORM] offen
  STORE4

KERNEL tbuf_ld_16_16_sint
  tbuffer_load_format_xyzw v[4:7], v2, s[8:11], s12 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SINT] offen
  STORE4

KERNEL tbuf_ld_32_32_uint
  tbuffer_load_format_xy v[4:5], v2, s[8:11], s12 format:[BUF_DATA_FORMAT_32_32,BUF_NUM_FORMAT_UINT] offen
  STORE4

KERNEL tbuf_ld_d16_16_16_float
  tbuffer_load_format_d16_xy v4, v2, s[8:11], s12 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_FLOAT] offen
  STORE4

KERNEL buf_ld_format_xyzw
  buffer_load_format_xyzw v[4:7], v2, s[8:11], s12 offen
  STORE4

KERNEL tbuf_st_32_32_uint
  v_add_u32_e32 v4, 0x7000, v0
  v_add_u32_e32 v5, 0x8000, v0
  tbuffer_store_format_xy v[4:5], v2, s[8:11], s12 format:[BUF_DATA_FORMAT_32_32,BUF_NUM_FORMAT_UINT] offen
  s_endpgm

KERNEL sld_x2
  s_buffer_load_dwordx2 s[14:15], s[8:11], s12
  s_waitcnt lgkmcnt(0)
  v_mov_b32_e32 v4, s14
  v_mov_b32_e32 v5, s15
  STORE4

.rodata
.p2align 6
.macro KD name, lds=0
.amdhsa_kernel \name
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size \lds
  .amdhsa_next_free_vgpr 32
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 32
.end_amdhsa_kernel
.endm
KD ld_off
KD ld_offen
KD ld_offen_hi
KD ld_idxen
KD ld_idxen_offen
KD ld_ubyte_offen
KD ld_x4_offen
KD st_offen
KD st_x2_offen
KD st_idxen
KD atomic_add_offen
KD ld_lds_offen, 256
KD tbuf_ld_8888_unorm
KD tbuf_ld_16_16_sint
KD tbuf_ld_32_32_uint
KD tbuf_ld_d16_16_16_float
KD buf_ld_format_xyzw
KD tbuf_st_32_32_uint
KD sld_x2

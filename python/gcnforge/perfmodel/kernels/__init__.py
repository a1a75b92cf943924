"""Microbenchmark kernels for the timing model, as gfx942 assembly text (assemble with
``gcnforge.binary.assemble``; 16-byte kernel-argument slots, ``ArgLayout.slots16``).

* ``COPY`` ``copy(out: u32*, inp: u32*)``: each work-item copies 16 bytes (one
  ``global_load_dwordx4`` / ``global_store_dwordx4``), 256 work-items per work-group:
  a streaming copy, limited by HBM bandwidth when the grid is large.
* ``FILL`` ``fill(out: u32*)``: each work-item stores 16 zero bytes (64 work-items per
  work-group, 1 KiB each): what ``torch.zero_`` does before a split-K GEMM accumulates.
* ``CHASE`` ``chase(buf: u32*, steps: u32, out: u32*)``: one wave follows a chain of byte
  offsets (``off = buf[off]``) ``steps`` times, each load waiting for the previous one: a
  pointer chase whose time per step is the latency of wherever the chain's lines live.
"""

_DESC = """.rodata
.p2align 6
.amdhsa_kernel {name}
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_kernarg_size {kernarg}
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
"""

_HEAD = """.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl {name}
.p2align 8
.type {name},@function
{name}:
"""

COPY = _HEAD.format(name="copy") + """  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dwordx2 s[8:9], s[0:1], 0x10
  v_lshlrev_b32_e32 v1, 4, v0
  s_lshl_b32 s10, s2, 12
  v_add_u32_e32 v1, s10, v1
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[4:7], v1, s[8:9]
  s_waitcnt vmcnt(0)
  global_store_dwordx4 v1, v[4:7], s[4:5]
  s_endpgm
""" + _DESC.format(name="copy", kernarg=32)

FILL = _HEAD.format(name="fill") + """  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 4, v0
  s_lshl_b32 s10, s2, 10
  v_add_u32_e32 v1, s10, v1
  v_mov_b32_e32 v4, 0
  v_mov_b32_e32 v5, 0
  v_mov_b32_e32 v6, 0
  v_mov_b32_e32 v7, 0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v1, v[4:7], s[4:5]
  s_endpgm
""" + _DESC.format(name="fill", kernarg=16)

CHASE = _HEAD.format(name="chase") + """  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x10
  s_load_dwordx2 s[8:9], s[0:1], 0x20
  v_mov_b32_e32 v1, 0
  s_waitcnt lgkmcnt(0)
.Lstep:
  global_load_dword v1, v1, s[4:5]
  s_waitcnt vmcnt(0)
  s_sub_u32 s6, s6, 1
  s_cmp_lg_u32 s6, 0
  s_cbranch_scc1 .Lstep
  v_mov_b32_e32 v2, 0
  global_store_dword v2, v1, s[8:9]
  s_endpgm
""" + _DESC.format(name="chase", kernarg=48)

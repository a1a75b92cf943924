// REQUIRES: llvm
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding %s | grep -v amdgcn_target > %t.llvm
// RUN: gcnforge as %s > %t.ours
// RUN: diff -b %t.llvm %t.ours
s_load_dwordx4 s[4:7], s[0:1], 0x10
global_store_dwordx2 v[0:1], v[2:3], off offset:16
ds_read2_b32 v[0:1], v2 offset0:1 offset1:2
buffer_atomic_cmpswap v[0:1], v2, s[8:11], 0 offen sc0
s_waitcnt vmcnt(0) lgkmcnt(0)
s_endpgm

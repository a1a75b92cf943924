// RUN: gcnforge as %s | filecheck %s
// DS, FLAT/GLOBAL/SCRATCH and buffer forms (acc registers, off/saddr, offen/idxen).

ds_write2_b32 v1, v2, v3 offset0:4 offset1:8
// CHECK: ds_write2_b32 v1, v2, v3 offset0:4 offset1:8 ; encoding: [0x04,0x08,0x1c,0xd8,0x01,0x02,0x03,0x00]
ds_read_b64 a[2:3], v2 offset:4
// CHECK: ds_read_b64 a[2:3], v2 offset:4 ; encoding: [0x04,0x00,0xec,0xda,0x02,0x00,0x00,0x02]
ds_swizzle_b32 v4, v1 offset:swizzle(SWAP,16)
// CHECK: ds_swizzle_b32 v4, v1 offset:swizzle(SWAP,16) ; encoding: [0x1f,0x40,0x7a,0xd8,0x01,0x00,0x00,0x04]
global_load_dword v1, v[2:3], off offset:-4 sc0 sc1 nt
// CHECK: global_load_dword v1, v[2:3], off offset:-4 sc0 nt sc1 ; encoding: [0xfc,0x9f,0x53,0xde,0x02,0x00,0x7f,0x01]
global_load_dword a1, v2, s[4:5] offset:-4
// CHECK: global_load_dword a1, v2, s[4:5] offset:-4 ; encoding: [0xfc,0x9f,0x50,0xdc,0x02,0x00,0x84,0x01]
global_atomic_add v0, v[2:3], v4, off sc0
// CHECK: global_atomic_add v0, v[2:3], v4, off sc0 ; encoding: [0x00,0x80,0x09,0xdd,0x02,0x04,0x7f,0x00]
scratch_load_dword v1, off, s3 offset:-4
// CHECK: scratch_load_dword v1, off, s3 offset:-4 ; encoding: [0xfc,0x5f,0x50,0xdc,0x00,0x00,0x03,0x01]
buffer_load_dword v1, v[2:3], s[4:7], s8 idxen offen offset:4 sc0
// CHECK: buffer_load_dword v1, v[2:3], s[4:7], s8 idxen offen offset:4 sc0 ; encoding: [0x04,0x70,0x50,0xe0,0x02,0x01,0x01,0x08]
tbuffer_load_format_x v1, v2, s[4:7], s8 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen offset:4
// CHECK: tbuffer_load_format_x v1, v2, s[4:7], s8 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen offset:4 ; encoding: [0x04,0x10,0xa0,0xeb,0x02,0x01,0x01,0x08]

// RUN: printf '\x02\x07\x02\x02\x00\x91\xcc\xd3\x00\x05\x02\x64\xfa\x02\x02\x7e\x02\x1b\x08\x5a\xf9\x02\x02\x7e\x02\x07\x06\x00' > %t.bin
// RUN: gcnforge dis %t.bin | filecheck %s
// CHECK: v_add_f32_e32 v1, v2, v3
// CHECK-NEXT: v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:2 blgp:3
// CHECK-NEXT: v_mov_b32_dpp v1, v2 quad_perm:[3,2,1,0] row_mask:0x5 bank_mask:0xa bound_ctrl:1
// CHECK-NEXT: .long 0x7e0202f9

// RUN: gcnforge as %s | filecheck %s
// Scalar ALU and SMEM encodings, canonical text as LLVM 22 prints it.

s_add_u32 s5, 1.0, 0x1234
// CHECK: s_add_u32 s5, 1.0, 0x1234 ; encoding: [0xf2,0xff,0x05,0x80,0x34,0x12,0x00,0x00]
s_mov_b32 s0, 0x3f800000
// CHECK: s_mov_b32 s0, 1.0 ; encoding: [0xf2,0x00,0x80,0xbe]
s_mov_b64 vcc, exec
// CHECK: s_mov_b64 vcc, exec ; encoding: [0x7e,0x01,0xea,0xbe]
s_waitcnt vmcnt(0) & lgkmcnt(1)
// CHECK: s_waitcnt vmcnt(0) lgkmcnt(1) ; encoding: [0x70,0x01,0x8c,0xbf]
s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 4)
// CHECK: s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 4) ; encoding: [0x01,0x18,0x81,0xb8]
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x1234
// CHECK: s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x1234 ; encoding: [0x01,0x18,0x00,0xba,0x34,0x12,0x00,0x00]
s_sendmsg sendmsg(MSG_INTERRUPT)
// CHECK: s_sendmsg sendmsg(MSG_INTERRUPT) ; encoding: [0x01,0x00,0x90,0xbf]
s_set_gpr_idx_on s0, gpr_idx(SRC0,DST)
// CHECK: s_set_gpr_idx_on s0, gpr_idx(SRC0,DST) ; encoding: [0x00,0x09,0x11,0xbf]
s_load_dwordx4 s[4:7], s[0:1], s8 offset:0x10 glc
// CHECK: s_load_dwordx4 s[4:7], s[0:1], s8 offset:0x10 glc ; encoding: [0x00,0x41,0x0b,0xc0,0x10,0x00,0x00,0x10]
s_load_dwordx2 s[4:5], s[0:1], -0x10
// CHECK: s_load_dwordx2 s[4:5], s[0:1], -0x10 ; encoding: [0x00,0x01,0x06,0xc0,0xf0,0xff,0x1f,0x00]
s_getpc_b64 s[0:1]
// CHECK: s_getpc_b64 s[0:1] ; encoding: [0x00,0x1c,0x80,0xbe]
s_endpgm
// CHECK: s_endpgm ; encoding: [0x00,0x00,0x81,0xbf]

// RUN: gcnforge as %s | filecheck %s
// PC-relative literals to a symbol in the same section resolve to S + A - P (P = address of
// the literal dword), the value ld.lld writes for LLVM's R_AMDGPU_REL32_LO/HI.
f:
  s_getpc_b64 s[16:17]
  s_add_u32 s16, s16, g@rel32@lo+4
// CHECK: s_add_u32 s16, s16, g@rel32@lo+4 ; encoding: [0x10,0xff,0x10,0x80,0x18,0x00,0x00,0x00]
  s_addc_u32 s17, s17, g@rel32@hi+12
// CHECK: s_addc_u32 s17, s17, g@rel32@hi+12 ; encoding: [0x11,0xff,0x11,0x82,0x00,0x00,0x00,0x00]
  s_swappc_b64 s[30:31], s[16:17]
  s_endpgm
g:
  s_setpc_b64 s[30:31]

// RUN: gcnforge as %s | filecheck %s
// Labels resolve to dword offsets from the next instruction (ISA guide 4.5).

loop:
  s_sub_u32 s0, s0, 1
// CHECK: s_sub_u32 s0, s0, 1 ; encoding: [0x00,0x81,0x80,0x80]
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 loop
// CHECK: s_cbranch_scc1 loop ; encoding: [0xfd,0xff,0x85,0xbf]
  s_branch done
// CHECK: s_branch done ; encoding: [0x01,0x00,0x82,0xbf]
  s_nop 0
done: s_endpgm
// CHECK: s_endpgm ; encoding: [0x00,0x00,0x81,0xbf]

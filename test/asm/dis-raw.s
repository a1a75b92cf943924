// RUN: printf '\x81\x00\x80\xbe\x00\x00\x81\xbf\xff\xff\xff\xff' > %t.bin
// RUN: gcnforge dis %t.bin | filecheck %s
// CHECK: s_mov_b32 s0, 1 {{ +}}// 000000000000: BE800081
// CHECK-NEXT: s_endpgm {{ +}}// 000000000004: BF810000
// CHECK-NEXT: .long 0xffffffff {{ +}}// 000000000008: FFFFFFFF

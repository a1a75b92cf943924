// RUN: not gcnforge as %s 2>&1 | filecheck %s
// Every bad line is reported, each with its file:line:col and what was expected.

s_mov_b64 s[1:2], s[4:5]
// CHECK: errors.s:4:11: error: misaligned register range s[1:2]: a 2-dword scalar range must start at a multiple of 2
// CHECK-NEXT: errors.s:7:1: error: unknown instruction 's_addd_u32'
s_addd_u32 s0, s1, s2

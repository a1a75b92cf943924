// RUN: not gcnforge as %s 2>&1 | filecheck %s
// The first error is reported with file:line:col and what was expected.

s_mov_b64 s[1:2], s[4:5]
// CHECK: errors.s:4:11: error: misaligned register range s[1:2]: a 2-dword scalar range must start at a multiple of 2
// CHECK: s_addd_u32
s_addd_u32 s0, s1, s2

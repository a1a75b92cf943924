// RUN: not gcnforge as %s 2>&1 | filecheck %s
// VOP3 takes no literal on gfx942 (LLVM: "literal operands are not supported").

v_mul_f32_e64 v1, 0x40490fdb, v2
// CHECK: vop-literal-error.s:4:19: error: literal 0x40490fdb not allowed here

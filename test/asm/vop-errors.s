// RUN: not gcnforge as %s 2>&1 | filecheck %s
// A vector-ALU form that breaks the constant bus rule is a located diagnostic.

v_add_f32 v1, v2, v3
v_fma_f32 v1, s1, v2, s3
// CHECK: vop-errors.s:5:23: error: invalid operand 's3' for 'v_fma_f32': violates the constant bus restriction

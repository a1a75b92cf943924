// RUN: gcnforge-opt %s -p amdgcn-schedule | filecheck %s

// What `rate` means here, and how it differs from ASTER's `sched.rate`.
// gcnforge: an op of rate r handles only the iterations j with j mod r == 0 (at global
// iteration j + delay); iterations in between reuse that instance's result. With 6
// iterations and rate 3, A (v_mov_b32 of the index) is emitted twice, for j = 0 and j = 3,
// and B of iteration j reads A's clone of iteration j - j mod 3.
// ASTER: `sched.rate` spaces instances: every iteration's instance is emitted, rate slots
// apart (A would appear 6 times, at slots 0, 3, 6, 9, 12, 15). Not what happens here.
// CHECK-LABEL: amdgcn.kernel @rate_three
// CHECK:       %[[A0:[a-z0-9_]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %c0
// CHECK-NOT:   v_mov_b32_e32
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %[[A0]] :
// CHECK-NOT:   v_mov_b32_e32
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %[[A0]] :
// CHECK-NOT:   v_mov_b32_e32
// CHECK:       v_add_u32_e32 %{{.*}}, %c2, %[[A0]] :
// CHECK-NOT:   v_add_u32_e32
// CHECK:       %[[A3:[a-z0-9_]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %c3
// CHECK-NOT:   v_mov_b32_e32
// CHECK:       v_add_u32_e32 %{{.*}}, %c3, %[[A3]] :
// CHECK-NOT:   v_mov_b32_e32
// CHECK:       v_add_u32_e32 %{{.*}}, %c4, %[[A3]] :
// CHECK-NOT:   v_mov_b32_e32
// CHECK:       v_add_u32_e32 %{{.*}}, %c5, %[[A3]] :
// CHECK-NOT:   v_mov_b32_e32
// CHECK-NOT:   v_add_u32_e32
// CHECK:       amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @rate_three {
    amdgcn.loop 6 dims [6] {
    ^bb0(%i : i32):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d, %i {sched = array<i64: 0, 3>} : !amdgcn.vgpr, i32
      %e = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_add_u32_e32 %e, %i, %a {sched = array<i64: 0, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

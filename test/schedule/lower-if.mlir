// RUN: gcnforge-opt %s | gcnforge-opt | filecheck %s --check-prefix=ROUND
// RUN: gcnforge-opt %s -p amdgcn-lower-loops | filecheck %s

// amdgcn.if: the then region runs when the s_cmp_* compare sets SCC. Lowered: the compare,
// s_cbranch_scc0 to the else block, each branch writing the merged value's storage (in place
// when the branch produced it, a copy otherwise), a join reading it. An if without results
// and without else branches straight to the join.
// ROUND: %r = amdgcn.if s_cmp_ge_i32 (%n, %c4 : !amdgcn.sgpr, i32) -> (!amdgcn.vgpr) {
// ROUND: } else {
// ROUND: amdgcn.yield %a : !amdgcn.vgpr
// ROUND: amdgcn.if s_cmp_eq_u32 (%n, %c0 : !amdgcn.sgpr, i32) {
// ROUND-NOT: else

// CHECK-LABEL: amdgcn.kernel @k
// CHECK:       %[[S:[a-z0-9_]+]] = amdgcn.alloca : !amdgcn.vgpr<?>
// CHECK-NEXT:  amdgcn.sopc s_cmp_ge_i32 %n, %c4 :
// CHECK-NEXT:  amdgcn.branch s_cbranch_scc0 ^[[ELSE:bb[0-9]+]], ^[[THEN:bb[0-9]+]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK:       amdgcn.vop2 v_add_u32_e32 %[[S]], %n, %a :
// CHECK-NEXT:  amdgcn.branch s_branch ^[[JOIN:bb[0-9]+]]
// CHECK-NEXT:  ^[[ELSE]]:
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %[[S]], %a :
// CHECK-NEXT:  amdgcn.branch s_branch ^[[JOIN]]
// CHECK-NEXT:  ^[[JOIN]]:
// CHECK-NEXT:  amdgcn.sopc s_cmp_eq_u32 %n, %c0 :
// CHECK-NEXT:  amdgcn.branch s_cbranch_scc0 ^[[J2:bb[0-9]+]], ^[[T2:bb[0-9]+]]
// CHECK-NEXT:  ^[[T2]]:
// CHECK:       v_add_u32_e32 %{{.*}}, %n, %[[S]] :
// CHECK-NEXT:  amdgcn.branch s_branch ^[[J2]]
// CHECK-NEXT:  ^[[J2]]:
// CHECK:       v_mov_b32_e32 %{{.*}}, %[[S]] :
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %c0 = arith.constant 0 : i32
      %c4 = arith.constant 4 : i32
      %n = amdgcn.alloca : !amdgcn.sgpr
      %d = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d, %c0 : !amdgcn.vgpr, i32
      %r = amdgcn.if s_cmp_ge_i32 (%n, %c4 : !amdgcn.sgpr, i32) -> (!amdgcn.vgpr) {
        %e = amdgcn.alloca : !amdgcn.vgpr
        %x = amdgcn.vop2 v_add_u32_e32 %e, %n, %a : !amdgcn.vgpr, !amdgcn.sgpr, !amdgcn.vgpr
        amdgcn.yield %x : !amdgcn.vgpr
      } else {
        amdgcn.yield %a : !amdgcn.vgpr
      }
      amdgcn.if s_cmp_eq_u32 (%n, %c0 : !amdgcn.sgpr, i32) {
        %e2 = amdgcn.alloca : !amdgcn.vgpr
        %x2 = amdgcn.vop2 v_add_u32_e32 %e2, %n, %r : !amdgcn.vgpr, !amdgcn.sgpr, !amdgcn.vgpr
        amdgcn.yield
      }
      %f = amdgcn.alloca : !amdgcn.vgpr
      %out = amdgcn.vop1 v_mov_b32_e32 %f, %r : !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.end
    }
  }
}

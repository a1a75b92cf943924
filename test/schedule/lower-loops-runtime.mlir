// RUN: gcnforge-opt %s | gcnforge-opt | filecheck %s --check-prefix=ROUND
// RUN: gcnforge-opt %s -p amdgcn-lower-loops | filecheck %s

// A loop with run-time bounds: iv = lb; guarded entry (zero trips branch straight to the
// exit, where the result is the initial value); iv += step; s_cmp_lt_i32 iv, ub at the latch.
// ROUND: amdgcn.loop (%c0, %n, %c4 : i32, !amdgcn.sgpr, i32) iter(%acc0 : !amdgcn.vgpr) {
// ROUND-NEXT: ^bb0(%iv: !amdgcn.sgpr, %a: !amdgcn.vgpr):

// CHECK-LABEL: amdgcn.kernel @k
// CHECK:       amdgcn.vop1 v_mov_b32_e32 %[[S:[a-z0-9_]+]], %c0 :
// CHECK:       %[[IV:[a-z0-9_]+]] = amdgcn.alloca : !amdgcn.sgpr<?>
// CHECK-NEXT:  amdgcn.sop1 s_mov_b32 %[[IV]], %c0 :
// CHECK-NEXT:  amdgcn.sopc s_cmp_lt_i32 %[[IV]], %n :
// CHECK-NEXT:  amdgcn.branch s_cbranch_scc0 ^[[EXIT:bb[0-9]+]], ^[[BODY:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:       v_add_u32_e32 %[[S]], %[[IV]], %[[S]] :
// CHECK-NEXT:  amdgcn.sop2 s_add_i32 %[[IV]], %[[IV]], %c4 :
// CHECK-NEXT:  amdgcn.sopc s_cmp_lt_i32 %[[IV]], %n :
// CHECK-NEXT:  amdgcn.branch s_cbranch_scc1 ^[[BODY]], ^[[EXIT]]
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK:       v_mov_b32_e32 %{{.*}}, %[[S]] :
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %c0 = arith.constant 0 : i32
      %c4 = arith.constant 4 : i32
      %n = amdgcn.alloca : !amdgcn.sgpr
      %d = amdgcn.alloca : !amdgcn.vgpr
      %acc0 = amdgcn.vop1 v_mov_b32_e32 %d, %c0 : !amdgcn.vgpr, i32
      %r = amdgcn.loop (%c0, %n, %c4 : i32, !amdgcn.sgpr, i32) iter(%acc0 : !amdgcn.vgpr) {
      ^bb0(%iv : !amdgcn.sgpr, %a : !amdgcn.vgpr):
        %e = amdgcn.alloca : !amdgcn.vgpr
        %s = amdgcn.vop2 v_add_u32_e32 %e, %iv, %a : !amdgcn.vgpr, !amdgcn.sgpr, !amdgcn.vgpr
        amdgcn.yield %s : !amdgcn.vgpr
      }
      %f = amdgcn.alloca : !amdgcn.vgpr
      %out = amdgcn.vop1 v_mov_b32_e32 %f, %r : !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.end
    }
  }
}

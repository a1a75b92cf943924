// RUN: gcnforge-opt %s -p amdgcn-schedule | filecheck %s
// RUN: gcnforge-opt %s -p amdgcn-schedule,amdgcn-lower-loops | filecheck %s --check-prefix=LOWER

// Software pipelining of a loop with run-time bounds (expand_pipelined.py): A (stage 0) reads
// the induction value, B (stage 1) accumulates. Largest stage S = 1, nest P = 1: the guard is
// lb + (S*P - 1)*step < n, here lb < n (at least S*P = 1 iteration); inside it the prologue
// (A of iteration 0), the steady state (a run-time loop: A(j+1), B(j)), the epilogue (B of the
// last started iteration); the merged (cur, acc) then run the remainder loop (here nest 1:
// one plain loop, no single-iteration loops).
// CHECK-LABEL: amdgcn.kernel @k
// CHECK:       %[[CUR0:[0-9]+]] = amdgcn.sop2 s_add_i32 %{{.*}}, %c0, %{{.*}} :
// CHECK:       %[[CUR:[0-9]+]], %[[ACC:[0-9]+]] = amdgcn.if s_cmp_lt_i32 (%[[CUR0]], %n : !amdgcn.sgpr, !amdgcn.sgpr) -> (!amdgcn.sgpr, !amdgcn.vgpr) {
// CHECK-NEXT:    amdgcn.alloca
// CHECK-NEXT:    %[[A0:[a-z0-9_]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %[[CUR0]] :
// CHECK:         %[[C1:[0-9]+]] = amdgcn.sop2 s_add_i32 %{{.*}}, %[[CUR0]], %{{.*}} :
// CHECK-NEXT:    %[[KC:[0-9]+]], %[[KA:[0-9]+]], %[[KACC:[0-9]+]] = amdgcn.loop (%[[C1]], %n, %{{.*}} : !amdgcn.sgpr, !amdgcn.sgpr, i32) iter(%[[C1]], %[[A0]], %x :
// CHECK-NEXT:    ^bb0(%{{.*}}: !amdgcn.sgpr, %[[IV:[0-9]+]]: !amdgcn.sgpr, %[[PA:[0-9]+]]: !amdgcn.vgpr, %[[PACC:[0-9]+]]: !amdgcn.vgpr):
// CHECK:           %[[NA:[a-z0-9_]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %[[IV]] :
// CHECK:           %[[NB:[a-z0-9_]+]] = amdgcn.vop2 v_add_u32_e32 %{{.*}}, %[[PA]], %[[PACC]] :
// CHECK:           amdgcn.yield %{{.*}}, %[[NA]], %[[NB]] :
// CHECK:         %[[EB:[a-z0-9_]+]] = amdgcn.vop2 v_add_u32_e32 %{{.*}}, %[[KA]], %[[KACC]] :
// CHECK-NEXT:    amdgcn.yield %[[KC]], %[[EB]] : !amdgcn.sgpr, !amdgcn.vgpr
// CHECK-NEXT:  } else {
// CHECK-NEXT:    amdgcn.yield %[[CUR0]], %x : !amdgcn.sgpr, !amdgcn.vgpr
// CHECK-NEXT:  }
// CHECK:       %{{.*}}, %r = amdgcn.loop (%[[CUR]], %n, %{{.*}} : !amdgcn.sgpr, !amdgcn.sgpr, i32) iter(%[[CUR]], %[[ACC]] :
// CHECK:       v_mov_b32_e32 %{{.*}}, %r :

// Lowered: the guard's compare and branch to the else block, the steady state's guarded
// entry and back edge inside the then path, both paths joining before the remainder loop.
// LOWER:       amdgcn.sopc s_cmp_lt_i32 %{{.*}}, %n :
// LOWER-NEXT:  amdgcn.branch s_cbranch_scc0 ^[[ELSE:bb[0-9]+]], ^[[THEN:bb[0-9]+]]
// LOWER-NEXT:  ^[[THEN]]:
// LOWER:       amdgcn.branch s_cbranch_scc0 ^[[EPI:bb[0-9]+]], ^[[KERN:bb[0-9]+]]
// LOWER-NEXT:  ^[[KERN]]:
// LOWER:       amdgcn.branch s_cbranch_scc1 ^[[KERN]], ^[[EPI]]
// LOWER-NEXT:  ^[[EPI]]:
// LOWER:       amdgcn.branch s_branch ^[[JOIN:bb[0-9]+]]
// LOWER-NEXT:  ^[[ELSE]]:
// LOWER:       amdgcn.branch s_branch ^[[JOIN]]
// LOWER-NEXT:  ^[[JOIN]]:
// LOWER:       amdgcn.branch s_cbranch_scc0 ^[[EXIT:bb[0-9]+]], ^[[REM:bb[0-9]+]]
// LOWER-NEXT:  ^[[REM]]:
// LOWER:       amdgcn.branch s_cbranch_scc1 ^[[REM]], ^[[EXIT]]
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %n = amdgcn.alloca : !amdgcn.sgpr
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %c0 : !amdgcn.vgpr, i32
    %r = amdgcn.loop (%c0, %n, %c1 : i32, !amdgcn.sgpr, i32) iter(%x : !amdgcn.vgpr) {
    ^bb0(%iv : !amdgcn.sgpr, %acc : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d0, %iv {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, !amdgcn.sgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_add_u32_e32 %d1, %a, %acc {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield %b : !amdgcn.vgpr
    }
    %f = amdgcn.alloca : !amdgcn.vgpr
    %out = amdgcn.vop1 v_mov_b32_e32 %f, %r : !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

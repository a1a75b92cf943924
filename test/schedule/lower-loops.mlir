// RUN: sed -e "s/ {sched = [^}]*}//" %s | gcnforge-opt -p amdgcn-lower-loops | filecheck %s
// RUN: gcnforge-opt %s -p amdgcn-schedule,amdgcn-lower-loops | filecheck %s --check-prefix=SCHED

// Without the schedules (sed): a loop of 5 with a swapped pair of iteration values and an accumulation: storage for
// each value, the add writes its storage in place, the swap goes through a temporary.
// CHECK-LABEL: amdgcn.kernel @k
// CHECK-COUNT-3: amdgcn.alloca : !amdgcn.vgpr<?>
// CHECK:       amdgcn.vop1 v_mov_b32_e32 %[[SA:[a-z0-9_]+]], %one : !amdgcn.vgpr<?>, i32
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %[[SB:[a-z0-9_]+]], %[[SA]] :
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %[[SC:[a-z0-9_]+]], %[[SA]] :
// CHECK-NEXT:  %[[CNT:[0-9]+]] = amdgcn.alloca : !amdgcn.sgpr<?>
// CHECK:       amdgcn.sop1 s_mov_b32 %[[CNT]], %{{.*}} :
// CHECK-NEXT:  amdgcn.branch s_branch ^[[BODY:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:       v_add_u32_e32 %[[SA]], %one, %[[SA]] :
// CHECK:       %[[T0:[0-9]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %[[SC]] :
// CHECK:       %[[T1:[0-9]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %[[SB]] :
// CHECK-NEXT:  v_mov_b32_e32 %[[SB]], %[[T0]] :
// CHECK-NEXT:  v_mov_b32_e32 %[[SC]], %[[T1]] :
// CHECK:       s_add_u32 %[[CNT]], %[[CNT]],
// CHECK-NEXT:  amdgcn.sopc s_cmp_lt_u32 %[[CNT]],
// CHECK-NEXT:  amdgcn.branch s_cbranch_scc1 ^[[BODY]], ^[[EXIT:bb[0-9]+]]
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_add_u32_e32 %{{.*}}, %[[SA]], %[[SB]] :
// CHECK-NEXT:  amdgcn.end

// Pipelined first (A stage 0, B stage 1), then lowered: prologue, loop of 3, epilogue.
// SCHED:       v_add_u32_e32
// SCHED:       amdgcn.branch s_branch ^[[BODY:bb[0-9]+]]
// SCHED:       ^[[BODY]]:
// SCHED:       amdgcn.sopc s_cmp_lt_u32 %{{.*}}, %[[C3:[a-z0-9_]+]] :
// SCHED:       amdgcn.branch s_cbranch_scc1 ^[[BODY]], ^[[EXIT:bb[0-9]+]]
// SCHED:       ^[[EXIT]]:
// SCHED-NOT:   amdgcn.loop
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r:3 = amdgcn.loop 5 iter(%x, %x, %x : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr) {
    ^bb0(%acc : !amdgcn.vgpr, %p : !amdgcn.vgpr, %q : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_lshlrev_b32_e32 %d1, %one, %a {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %a, %q, %p : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    }
    %d2 = amdgcn.alloca : !amdgcn.vgpr
    %s = amdgcn.vop2 v_add_u32_e32 %d2, %r#0, %r#1 : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// RUN: not gcnforge-opt %s -p amdgcn-schedule 2>&1 | filecheck %s

// A recurrence through the iteration value cannot span stages: iteration 1's stage-0 add
// reads what iteration 0's stage-1 op yields.
// CHECK: error: schedule emits a use before its definition: '%a = amdgcn.vop2 v_add_u32_e32' (body op #1) at iteration 1 reads '%b = amdgcn.vop2 v_lshlrev_b32_e32' (body op #3) of iteration 0, which is emitted later
// CHECK-NEXT: note: first: '%b = {{.*}}' (body op #3) at iteration 0 []
// CHECK-NEXT: note: second: '%a = {{.*}}' (body op #1) at iteration 1 []
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %one = arith.constant 1 : i32
    %x = amdgcn.alloca : !amdgcn.vgpr
    %r = amdgcn.loop 8 iter(%x : !amdgcn.vgpr) {
    ^bb0(%acc : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_lshlrev_b32_e32 %d1, %one, %a {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %b : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

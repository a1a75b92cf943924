// RUN: not gcnforge-opt %s -p amdgcn-schedule 2>&1 | filecheck %s

// %s is delayed by 1 but %t (delay 0) reads it in the same iteration.
// CHECK: error: schedule emits a use before its definition: '%t = amdgcn.vop2 v_add_u32_e32' (body op #3) at iteration 0 reads '%s = amdgcn.vop2 v_add_u32_e32' (body op #1) of iteration 0, which is emitted later
// CHECK-NEXT: note: first: '%s = amdgcn.vop2 v_add_u32_e32' (body op #1) at iteration 0 [0, 0]
// CHECK-NEXT: note: second: '%t = amdgcn.vop2 v_add_u32_e32' (body op #3) at iteration 0 [0, 0]
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %z = amdgcn.alloca : !amdgcn.vgpr
    amdgcn.loop 6 dims [2, 3] {
    ^bb0(%i : i32, %j : i32):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %s = amdgcn.vop2 v_add_u32_e32 %d, %i, %z {sched = array<i64: 1, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %t = amdgcn.vop2 v_add_u32_e32 %d2, %j, %s {sched = array<i64: 0, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

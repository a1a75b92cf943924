// RUN: not gcnforge-opt %s -p amdgcn-schedule 2>&1 | filecheck %s

// The wait for the load's token is delayed past the add that reads the loaded value.
// CHECK: error: schedule breaks a wait token's order: '%s = amdgcn.vop2 v_add_f32_e32' (body op #4) at iteration 0 reads the result of '%v, %t = amdgcn.global global_load_dword' (body op #1) of iteration 0 before 'amdgcn.wait' (body op #2) waits for it
// CHECK-NEXT: note: first: 'amdgcn.wait' (body op #2) at iteration 0 [0]
// CHECK-NEXT: note: second: '%s = amdgcn.vop2 v_add_f32_e32' (body op #4) at iteration 0 [0]
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %p = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    amdgcn.loop 2 dims [2] {
    ^bb0(%i : i32):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %v, %t = amdgcn.global global_load_dword %d, %p, off : !amdgcn.vgpr, !amdgcn.vgpr<[? + 2]>
      amdgcn.wait %t : !amdgcn.read_token {sched = array<i64: 1, 1>}
      %e = amdgcn.alloca : !amdgcn.vgpr
      %s = amdgcn.vop2 v_add_f32_e32 %e, %v, %v {sched = array<i64: 0, 1>} : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

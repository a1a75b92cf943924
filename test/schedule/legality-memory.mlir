// RUN: not gcnforge-opt %s -p amdgcn-schedule 2>&1 | filecheck %s
// RUN: sed -e 's/{sched = array<i64: 0, 1, 0>}/{bufs = array<i64: 2, 0>, sched = array<i64: 0, 1, 0>}/' -e 's/{sched = array<i64: 0, 1, 1>}/{bufs = array<i64: 2, 0>, sched = array<i64: 0, 1, 1>}/' %s | gcnforge-opt -p amdgcn-schedule | filecheck %s --check-prefix=DOUBLE

// The LDS store of iteration j+1 (stage 0) would move before the LDS load of iteration j
// (stage 1): both touch LDS, the store writes -> rejected. With double buffering stated
// (bufs: iteration j writes and reads buffer j mod 2, so the store of j+1 and the load
// of j touch different buffers) it is legal.
// CHECK: error: schedule reorders memory operations that may alias: '%v, %t = amdgcn.ds ds_read_b32' (body op #2) at iteration 0 comes before '%w = amdgcn.ds ds_write_b32' (body op #0) at iteration 1 in the loop but would be emitted after it
// CHECK-NEXT: note: first: '%v, %t = amdgcn.ds ds_read_b32' (body op #2) at iteration 0 []
// CHECK-NEXT: note: second: '%w = amdgcn.ds ds_write_b32' (body op #0) at iteration 1 []
// DOUBLE:      amdgcn.loop 3 {
// DOUBLE:      ds_write_b32
// DOUBLE:      ds_read_b32
// DOUBLE:      amdgcn.yield
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %addr = amdgcn.alloca : !amdgcn.vgpr
    %val = amdgcn.alloca : !amdgcn.vgpr
    amdgcn.loop 4 {
    ^bb0:
      %w = amdgcn.ds ds_write_b32 %addr, %val offset = 0 {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, !amdgcn.vgpr
      %d = amdgcn.alloca : !amdgcn.vgpr
      %v, %t = amdgcn.ds ds_read_b32 %d, %addr offset = 0 {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

// RUN: not gcnforge-opt %s -p amdgcn-schedule 2>&1 | filecheck %s


// CHECK: error: '%d = amdgcn.alloca': sched needs delay >= 0, rate >= 1, stage >= 0; got [0, 0]
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    amdgcn.loop 4 {
    ^bb0:
      %d = amdgcn.alloca {sched = array<i64: 0, 0>} : !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

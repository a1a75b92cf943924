// RUN: gcnforge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: amdgcn.loop: perm [0, 0] is not a permutation of the 2 dims
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    amdgcn.loop 4 dims [2, 2] perm [0, 0] {
    ^bb0(%i : i32, %j : i32):
      amdgcn.yield
    }
    amdgcn.end
  }
}

// -----

// CHECK: amdgcn.loop: unroll dims must be positive, got [2, 0]
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    amdgcn.loop 4 dims [2, 0] {
    ^bb0(%i : i32, %j : i32):
      amdgcn.yield
    }
    amdgcn.end
  }
}

// -----

// CHECK: amdgcn.loop: the body takes one i32 index per unroll dim then the iteration values: expected (i32, !amdgcn.vgpr), got (!amdgcn.vgpr)
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %x = amdgcn.alloca : !amdgcn.vgpr
    %r = amdgcn.loop 4 dims [4] iter(%x : !amdgcn.vgpr) {
    ^bb0(%a : !amdgcn.vgpr):
      amdgcn.yield %a : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// CHECK: amdgcn.loop: amdgcn.yield () must match the iteration values (!amdgcn.vgpr)
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %x = amdgcn.alloca : !amdgcn.vgpr
    %r = amdgcn.loop 4 iter(%x : !amdgcn.vgpr) {
    ^bb0(%a : !amdgcn.vgpr):
      amdgcn.yield
    }
    amdgcn.end
  }
}


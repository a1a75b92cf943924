// RUN: gcnforge-opt %s --split-input-file --verify-diagnostics -p 'amdgcn-schedule,amdgcn-regalloc{max_vgprs=8}' | filecheck %s
// Verifier and pass errors are located at the op's line; expected-error@+N / @-N must match
// them (gcnforge-opt exits 1 when one does not).

// CHECK: verify-diagnostics.mlir:[[# @LINE + 3]]:3: error: a kernel needs a body
amdgcn.module @m #amdgcn.target<gfx942> {
  // expected-error@+1 {{a kernel needs a body}}
  amdgcn.kernel @k { }
}

// -----

// CHECK: verify-diagnostics.mlir:[[# @LINE + 5]]:5: error: %a (v[2]) defined by amdgcn.alloca
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %c0 = arith.constant 0 : i32
    %d = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    %a = amdgcn.alloca : !amdgcn.vgpr<[8 : 10]>
    // expected-error@-1 {{which is outside the 8 available VGPRs}}
    %y = amdgcn.vop3 v_lshlrev_b64 %d, %c0, %a : !amdgcn.vgpr<[? + 2]>, i32, !amdgcn.vgpr<[8 : 10]>
    amdgcn.end
  }
}

// -----

// CHECK: verify-diagnostics.mlir:[[# @LINE + 9]]:7: error: {{.*}}sched values must be at most 65536
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    amdgcn.loop 4 dims [4] {
    ^bb0(%i : i32):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d, %i {sched = array<i64: 0, 2>} : !amdgcn.vgpr, i32
      %e = amdgcn.alloca : !amdgcn.vgpr
      // expected-error@+1 {{sched values must be at most 65536}}
      %b = amdgcn.vop2 v_add_u32_e32 %e, %i, %a {sched = array<i64: 0x7fffffff, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

// RUN: gcnforge-opt %s --split-input-file --verify-diagnostics | filecheck %s
// amdgcn.if (gcnforge.dialect.cond_ops): each rule broken once, reported at the op's line.

// CHECK: if-invalid.mlir:9:{{[0-9]+}}: {{.*}}amdgcn.if: the else region yields (!amdgcn.sgpr) but the results are (!amdgcn.vgpr)
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %n = amdgcn.alloca : !amdgcn.sgpr
    %v = amdgcn.alloca : !amdgcn.vgpr
    %r = amdgcn.if s_cmp_lt_i32 (%n, %n : !amdgcn.sgpr, !amdgcn.sgpr) -> (!amdgcn.vgpr) {
      amdgcn.yield %v : !amdgcn.vgpr
    } else {
      amdgcn.yield %n : !amdgcn.sgpr
    }
    amdgcn.end
  }
}

// -----

// CHECK: amdgcn.if: the else region must end with amdgcn.yield (!amdgcn.vgpr)
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %n = amdgcn.alloca : !amdgcn.sgpr
    %v = amdgcn.alloca : !amdgcn.vgpr
    %r = amdgcn.if s_cmp_lt_i32 (%n, %n : !amdgcn.sgpr, !amdgcn.sgpr) -> (!amdgcn.vgpr) {
      amdgcn.yield %v : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// CHECK: amdgcn.if: lhs must be a 32-bit SGPR or an i32 constant, got !amdgcn.vgpr
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %n = amdgcn.alloca : !amdgcn.sgpr
    %v = amdgcn.alloca : !amdgcn.vgpr
    amdgcn.if s_cmp_lt_i32 (%v, %n : !amdgcn.vgpr, !amdgcn.sgpr) {
      amdgcn.yield
    }
    amdgcn.end
  }
}

// -----

// CHECK: amdgcn.if: a memory token cannot be a result (it has no register)
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %n = amdgcn.alloca : !amdgcn.sgpr
    %v = amdgcn.alloca : !amdgcn.vgpr
    %p = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
    %x, %t = amdgcn.global global_load_dword %v, %v, %p : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 2]>
    %r = amdgcn.if s_cmp_lt_i32 (%n, %n : !amdgcn.sgpr, !amdgcn.sgpr) -> (!amdgcn.read_token) {
      amdgcn.yield %t : !amdgcn.read_token
    } else {
      amdgcn.yield %t : !amdgcn.read_token
    }
    amdgcn.end
  }
}

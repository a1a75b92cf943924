// RUN: not gcnforge-opt %s 2>&1 | filecheck %s
// amdgcn.if tests a 32-bit s_cmp_* compare: anything else is a parse error at the mnemonic.

// CHECK: if-parse-invalid.mlir:8:15: error: amdgcn.if compares with one of s_cmp_eq_i32, {{.*}}; got 's_cmp_eq_u64'
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %n = amdgcn.alloca : !amdgcn.sgpr
    amdgcn.if s_cmp_eq_u64 (%n, %n : !amdgcn.sgpr, !amdgcn.sgpr) {
      amdgcn.yield
    }
    amdgcn.end
  }
}

// RUN: gcnforge-opt %s | filecheck %s
// RUN: gcnforge-opt %s | gcnforge-opt | filecheck %s
// RUN: gcnforge-opt %s --print-op-generic | gcnforge-opt | filecheck %s

// Every register-type form: value, unallocated storage, allocated; ranges; alignment.
amdgcn.module @types #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: amdgcn.alloca : !amdgcn.vgpr{{$}}
    %0 = amdgcn.alloca : !amdgcn.vgpr
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    %1 = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<?>
    %2 = amdgcn.alloca : !amdgcn.vgpr<?>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.sgpr<[? : ? + 2]>
    %3 = amdgcn.alloca : !amdgcn.sgpr<[? : ? + 2]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<5>
    %4 = amdgcn.alloca : !amdgcn.vgpr<5>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<[8 : 12]>
    %5 = amdgcn.alloca : !amdgcn.vgpr<[8 : 12]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.agpr<[0 : 16]>
    %6 = amdgcn.alloca : !amdgcn.agpr<[0 : 16]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.sgpr<[4 : 8]>
    %7 = amdgcn.alloca : !amdgcn.sgpr<[4 : 8]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<[? + 4], align 4>
    %8 = amdgcn.alloca : !amdgcn.vgpr<[? + 4], align 4>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<align 4>
    %9 = amdgcn.alloca : !amdgcn.vgpr<align 4>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    %10 = amdgcn.alloca : !amdgcn.vgpr<[? + 2], align 2>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.sgpr<[? + 16]>
    %11 = amdgcn.alloca : !amdgcn.sgpr<[? + 16]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.sgpr<[96 : 100]>
    %12 = amdgcn.alloca : !amdgcn.sgpr<[96 : 100]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.agpr<[? : ? + 32]>
    %13 = amdgcn.alloca : !amdgcn.agpr<[? : ? + 32]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.vgpr<[? + 3]>
    %14 = amdgcn.alloca : !amdgcn.vgpr<[? + 3]>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.special<vcc>
    %15 = amdgcn.alloca : !amdgcn.special<vcc>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.special<exec_hi>
    %16 = amdgcn.alloca : !amdgcn.special<exec_hi>
    // CHECK-NEXT: amdgcn.alloca : !amdgcn.special<m0>
    %17 = amdgcn.alloca : !amdgcn.special<m0>
    amdgcn.end
  }
  // Memory tokens as function arguments (they are values like any other).
  // CHECK: amdgcn.func @tokens(%{{.*}}: !amdgcn.read_token, %{{.*}}: !amdgcn.write_token)
  amdgcn.func @tokens(%r: !amdgcn.read_token, %w: !amdgcn.write_token) {
    // CHECK: amdgcn.wait %{{.*}}, %{{.*}} : !amdgcn.read_token, !amdgcn.write_token
    amdgcn.wait %r, %w : !amdgcn.read_token, !amdgcn.write_token
    amdgcn.return
  }
}

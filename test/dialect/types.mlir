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
    amdgcn.end
  }
}

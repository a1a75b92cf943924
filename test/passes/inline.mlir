// RUN: gcnforge-opt %s -p amdgcn-inline | filecheck %s
// RUN: gcnforge-opt %s -p 'amdgcn-inline{keep=twice}' | filecheck %s --check-prefix=KEEP

// @quad calls @twice; both are inlined into the kernel (each call site gets its own copy of
// the body), and the functions, no longer called, are erased.
// CHECK-LABEL: amdgcn.kernel @k
// CHECK-NOT: amdgcn.call
// CHECK-COUNT-4: v_add_u32_e32
// CHECK-NOT: amdgcn.func
// KEEP: amdgcn.func @twice
// KEEP-NOT: amdgcn.func @quad
// KEEP: amdgcn.call @twice
// KEEP: amdgcn.call @twice
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.func @twice(%x : !amdgcn.vgpr) -> !amdgcn.vgpr {
      %d = amdgcn.alloca : !amdgcn.vgpr
      %y = amdgcn.vop2 v_add_u32_e32 %d, %x, %x : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.return %y : !amdgcn.vgpr
    }
    amdgcn.func @quad(%x : !amdgcn.vgpr) -> !amdgcn.vgpr {
      %a = amdgcn.call @twice(%x) : (!amdgcn.vgpr) -> !amdgcn.vgpr
      %b = amdgcn.call @twice(%a) : (!amdgcn.vgpr) -> !amdgcn.vgpr
      amdgcn.return %b : !amdgcn.vgpr
    }
    amdgcn.kernel @k {
      %t = amdgcn.thread_id x : !amdgcn.vgpr
      %a = amdgcn.call @quad(%t) : (!amdgcn.vgpr) -> !amdgcn.vgpr
      %b = amdgcn.call @quad(%a) : (!amdgcn.vgpr) -> !amdgcn.vgpr
      amdgcn.end
    }
  }
}

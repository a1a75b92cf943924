// RUN: gcnforge-opt %s --split-input-file -p amdgcn-lower-loops | filecheck %s
// Found by the loop shapes of python -m fuzz.harness --targets loop (issue 28): values a loop
// shares between its initial values, its body and its yields.

// An initial value the body also reads: its producer must not write the iteration storage in
// place (the body would read the storage, which the first iteration overwrites); it is copied.
// CHECK-LABEL: amdgcn.kernel @init_read_in_body
// CHECK:       %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %[[A0:[a-z0-9_]+]], %x :
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %[[A1:[a-z0-9_]+]], %x :
// CHECK:       ^bb1:
// CHECK:       amdgcn.vop2 v_add_u32_e32 %[[A0]], %one, %x :
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %[[A1]], %[[A0]] :
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @init_read_in_body {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r0, %r1 = amdgcn.loop 2 iter(%x, %x : !amdgcn.vgpr, !amdgcn.vgpr) {
    ^bb0(%a0 : !amdgcn.vgpr, %a1 : !amdgcn.vgpr):
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b1 = amdgcn.vop2 v_add_u32_e32 %d1, %one, %x : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %b1, %b1 : !amdgcn.vgpr, !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// A value yielded twice whose first storage needs a copy (a later op reads that storage): the
// second is a copy too (writing it in place renamed the value the first copy reads, which
// left a use of an erased op: "not allocated" after the whole pipeline).
// CHECK-LABEL: amdgcn.kernel @yield_twice_after_copy
// CHECK:       ^bb1:
// CHECK:       %b1 = amdgcn.vop2 v_add_u32_e32 %d1, %one, %[[A0:[a-z0-9_]+]] :
// CHECK:       %b2 = amdgcn.vop2 v_add_u32_e32 %d2, %one, %[[A0]] :
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %[[A0]], %b1 :
// CHECK-NEXT:  amdgcn.vop1 v_mov_b32_e32 %{{[a-z0-9_]+}}, %b1 :
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @yield_twice_after_copy {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r0, %r1 = amdgcn.loop 2 iter(%x, %x : !amdgcn.vgpr, !amdgcn.vgpr) {
    ^bb0(%a0 : !amdgcn.vgpr, %a1 : !amdgcn.vgpr):
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b1 = amdgcn.vop2 v_add_u32_e32 %d1, %one, %a0 : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %b2 = amdgcn.vop2 v_add_u32_e32 %d2, %one, %a0 : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %b1, %b1 : !amdgcn.vgpr, !amdgcn.vgpr
    }
    amdgcn.end
  }
}

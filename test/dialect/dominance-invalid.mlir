// RUN: gcnforge-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: gcnforge-opt %s --split-input-file --verify-diagnostics -p amdgcn-schedule,amdgcn-lower-loops | filecheck %s
// SSA dominance (issue 28, items 1-2, from the fuzzing round's inputs): values an op cannot see
// are refused at the use, before any pass runs (which failed with a traceback before).

// A loop's operand naming its own body's block argument.
// CHECK: dominance-invalid.mlir:[[# @LINE + 4]]:29: error: %a is defined inside this op's own region
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // expected-error@+1 {{%a is defined inside this op's own region}}
    %r = amdgcn.loop 4 iter(%a : !amdgcn.vgpr) {
    ^bb0(%a : !amdgcn.vgpr):
      amdgcn.yield %a : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// A loop that yields its own result (with a schedule on a body op: amdgcn-schedule erased
// the loop while the yield still used it).
// CHECK: dominance-invalid.mlir:[[# @LINE + 11]]:7: error: 'amdgcn.yield' operand #0: %r is a result of the enclosing 'amdgcn.loop', used inside it
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r = amdgcn.loop 4 iter(%x : !amdgcn.vgpr) {
    ^bb0(%acc : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      // expected-error@+1 {{%r is a result of the enclosing 'amdgcn.loop', used inside it}}
      amdgcn.yield %r : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// A loop's result used by its own operand list.
// CHECK: dominance-invalid.mlir:[[# @LINE + 4]]:5: error: 'amdgcn.loop' operand #0: %r is a result of this op, used as its own operand
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // expected-error@+1 {{'amdgcn.loop' operand #0: %r is a result of this op, used as its own operand}}
    %r = amdgcn.loop 4 iter(%r : !amdgcn.vgpr) {
    ^bb0(%a : !amdgcn.vgpr):
      amdgcn.yield %a : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// A body value used after the loop, outside its region.
// CHECK: dominance-invalid.mlir:[[# @LINE + 11]]:40: error: %b is not defined where it is used
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %x = amdgcn.alloca : !amdgcn.vgpr
    %r = amdgcn.loop 4 iter(%x : !amdgcn.vgpr) {
    ^bb0(%a : !amdgcn.vgpr):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop1 v_mov_b32_e32 %d, %a : !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield %b : !amdgcn.vgpr
    }
    // expected-error@+1 {{%b is not defined where it is used}}
    %y = amdgcn.vop1 v_mov_b32_e32 %x, %b : !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----

// Used before its definition in the same block.
// CHECK: dominance-invalid.mlir:[[# @LINE + 5]]:5: error: 'amdgcn.vop1' operand #1: %z is used before its definition
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %x = amdgcn.alloca : !amdgcn.vgpr
    // expected-error@+1 {{%z is used before its definition}}
    %y = amdgcn.vop1 v_mov_b32_e32 %x, %z : !amdgcn.vgpr, !amdgcn.vgpr
    %z = amdgcn.vop1 v_mov_b32_e32 %x, %x : !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// -----

// Defined on one side of a branch, used where both sides meet.
// CHECK: dominance-invalid.mlir:[[# @LINE + 14]]:5: error: 'amdgcn.vop2' operand #1: %a is defined in a block that does not dominate this use
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %c0 = arith.constant 0 : i32
    %d0 = amdgcn.alloca : !amdgcn.vgpr
    %d1 = amdgcn.alloca : !amdgcn.vgpr
    amdgcn.branch s_cbranch_scc0 ^bb1, ^bb2
  ^bb1:
    %a = amdgcn.vop1 v_mov_b32_e32 %d0, %c0 : !amdgcn.vgpr, i32
    amdgcn.branch s_branch ^bb2
  ^bb2:
    // (the use, not the definition, is what is refused: through ^bb0 -> ^bb2, %a was never
    // written)
    // expected-error@+1 {{%a is defined in a block that does not dominate this use}}
    %c = amdgcn.vop2 v_add_u32_e32 %d1, %a, %a : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
    amdgcn.end
  }
}

// RUN: gcnforge compile %s -S -o %t.s --print-ir-after-all 2>&1 | filecheck %s
// RUN: gcnforge compile %s -S -o %t.s --print-ir-after=amdgcn-lower-abi 2>&1 | filecheck %s --check-prefix=ONE

// The IR after each pass of the default pipeline, in order, as MLIR prints it.
// CHECK: // -----// IR Dump After amdgcn-schedule //----- //
// CHECK: // -----// IR Dump After amdgcn-lower-loops //----- //
// CHECK: // -----// IR Dump After amdgcn-inline //----- //
// CHECK: // -----// IR Dump After amdgcn-lower-abi //----- //
// CHECK: amdgcn.vop3 v_bfe_u32
// CHECK: // -----// IR Dump After amdgcn-regalloc //----- //
// CHECK: !amdgcn.vgpr<0>
// CHECK: // -----// IR Dump After amdgcn-insert-waits //----- //
// CHECK: // -----// IR Dump After amdgcn-hazards //----- //
// ONE-NOT: IR Dump After amdgcn-inline
// ONE: // -----// IR Dump After amdgcn-lower-abi //----- //
// ONE-NOT: IR Dump After
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %c0 = arith.constant 0 : i32
      %t = amdgcn.thread_id x : !amdgcn.vgpr
      %d = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d, %t, %t : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.end
    }
  }
}

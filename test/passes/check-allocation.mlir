// RUN: not gcnforge-opt %s -p amdgcn-check-allocation 2>&1 | filecheck %s --check-prefix=BAD
// (The allocator's own output goes through the same checker, regalloc/check.py, in tests/passes.)

// A hand allocation that reuses v1 while %a is still needed.
// BAD: check-allocation.mlir:{{[0-9]+}}:{{[0-9]+}}: error: @ok: 1 allocation problem(s)
// BAD: note: block 0 op 2 'v_add_u32_e32': reads %a unit 0 from v1, which holds %b
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @ok {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %d0 = amdgcn.alloca : !amdgcn.vgpr<1>
      %a = amdgcn.vop1 v_mov_b32_e32 %d0, %c0 : !amdgcn.vgpr<1>, i32
      %d1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %b = amdgcn.vop1 v_mov_b32_e32 %d1, %c1 : !amdgcn.vgpr<1>, i32
      %d2 = amdgcn.alloca : !amdgcn.vgpr<2>
      %c = amdgcn.vop2 v_add_u32_e32 %d2, %a, %b : !amdgcn.vgpr<2>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      amdgcn.end
    }
  }
}


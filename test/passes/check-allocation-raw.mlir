// RUN: not gcnforge-opt %s -p amdgcn-check-allocation 2>&1 | filecheck %s --check-prefix=BAD

// A lift.inst writes the registers it names: %a's v4 is gone after it, on one path.
// BAD: check-allocation-raw.mlir:{{[0-9]+}}:{{[0-9]+}}: error: @raw: 1 allocation problem(s)
// BAD: note: block 2 op 0 'v_add_u32_e32': reads %a unit 0 from v4, which holds nothing known
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @raw {
      %c0 = arith.constant 0 : i32
      %d0 = amdgcn.alloca : !amdgcn.vgpr<4>
      %a = amdgcn.vop1 v_mov_b32_e32 %d0, %c0 : !amdgcn.vgpr<4>, i32
      amdgcn.branch s_cbranch_scc0 ^bb1, ^bb2
    ^bb1:
      lift.inst "v_mov_b32_e32 v4, 0" (%d0) : !amdgcn.vgpr<4>
      amdgcn.branch s_branch ^bb2
    ^bb2:
      %d1 = amdgcn.alloca : !amdgcn.vgpr<5>
      %c = amdgcn.vop2 v_add_u32_e32 %d1, %a, %a : !amdgcn.vgpr<5>, !amdgcn.vgpr<4>, !amdgcn.vgpr<4>
      amdgcn.end
    }
  }
}

// RUN: not gcnforge-opt %s -p 'amdgcn-regalloc{max_vgprs=2}' 2>&1 | filecheck %s

// Three values live at once in a file of two: the error lists them with their definitions.
// CHECK: error: out of VGPRs: 3 VGPRs are live at 'amdgcn.vop2 v_add_u32_e32' but only 2 are available
// CHECK-DAG: note: live: %a (v) defined by amdgcn.vop1 v_mov_b32_e32
// CHECK-DAG: note: live: %b (v) defined by amdgcn.vop1 v_mov_b32_e32
// CHECK-DAG: note: live: %c (v) defined by amdgcn.vop2 v_add_u32_e32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d0, %c0 : !amdgcn.vgpr, i32
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop1 v_mov_b32_e32 %d1, %c1 : !amdgcn.vgpr, i32
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %c = amdgcn.vop2 v_add_u32_e32 %d2, %a, %b : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      %d3 = amdgcn.alloca : !amdgcn.vgpr
      %d = amdgcn.vop2 v_add_u32_e32 %d3, %a, %b : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      %d4 = amdgcn.alloca : !amdgcn.vgpr
      %e = amdgcn.vop2 v_add_u32_e32 %d4, %c, %d : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.end
    }
  }
}

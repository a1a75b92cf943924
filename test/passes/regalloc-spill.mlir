// RUN: gcnforge-opt %s -p 'amdgcn-regalloc{max_vgprs=2 spill_to_agprs=true}' | filecheck %s

// The same program that exhausts 2 VGPRs (regalloc-exhaustion.mlir) allocates with
// spilling on: %a and %c go to AGPRs after their definitions and are read back into a
// VGPR right before each use.
// CHECK: regalloc = {v = 2 : i32, a = 2 : i32, s = 0 : i32}
// CHECK-SAME: regalloc_spilled = 2 : i32
// CHECK: %a = amdgcn.vop1 v_mov_b32_e32
// CHECK-NEXT: %[[A:.*]] = amdgcn.vop3p v_accvgpr_write_b32 %{{.*}}, %a : !amdgcn.agpr<0>, !amdgcn.vgpr<0>
// CHECK-NEXT: %b = amdgcn.vop1 v_mov_b32_e32
// CHECK-NEXT: %[[R:.*]] = amdgcn.vop3p v_accvgpr_read_b32 %{{.*}}, %[[A]] : !amdgcn.vgpr<1>, !amdgcn.agpr<0>
// CHECK-NEXT: %c = amdgcn.vop2 v_add_u32_e32 %{{.*}}, %[[R]], %b
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

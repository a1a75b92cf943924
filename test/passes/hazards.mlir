// RUN: gcnforge-opt %s --split-input-file -p amdgcn-hazards | filecheck %s
// Cases from the CDNA3 ISA guide, 4.5 "Manually Inserted Wait States".

// VALU writes an SGPR, then VMEM reads it: 5 wait states -> s_nop 4.
// CHECK-LABEL: amdgcn.kernel @valu_sgpr_vmem
// CHECK: v_readfirstlane_b32
// CHECK-NEXT: amdgcn.sopp s_nop 4
// CHECK-NEXT: global_load_dword
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @valu_sgpr_vmem {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %s0 = amdgcn.alloca : !amdgcn.sgpr<0>
      %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
      %a = amdgcn.vop1 v_readfirstlane_b32 %s0, %v0 : !amdgcn.sgpr<0>, !amdgcn.vgpr<0>
      %b, %t = amdgcn.global global_load_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      amdgcn.end
    }
  }
}

// -----

// A transcendental result read by a non-trans VALU op: 1 wait state; one independent
// instruction in between already provides it.
// CHECK-LABEL: amdgcn.kernel @trans
// CHECK: v_exp_f32_e32
// CHECK-NEXT: amdgcn.sopp s_nop 0
// CHECK-NEXT: v_add_f32_e32
// CHECK-NEXT: v_exp_f32_e32
// CHECK-NEXT: v_mov_b32_e32
// CHECK-NEXT: v_add_f32_e32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @trans {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %v2 = amdgcn.alloca : !amdgcn.vgpr<2>
      %a = amdgcn.vop1 v_exp_f32_e32 %v1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      %b = amdgcn.vop2 v_add_f32_e32 %v2, %a, %a : !amdgcn.vgpr<2>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      %c = amdgcn.vop1 v_exp_f32_e32 %v1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      %d = amdgcn.vop1 v_mov_b32_e32 %v0, %v2 : !amdgcn.vgpr<0>, !amdgcn.vgpr<2>
      %e = amdgcn.vop2 v_add_f32_e32 %v2, %c, %c : !amdgcn.vgpr<2>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      amdgcn.end
    }
  }
}

// -----

// MFMA 32x32x8 f16 (8 passes, 32 cycles) result read by a VALU op: 8 + 3 = 11 wait states
// -> s_nop 7 + s_nop 2.
// CHECK-LABEL: amdgcn.kernel @mfma
// CHECK: v_mfma_f32_32x32x8_f16
// CHECK-NEXT: amdgcn.sopp s_nop 7
// CHECK-NEXT: amdgcn.sopp s_nop 2
// CHECK-NEXT: v_accvgpr_read_b32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @mfma {
      %a = amdgcn.alloca : !amdgcn.vgpr<[0 : 2]>
      %b = amdgcn.alloca : !amdgcn.vgpr<[2 : 4]>
      %acc = amdgcn.alloca : !amdgcn.agpr<[0 : 16]>
      %v8 = amdgcn.alloca : !amdgcn.vgpr<8>
      %a0 = amdgcn.alloca : !amdgcn.agpr<0>
      %d = amdgcn.mfma v_mfma_f32_32x32x8_f16 %acc, %a, %b, %acc : !amdgcn.agpr<[0 : 16]>, !amdgcn.vgpr<[0 : 2]>, !amdgcn.vgpr<[2 : 4]>, !amdgcn.agpr<[0 : 16]>
      %r = amdgcn.vop3p v_accvgpr_read_b32 %v8, %a0 : !amdgcn.vgpr<8>, !amdgcn.agpr<0>
      amdgcn.end
    }
  }
}

// -----

// Across a loop's back edge: the transcendental op at the end of the body feeds the first
// op of the next iteration (1 wait state), and the branch itself counts as one instruction,
// so the loop needs nothing; entering the loop from a block ending in the trans op would.
// CHECK-LABEL: amdgcn.kernel @loop
// CHECK: ^{{.*}}:
// CHECK-NEXT: v_add_f32_e32
// CHECK-NOT: s_nop
// CHECK: v_exp_f32_e32
// CHECK-NEXT: amdgcn.branch s_cbranch_scc1
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @loop {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %v2 = amdgcn.alloca : !amdgcn.vgpr<2>
      amdgcn.branch s_branch ^body
    ^body:
      %b = amdgcn.vop2 v_add_f32_e32 %v2, %v1, %v1 : !amdgcn.vgpr<2>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      %a = amdgcn.vop1 v_exp_f32_e32 %v1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      amdgcn.branch s_cbranch_scc1 ^body, ^exit
    ^exit:
      amdgcn.end
    }
  }
}

// -----

// The same, with the trans op's consumer right after a fall-through into the next block.
// CHECK-LABEL: amdgcn.kernel @fallthrough
// CHECK: v_exp_f32_e32
// CHECK-NEXT: amdgcn.branch s_cbranch_scc1
// CHECK: ^{{.*}}:
// CHECK-NEXT: v_add_f32_e32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @fallthrough {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %v2 = amdgcn.alloca : !amdgcn.vgpr<2>
      %a = amdgcn.vop1 v_exp_f32_e32 %v1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      amdgcn.branch s_cbranch_scc1 ^next, ^next
    ^next:
      %b = amdgcn.vop2 v_add_f32_e32 %v2, %v1, %v1 : !amdgcn.vgpr<2>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      amdgcn.end
    }
  }
}

// -----

// A hazard across a branch: VALU writes s4 at the end of one block, VMEM reads it at the
// top of the target: 5 wait states, the branch provides 1 -> s_nop 3 in the target.
// CHECK-LABEL: amdgcn.kernel @across
// CHECK: ^{{.*}}:
// CHECK-NEXT: amdgcn.sopp s_nop 3
// CHECK-NEXT: global_load_dword
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @across {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %s4 = amdgcn.alloca : !amdgcn.sgpr<[4 : 6]>
      %p = amdgcn.vop3 v_cmp_eq_u32_e64 %s4, %v0, %v1 : !amdgcn.sgpr<[4 : 6]>, !amdgcn.vgpr<0>, !amdgcn.vgpr<1>
      amdgcn.branch s_branch ^next
    ^next:
      %x, %t = amdgcn.global global_load_dword %v1, %v0, %p : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[4 : 6]>
      amdgcn.end
    }
  }
}

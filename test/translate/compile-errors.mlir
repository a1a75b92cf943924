// RUN: not gcnforge compile %s -S -o - '--pipeline=amdgcn-lower-abi,amdgcn-regalloc{max_vgprs=2}' 2>&1 | filecheck %s
// RUN: not gcnforge compile %s -S -o - --pipeline=amdgcn-lower-abi 2>&1 | filecheck %s --check-prefix=UNALLOC
// RUN: not gcnforge compile %s -S -o - --pipeline=amdgcn-nope 2>&1 | filecheck %s --check-prefix=PIPE

// Errors are diagnostics, never tracebacks: more live values than the VGPRs allowed ...
// CHECK: error: out of VGPRs: 3 VGPRs are live
// CHECK-NOT: Traceback
// ... translating without allocation ...
// UNALLOC: error: register operand !amdgcn.vgpr is not allocated (run amdgcn-regalloc first)
// ... and an unknown pass.
// PIPE: error: unknown pass 'amdgcn-nope'
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %c0 = arith.constant 0 : i32
      %t = amdgcn.thread_id x : !amdgcn.vgpr
      %d = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d, %c0 : !amdgcn.vgpr, i32
      %b = amdgcn.vop2 v_add_u32_e32 %d, %a, %t : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      %e = amdgcn.vop2 v_add_u32_e32 %d, %a, %b : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      %f = amdgcn.vop2 v_add_u32_e32 %d, %t, %e : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.end
    }
  }
}

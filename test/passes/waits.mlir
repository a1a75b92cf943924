// RUN: gcnforge-opt %s --split-input-file -p 'amdgcn-insert-waits{mode=deps}' | filecheck %s
// RUN: not gcnforge-opt %s --split-input-file -p 'amdgcn-insert-waits{mode=verify}' 2>&1 | filecheck %s --check-prefix=VERIFY

// vmcnt returns in issue order: the first of two loads needs vmcnt(1) (simm16 0x3F71 = 16241),
// the second vmcnt(0) (0xF70 = 3952).
// CHECK-LABEL: amdgcn.kernel @inorder
// CHECK: global_load_dword
// CHECK-NEXT: global_load_dword
// CHECK-NEXT: amdgcn.sopp s_waitcnt vmcnt(1)
// CHECK-NEXT: v_add_f32_e32 %{{.*}}, %{{.*}}, %{{.*}} : !amdgcn.vgpr<3>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
// CHECK-NEXT: amdgcn.sopp s_waitcnt vmcnt(0)
// CHECK-NEXT: v_add_f32_e32
// The error is at the first read (the author's line), each note at its own.
// VERIFY: waits.mlir:[[# @LINE + 12]]:7: error: @inorder: 2 read(s) of registers whose load may still be in flight
// VERIFY: note: {{.*}}waits.mlir:[[# @LINE + 11]]:7: 'v_add_f32_e32' uses v1 while a load writing it may be in flight (needs vmcnt(1))
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @inorder {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %v2 = amdgcn.alloca : !amdgcn.vgpr<2>
      %v3 = amdgcn.alloca : !amdgcn.vgpr<3>
      %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
      %a, %ta = amdgcn.global global_load_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      %b, %tb = amdgcn.global global_load_dword %v2, %v0, %sp : !amdgcn.vgpr<2>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      %c = amdgcn.vop2 v_add_f32_e32 %v3, %a, %a : !amdgcn.vgpr<3>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      %d = amdgcn.vop2 v_add_f32_e32 %v3, %b, %c : !amdgcn.vgpr<3>, !amdgcn.vgpr<2>, !amdgcn.vgpr<3>
      amdgcn.end
    }
  }
}

// -----

// SMEM mixed with LDS on lgkmcnt: out of order, so even the older LDS load needs lgkmcnt(0)
// (0xC07F = 49279).
// CHECK-LABEL: amdgcn.kernel @mixed
// CHECK: s_load_dword
// CHECK-NEXT: amdgcn.sopp s_waitcnt lgkmcnt(0)
// CHECK-NEXT: v_add_f32_e32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @mixed {
      %c0 = arith.constant 0 : i32
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %s4 = amdgcn.alloca : !amdgcn.sgpr<4>
      %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
      %a, %ta = amdgcn.ds ds_read_b32 %v1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      %s, %ts = amdgcn.smem s_load_dword %s4, %sp, %c0 : !amdgcn.sgpr<4>, !amdgcn.sgpr<[0 : 2]>, i32
      %c = amdgcn.vop2 v_add_f32_e32 %v0, %a, %a : !amdgcn.vgpr<0>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      amdgcn.end
    }
  }
}

// -----

// Across a loop's back edge: the load issued at the end of the body is waited for at its top.
// CHECK-LABEL: amdgcn.kernel @loop
// CHECK: ^{{.*}}:
// CHECK-NEXT: amdgcn.sopp s_waitcnt vmcnt(0)
// CHECK-NEXT: v_add_f32_e32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @loop {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
      amdgcn.branch s_branch ^body
    ^body:
      %c = amdgcn.vop2 v_add_f32_e32 %v0, %v1, %v0 : !amdgcn.vgpr<0>, !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      %a, %ta = amdgcn.global global_load_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      amdgcn.branch s_cbranch_scc1 ^body, ^exit
    ^exit:
      amdgcn.end
    }
  }
}

// RUN: gcnforge-opt %s -p amdgcn-insert-waits | filecheck %s

// Token mode (the kernel has amdgcn.wait): waiting for the first of three loads leaves the
// two younger ones in flight: vmcnt(2) (0xF72 = 3954); a wait whose loads are already
// covered disappears; an SMEM load's token needs lgkmcnt(0) (0xC07F = 49279).
// CHECK-LABEL: amdgcn.kernel @k
// CHECK: global_load_dword
// CHECK-NEXT: global_load_dword
// CHECK-NEXT: global_load_dword
// CHECK-NEXT: amdgcn.sopp s_waitcnt vmcnt(2)
// CHECK-NEXT: v_add_f32_e32
// CHECK-NEXT: amdgcn.smem s_load_dword
// CHECK-NEXT: amdgcn.sopp s_waitcnt lgkmcnt(0)
// CHECK-NEXT: amdgcn.end
// CHECK-NOT: amdgcn.wait
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %c0 = arith.constant 0 : i32
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %v2 = amdgcn.alloca : !amdgcn.vgpr<2>
      %v3 = amdgcn.alloca : !amdgcn.vgpr<3>
      %s4 = amdgcn.alloca : !amdgcn.sgpr<4>
      %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
      %a, %ta = amdgcn.global global_load_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      %b, %tb = amdgcn.global global_load_dword %v2, %v0, %sp : !amdgcn.vgpr<2>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      %c, %tc = amdgcn.global global_load_dword %v3, %v0, %sp : !amdgcn.vgpr<3>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
      amdgcn.wait %ta : !amdgcn.read_token
      %d = amdgcn.vop2 v_add_f32_e32 %v1, %a, %a : !amdgcn.vgpr<1>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      amdgcn.wait %ta : !amdgcn.read_token
      %s, %ts = amdgcn.smem s_load_dword %s4, %sp, %c0 : !amdgcn.sgpr<4>, !amdgcn.sgpr<[0 : 2]>, i32
      amdgcn.wait %ts : !amdgcn.read_token
      amdgcn.end
    }
  }
}

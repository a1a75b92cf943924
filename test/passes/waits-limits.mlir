// RUN: gcnforge-opt %s -p amdgcn-insert-waits | filecheck %s

// Counter limits: lgkmcnt goes to 15, so the first of 17 LDS loads (16 younger ones) is
// waited for at lgkmcnt(14), the largest count that covers it (0xCE7F = 52863, as LLVM's
// SIInsertWaitcnts caps it); that wait also covers the third load (14 younger ones).
// CHECK-LABEL: amdgcn.kernel @limits
// CHECK-COUNT-17: amdgcn.ds ds_read_b32
// CHECK-NEXT: amdgcn.sopp s_waitcnt lgkmcnt(14)
// CHECK-NEXT: amdgcn.vop2 v_add_u32_e32 %{{.*}}, %r1, %r1
// CHECK-NEXT: amdgcn.vop2 v_add_u32_e32 %{{.*}}, %r3, %r3
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @limits {
      %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
      %d1 = amdgcn.alloca : !amdgcn.vgpr<1>
      %d2 = amdgcn.alloca : !amdgcn.vgpr<2>
      %d3 = amdgcn.alloca : !amdgcn.vgpr<3>
      %d4 = amdgcn.alloca : !amdgcn.vgpr<4>
      %d5 = amdgcn.alloca : !amdgcn.vgpr<5>
      %d6 = amdgcn.alloca : !amdgcn.vgpr<6>
      %d7 = amdgcn.alloca : !amdgcn.vgpr<7>
      %d8 = amdgcn.alloca : !amdgcn.vgpr<8>
      %d9 = amdgcn.alloca : !amdgcn.vgpr<9>
      %d10 = amdgcn.alloca : !amdgcn.vgpr<10>
      %d11 = amdgcn.alloca : !amdgcn.vgpr<11>
      %d12 = amdgcn.alloca : !amdgcn.vgpr<12>
      %d13 = amdgcn.alloca : !amdgcn.vgpr<13>
      %d14 = amdgcn.alloca : !amdgcn.vgpr<14>
      %d15 = amdgcn.alloca : !amdgcn.vgpr<15>
      %d16 = amdgcn.alloca : !amdgcn.vgpr<16>
      %d17 = amdgcn.alloca : !amdgcn.vgpr<17>
      %r1, %t1 = amdgcn.ds ds_read_b32 %d1, %v0 : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
      %r2, %t2 = amdgcn.ds ds_read_b32 %d2, %v0 : !amdgcn.vgpr<2>, !amdgcn.vgpr<0>
      %r3, %t3 = amdgcn.ds ds_read_b32 %d3, %v0 : !amdgcn.vgpr<3>, !amdgcn.vgpr<0>
      %r4, %t4 = amdgcn.ds ds_read_b32 %d4, %v0 : !amdgcn.vgpr<4>, !amdgcn.vgpr<0>
      %r5, %t5 = amdgcn.ds ds_read_b32 %d5, %v0 : !amdgcn.vgpr<5>, !amdgcn.vgpr<0>
      %r6, %t6 = amdgcn.ds ds_read_b32 %d6, %v0 : !amdgcn.vgpr<6>, !amdgcn.vgpr<0>
      %r7, %t7 = amdgcn.ds ds_read_b32 %d7, %v0 : !amdgcn.vgpr<7>, !amdgcn.vgpr<0>
      %r8, %t8 = amdgcn.ds ds_read_b32 %d8, %v0 : !amdgcn.vgpr<8>, !amdgcn.vgpr<0>
      %r9, %t9 = amdgcn.ds ds_read_b32 %d9, %v0 : !amdgcn.vgpr<9>, !amdgcn.vgpr<0>
      %r10, %t10 = amdgcn.ds ds_read_b32 %d10, %v0 : !amdgcn.vgpr<10>, !amdgcn.vgpr<0>
      %r11, %t11 = amdgcn.ds ds_read_b32 %d11, %v0 : !amdgcn.vgpr<11>, !amdgcn.vgpr<0>
      %r12, %t12 = amdgcn.ds ds_read_b32 %d12, %v0 : !amdgcn.vgpr<12>, !amdgcn.vgpr<0>
      %r13, %t13 = amdgcn.ds ds_read_b32 %d13, %v0 : !amdgcn.vgpr<13>, !amdgcn.vgpr<0>
      %r14, %t14 = amdgcn.ds ds_read_b32 %d14, %v0 : !amdgcn.vgpr<14>, !amdgcn.vgpr<0>
      %r15, %t15 = amdgcn.ds ds_read_b32 %d15, %v0 : !amdgcn.vgpr<15>, !amdgcn.vgpr<0>
      %r16, %t16 = amdgcn.ds ds_read_b32 %d16, %v0 : !amdgcn.vgpr<16>, !amdgcn.vgpr<0>
      %r17, %t17 = amdgcn.ds ds_read_b32 %d17, %v0 : !amdgcn.vgpr<17>, !amdgcn.vgpr<0>
      %x = amdgcn.vop2 v_add_u32_e32 %v0, %r1, %r1 : !amdgcn.vgpr<0>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
      %y = amdgcn.vop2 v_add_u32_e32 %v0, %r3, %r3 : !amdgcn.vgpr<0>, !amdgcn.vgpr<3>, !amdgcn.vgpr<3>
      amdgcn.end
    }
  }
}

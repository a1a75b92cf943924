// RUN: gcnforge-opt %s --split-input-file -p amdgcn-schedule | filecheck %s

// delay/rate: A (delay 0, rate 2) at i = 0, 2; B (delay 1, rate 1) at i = 1..4.
// B at iteration j reads A's clone of iteration j - j mod 2.
// CHECK-LABEL: amdgcn.kernel @delay_rate
// CHECK:       %[[A0:[a-z0-9_]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %c0
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_add_u32_e32 %{{.*}}, %c0, %[[A0]] :
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  %c2 = arith.constant 2
// CHECK-NEXT:  %[[A2:[a-z0-9_]+]] = amdgcn.vop1 v_mov_b32_e32 %{{.*}}, %c2
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  %c1 = arith.constant 1
// CHECK-NEXT:  v_add_u32_e32 %{{.*}}, %c1, %[[A0]] :
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_add_u32_e32 %{{.*}}, %c2, %[[A2]] :
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  %c3 = arith.constant 3
// CHECK-NEXT:  v_add_u32_e32 %{{.*}}, %c3, %[[A2]] :
// CHECK-NEXT:  amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @delay_rate {
    amdgcn.loop 4 dims [4] {
    ^bb0(%i : i32):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d, %i {sched = array<i64: 0, 2>} : !amdgcn.vgpr, i32
      %e = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_add_u32_e32 %e, %i, %a {sched = array<i64: 1, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

// -----

// Three-deep interleaving over a 2 x 2 nest: load (0), convert (1), use (2).
// i=0: L0 | i=1: L1 C0 | i=2: L2 C1 U0 | i=3: L3 C2 U1 | i=4: C3 U2 | i=5: U3
// CHECK-LABEL: amdgcn.kernel @three_deep
// CHECK:      global_load_dword
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: global_load_dword
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_cvt_f32_u32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: global_load_dword
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_cvt_f32_u32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_exp_f32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: global_load_dword
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_cvt_f32_u32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_exp_f32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_cvt_f32_u32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_exp_f32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_exp_f32
// CHECK-NEXT: amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @three_deep {
    %p = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    amdgcn.loop 4 dims [2, 2] {
    ^bb0(%i : i32, %j : i32):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %v, %t = amdgcn.global global_load_dword %d, %p, off {sched = array<i64: 0, 1>} : !amdgcn.vgpr, !amdgcn.vgpr<[? + 2]>
      %e = amdgcn.alloca : !amdgcn.vgpr
      %c = amdgcn.vop1 v_cvt_f32_u32_e32 %e, %v {sched = array<i64: 1, 1>} : !amdgcn.vgpr, !amdgcn.vgpr
      %f = amdgcn.alloca : !amdgcn.vgpr
      %u = amdgcn.vop1 v_exp_f32_e32 %f, %c {sched = array<i64: 2, 1>} : !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

// -----

// Ops without a schedule inherit it: the allocas take their single consumer's
// (delay 0 for X's, 1 for Y's, ...); %w has two consumers (delays 2 and 1) and takes the earliest (1).
// i=0: X0 | i=1: X1 W0 Y0 | i=2: W1 Y1 U0 | i=3: U1
// CHECK-LABEL: amdgcn.kernel @inherit
// CHECK:      v_not_b32_e32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_not_b32_e32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: %c0 = arith.constant 0
// CHECK-NEXT: v_mov_b32_e32 %{{.*}}, %c0
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_bfrev_b32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: %c1 = arith.constant 1
// CHECK-NEXT: v_mov_b32_e32 %{{.*}}, %c1
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_bfrev_b32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_ffbh_u32
// CHECK-NEXT: amdgcn.alloca
// CHECK-NEXT: v_ffbh_u32
// CHECK-NEXT: amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @inherit {
    %z = amdgcn.alloca : !amdgcn.vgpr
    amdgcn.loop 2 dims [2] {
    ^bb0(%i : i32):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %x = amdgcn.vop1 v_not_b32_e32 %d0, %z {sched = array<i64: 0, 1>} : !amdgcn.vgpr, !amdgcn.vgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %w = amdgcn.vop1 v_mov_b32_e32 %d1, %i : !amdgcn.vgpr, i32
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %y = amdgcn.vop1 v_bfrev_b32_e32 %d2, %w {sched = array<i64: 1, 1>} : !amdgcn.vgpr, !amdgcn.vgpr
      %d3 = amdgcn.alloca : !amdgcn.vgpr
      %u = amdgcn.vop1 v_ffbh_u32_e32 %d3, %w {sched = array<i64: 2, 1>} : !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}

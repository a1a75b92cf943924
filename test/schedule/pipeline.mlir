// RUN: gcnforge-opt %s --split-input-file -p amdgcn-schedule | filecheck %s
//
// Body of every case: A (stage 0) carries the recurrence acc' = acc + 1; B = A << 1 and
// C = B - B are later stages; the loop yields (A, C). tests/schedule/test_expand.py checks
// the values of many more shapes against a sequential reference; here the structure.

// 2 stages (0, 1), nest [2], 7 iterations (not a multiple of 2): prologue = block 0 of
// stage 0; kernel = 2 iterations of one block; epilogue = A(6), then B/C of 4, 5, 6.
// CHECK-LABEL: amdgcn.kernel @s1
// CHECK:       %[[A0:[a-z0-9_]+]] = amdgcn.vop2 v_add_u32_e32
// CHECK:       %[[A1:[a-z0-9_]+]] = amdgcn.vop2 v_add_u32_e32 %{{.*}}, %one, %[[A0]]
// CHECK:       %[[K0:[0-9]+]], %[[K1:[0-9]+]] = amdgcn.loop 2 iter(%[[A1]], %[[A0]] :
// CHECK-NEXT:  ^bb0(%[[P:[0-9]+]]: !amdgcn.vgpr, %[[Q:[0-9]+]]: !amdgcn.vgpr):
// CHECK:       %[[A2:[a-z0-9_]+]] = amdgcn.vop2 v_add_u32_e32 %{{.*}}, %one, %[[P]]
// CHECK:       %[[B0:[a-z0-9_]+]] = amdgcn.vop2 v_lshlrev_b32_e32 %{{.*}}, %one, %[[Q]]
// CHECK:       v_sub_u32_e32 %{{.*}}, %[[B0]], %[[B0]]
// CHECK:       %[[A3:[a-z0-9_]+]] = amdgcn.vop2 v_add_u32_e32 %{{.*}}, %one, %[[A2]]
// CHECK:       %[[B1:[a-z0-9_]+]] = amdgcn.vop2 v_lshlrev_b32_e32 %{{.*}}, %one, %[[P]]
// CHECK:       v_sub_u32_e32 %{{.*}}, %[[B1]], %[[B1]]
// CHECK:       amdgcn.yield %[[A3]], %[[A2]] :
// CHECK:       %[[A6:[a-z0-9_]+]] = amdgcn.vop2 v_add_u32_e32 %{{.*}}, %one, %[[K0]]
// CHECK:       %[[B4:[a-z0-9_]+]] = amdgcn.vop2 v_lshlrev_b32_e32 %{{.*}}, %one, %[[K1]]
// CHECK:       v_sub_u32_e32 %{{.*}}, %[[B4]], %[[B4]]
// CHECK:       %[[B5:[a-z0-9_]+]] = amdgcn.vop2 v_lshlrev_b32_e32 %{{.*}}, %one, %[[K0]]
// CHECK:       v_sub_u32_e32 %{{.*}}, %[[B5]], %[[B5]]
// CHECK:       %[[B6:[a-z0-9_]+]] = amdgcn.vop2 v_lshlrev_b32_e32 %{{.*}}, %one, %[[A6]]
// CHECK:       v_sub_u32_e32 %{{.*}}, %[[B6]], %[[B6]]
// CHECK-NOT:   amdgcn.vop2
// CHECK:       amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @s1 {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r:2 = amdgcn.loop 7 dims [2] iter(%x, %x : !amdgcn.vgpr, !amdgcn.vgpr) {
    ^bb0(%i0 : i32, %acc : !amdgcn.vgpr, %last : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_lshlrev_b32_e32 %d1, %one, %a {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %c = amdgcn.vop2 v_sub_u32_e32 %d2, %b, %b {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield %a, %c : !amdgcn.vgpr, !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// 3 stages (0, 1, 2), no nest, 5 iterations: prologue A0 | A1 B0; kernel of 3 (A B C);
// epilogue B4 C3 | C4. Values crossing the kernel are its iteration values.
// CHECK-LABEL: amdgcn.kernel @s2
// CHECK:       v_add_u32_e32
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_add_u32_e32
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_lshlrev_b32_e32
// CHECK-NEXT:  amdgcn.loop 3 iter(
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_add_u32_e32
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_lshlrev_b32_e32
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_sub_u32_e32
// CHECK-NEXT:  amdgcn.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_lshlrev_b32_e32
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_sub_u32_e32
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  v_sub_u32_e32
// CHECK-NEXT:  amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @s2 {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r:2 = amdgcn.loop 5 iter(%x, %x : !amdgcn.vgpr, !amdgcn.vgpr) {
    ^bb0(%acc : !amdgcn.vgpr, %last : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_lshlrev_b32_e32 %d1, %one, %a {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %c = amdgcn.vop2 v_sub_u32_e32 %d2, %b, %b {sched = array<i64: 0, 1, 2>} : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield %a, %c : !amdgcn.vgpr, !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// 4 stages (C at stage 3), nest [2], 13 iterations: 3 prologue blocks (A x6, B x4),
// a kernel of 3 iterations (6 live values cross it), then the rest: 1 A, 5 B, 9 C
// (13 of each op in all: 6 + 2*3 + 1 A, 4 + 2*3 + 3 B, 2*3 + 7 C).
// CHECK-LABEL: amdgcn.kernel @s3
// CHECK-COUNT-6: v_add_u32_e32
// CHECK-NOT:     v_sub_u32_e32
// CHECK:         amdgcn.loop 3 iter(%{{[^)]*}}, %{{[^)]*}}, %{{[^)]*}}, %{{[^)]*}}, %{{[^)]*}}, %{{[^)]*}} :
// CHECK-COUNT-2: v_sub_u32_e32
// CHECK:         amdgcn.yield
// CHECK-COUNT-1: v_add_u32_e32
// CHECK-COUNT-7: v_sub_u32_e32
// CHECK-NOT:     amdgcn.vop2
// CHECK:         amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @s3 {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r:2 = amdgcn.loop 13 dims [2] iter(%x, %x : !amdgcn.vgpr, !amdgcn.vgpr) {
    ^bb0(%i0 : i32, %acc : !amdgcn.vgpr, %last : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_lshlrev_b32_e32 %d1, %one, %a {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %c = amdgcn.vop2 v_sub_u32_e32 %d2, %b, %b {sched = array<i64: 0, 1, 3>} : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield %a, %c : !amdgcn.vgpr, !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// Rates make the kernel longer than the nest: B has rate 4 with a nest of 2, so the
// schedule repeats every lcm(2, 4) = 4 iterations and the kernel body holds 2 blocks
// (one B, four A and C). 11 iterations: prologue 2, kernel 2 x 4, remainder 3 exact.
// CHECK-LABEL: amdgcn.kernel @lcm
// CHECK:         amdgcn.loop 2 iter(
// CHECK-COUNT-1: v_lshlrev_b32_e32
// CHECK-COUNT-4: v_sub_u32_e32
// CHECK-NOT:     v_lshlrev_b32_e32
// CHECK:         amdgcn.yield
// CHECK:         v_add_u32_e32
// CHECK-NEXT:    amdgcn.alloca
// CHECK-NEXT:    %[[B8:[a-z0-9_]+]] = amdgcn.vop2 v_lshlrev_b32_e32
// CHECK-COUNT-3: v_sub_u32_e32 %{{.*}}, %[[B8]], %[[B8]]
// CHECK-NOT:     amdgcn.vop2
// CHECK:         amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @lcm {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r:2 = amdgcn.loop 11 dims [2] iter(%x, %x : !amdgcn.vgpr, !amdgcn.vgpr) {
    ^bb0(%i0 : i32, %acc : !amdgcn.vgpr, %last : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_lshlrev_b32_e32 %d1, %one, %a {sched = array<i64: 0, 4, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %d2 = amdgcn.alloca : !amdgcn.vgpr
      %c = amdgcn.vop2 v_sub_u32_e32 %d2, %b, %b {sched = array<i64: 0, 1, 1>} : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
      amdgcn.yield %a, %c : !amdgcn.vgpr, !amdgcn.vgpr
    }
    amdgcn.end
  }
}

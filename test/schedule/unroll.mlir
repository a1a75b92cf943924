// RUN: gcnforge-opt %s --split-input-file -p amdgcn-schedule | filecheck %s
// RUN: gcnforge-opt %s --split-input-file | gcnforge-opt --split-input-file | filecheck %s --check-prefix=ROUND

// 1-D unroll, the nest is the whole loop: 4 clones in order, indices as constants.
// CHECK-LABEL: amdgcn.kernel @one_d
// CHECK-NOT:   amdgcn.loop
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %x
// CHECK-NEXT:  amdgcn.alloca
// CHECK-NEXT:  %c1 = arith.constant 1 : i32
// CHECK-NEXT:  v_add_u32_e32 %{{.*}}, %c1, %[[S0:[a-z0-9_]+]]
// CHECK:       v_add_u32_e32 %{{.*}}, %c2,
// CHECK:       v_add_u32_e32 %{{.*}}, %c3,
// CHECK-NOT:   v_add_u32_e32
// CHECK:       amdgcn.end
// ROUND-LABEL: amdgcn.kernel @one_d
// ROUND:       %r = amdgcn.loop 4 dims [4] iter(%x : !amdgcn.vgpr) {
// ROUND-NEXT:  ^bb0(%i: i32, %a: !amdgcn.vgpr):
// ROUND:       amdgcn.yield %s : !amdgcn.vgpr
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @one_d {
    %z = arith.constant 0 : i32
    %d0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %d0, %z : !amdgcn.vgpr, i32
    %r = amdgcn.loop 4 dims [4] iter(%x : !amdgcn.vgpr) {
    ^bb0(%i : i32, %a : !amdgcn.vgpr):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %s = amdgcn.vop2 v_add_u32_e32 %d, %i, %a : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %s : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// 2-D nest [2, 3] with perm [1, 0]: dim 1 outermost, dim 0 innermost. Each iteration
// adds i then j (VOP2 src0 takes the index, a constant once unrolled).
// CHECK-LABEL: amdgcn.kernel @two_d_perm
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c2, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c2, %
// CHECK-NOT:   v_add_u32_e32
// CHECK:       amdgcn.end
// ROUND:       amdgcn.loop 6 dims [2, 3] perm [1, 0] iter(
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @two_d_perm {
    %z = arith.constant 0 : i32
    %d0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %d0, %z : !amdgcn.vgpr, i32
    %r = amdgcn.loop 6 dims [2, 3] perm [1, 0] iter(%x : !amdgcn.vgpr) {
    ^bb0(%i : i32, %j : i32, %a : !amdgcn.vgpr):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %s = amdgcn.vop2 v_add_u32_e32 %d, %i, %a : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %e = amdgcn.alloca : !amdgcn.vgpr
      %t = amdgcn.vop2 v_add_u32_e32 %e, %j, %s : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %t : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// 3-D nest [2, 2, 2] with perm [2, 0, 1]: order k (outer), i, j (inner); adds i, j, k.
// CHECK-LABEL: amdgcn.kernel @three_d_perm
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK-NOT:   v_add_u32_e32
// ROUND:       amdgcn.loop 8 dims [2, 2, 2] perm [2, 0, 1] iter(
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @three_d_perm {
    %z = arith.constant 0 : i32
    %d0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %d0, %z : !amdgcn.vgpr, i32
    %r = amdgcn.loop 8 dims [2, 2, 2] perm [2, 0, 1] iter(%x : !amdgcn.vgpr) {
    ^bb0(%i : i32, %j : i32, %k : i32, %a : !amdgcn.vgpr):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %s = amdgcn.vop2 v_add_u32_e32 %d, %i, %a : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %e = amdgcn.alloca : !amdgcn.vgpr
      %t = amdgcn.vop2 v_add_u32_e32 %e, %j, %s : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %f = amdgcn.alloca : !amdgcn.vgpr
      %u = amdgcn.vop2 v_add_u32_e32 %f, %k, %t : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %u : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// -----

// A trip count that is a multiple of the nest keeps a loop over unrolled bodies (the
// indices repeat per body; the iteration value is carried); 3-D, default order.
// CHECK-LABEL: amdgcn.kernel @outer_loop
// CHECK:       amdgcn.loop 3 iter(%x : !amdgcn.vgpr) {
// CHECK-NEXT:  ^bb0(%{{.*}}: !amdgcn.vgpr):
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c0, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK:       v_add_u32_e32 %{{.*}}, %c1, %
// CHECK-NOT:   v_add_u32_e32
// CHECK:       amdgcn.yield
// CHECK-NEXT:  }
// CHECK-NEXT:  amdgcn.end
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @outer_loop {
    %z = arith.constant 0 : i32
    %d0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %d0, %z : !amdgcn.vgpr, i32
    %r = amdgcn.loop 24 dims [2, 2, 2] iter(%x : !amdgcn.vgpr) {
    ^bb0(%i : i32, %j : i32, %k : i32, %a : !amdgcn.vgpr):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %s = amdgcn.vop2 v_add_u32_e32 %d, %i, %a : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %e = amdgcn.alloca : !amdgcn.vgpr
      %t = amdgcn.vop2 v_add_u32_e32 %e, %j, %s : !amdgcn.vgpr, i32, !amdgcn.vgpr
      %f = amdgcn.alloca : !amdgcn.vgpr
      %u = amdgcn.vop2 v_add_u32_e32 %f, %k, %t : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %u : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

// RUN: gcnforge-opt %s --split-input-file -p amdgcn-regalloc | filecheck %s

// Straight line: v0 is pinned (preloaded); fresh values reuse dead registers.
// CHECK-LABEL: amdgcn.kernel @line
// CHECK-SAME: regalloc = {v = 2 : i32, a = 0 : i32, s = 0 : i32}, regalloc_bound = {v = 2 : i32
// CHECK: v_lshlrev_b32_e32 %{{.*}} : !amdgcn.vgpr<1>, i32, !amdgcn.vgpr<0>
// CHECK: v_add_u32_e32 %{{.*}} : !amdgcn.vgpr<0>, !amdgcn.vgpr<1>, !amdgcn.vgpr<0>
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @line {
      %c2 = arith.constant 2 : i32
      %tid = amdgcn.alloca : !amdgcn.vgpr<0>
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_lshlrev_b32_e32 %d0, %c2, %tid : !amdgcn.vgpr, i32, !amdgcn.vgpr<0>
      %d1 = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_add_u32_e32 %d1, %a, %tid : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr<0>
      amdgcn.end
    }
  }
}

// -----

// Alignment: an SGPR pair is even, a quad 4-aligned, around a pinned s1.
// CHECK-LABEL: amdgcn.kernel @align
// CHECK: s_load_dwordx4 %{{.*}} : !amdgcn.sgpr<[4 : 8]>, !amdgcn.sgpr<[2 : 4]>, i32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @align {
      %c0 = arith.constant 0 : i32
      %s1 = amdgcn.alloca : !amdgcn.sgpr<1>
      %p = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
      %pp = amdgcn.sop1 s_mov_b64 %p, %c0 : !amdgcn.sgpr<[? + 2]>, i32
      %q = amdgcn.alloca : !amdgcn.sgpr<[? + 4]>
      %qq, %t = amdgcn.smem s_load_dwordx4 %q, %pp, %c0 : !amdgcn.sgpr<[? + 4]>, !amdgcn.sgpr<[? + 2]>, i32
      %d = amdgcn.alloca : !amdgcn.sgpr
      %x = amdgcn.sop2 s_add_u32 %d, %s1, %c0 : !amdgcn.sgpr, !amdgcn.sgpr<1>, i32
      %parts:4 = amdgcn.split_range %qq : !amdgcn.sgpr<[? + 4]> -> !amdgcn.sgpr, !amdgcn.sgpr, !amdgcn.sgpr, !amdgcn.sgpr
      %e = amdgcn.alloca : !amdgcn.sgpr
      %y = amdgcn.sop2 s_add_u32 %e, %parts#3, %x : !amdgcn.sgpr, !amdgcn.sgpr, !amdgcn.sgpr
      amdgcn.end
    }
  }
}

// -----

// A loop: the accumulator is storage written in place each iteration; the loop-carried
// value and the counter stay live around the back edge, the temporary reuses nothing of theirs.
// CHECK-LABEL: amdgcn.kernel @loop
// CHECK: regalloc = {v = 2 : i32, a = 0 : i32, s = 1 : i32}
// CHECK: ^{{.*}}:
// CHECK: v_add_u32_e32 %{{.*}} : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.vgpr<0>
// CHECK: v_add_u32_e32 %{{.*}} : !amdgcn.vgpr<0>, !amdgcn.vgpr<0>, !amdgcn.vgpr<1>
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @loop {
      %c1 = arith.constant 1 : i32
      %c0 = arith.constant 0 : i32
      %acc = amdgcn.alloca : !amdgcn.vgpr<?>
      %n = amdgcn.alloca : !amdgcn.sgpr<?>
      %a0 = amdgcn.vop1 v_mov_b32_e32 %acc, %c0 : !amdgcn.vgpr<?>, i32
      %n0 = amdgcn.sop1 s_mov_b32 %n, %c0 : !amdgcn.sgpr<?>, i32
      amdgcn.branch s_branch ^body
    ^body:
      %t = amdgcn.alloca : !amdgcn.vgpr
      %tt = amdgcn.vop2 v_add_u32_e32 %t, %acc, %acc : !amdgcn.vgpr, !amdgcn.vgpr<?>, !amdgcn.vgpr<?>
      %a1 = amdgcn.vop2 v_add_u32_e32 %acc, %acc, %tt : !amdgcn.vgpr<?>, !amdgcn.vgpr<?>, !amdgcn.vgpr
      %n1 = amdgcn.sop2 s_add_u32 %n, %n, %c1 : !amdgcn.sgpr<?>, !amdgcn.sgpr<?>, i32
      amdgcn.branch s_cbranch_scc1 ^body, ^exit
    ^exit:
      amdgcn.end
    }
  }
}

// -----

// Pins name registers: a pinned pair and a pinned sub-register of it (s[2:3] and s2, as
// raised clang code has them) are the same storage, never a conflict. %x lives while the
// pair is still to be read, so it cannot take s2 or s3.
// CHECK-LABEL: amdgcn.kernel @alias
// CHECK: s_add_u32 %{{.*}} : !amdgcn.sgpr<0>, !amdgcn.sgpr<2>, i32
// CHECK: s_load_dwordx2 %{{.*}}, !amdgcn.sgpr<[2 : 4]>, i32
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @alias {
      %c0 = arith.constant 0 : i32
      %k = amdgcn.alloca : !amdgcn.sgpr<[2 : 4]>
      %lo = amdgcn.alloca : !amdgcn.sgpr<2>
      %d = amdgcn.alloca : !amdgcn.sgpr
      %x = amdgcn.sop2 s_add_u32 %d, %lo, %c0 : !amdgcn.sgpr, !amdgcn.sgpr<2>, i32
      %q = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
      %qq, %t = amdgcn.smem s_load_dwordx2 %q, %k, %c0 : !amdgcn.sgpr<[? + 2]>, !amdgcn.sgpr<[2 : 4]>, i32
      %e = amdgcn.alloca : !amdgcn.sgpr
      %y = amdgcn.sop2 s_add_u32 %e, %x, %c0 : !amdgcn.sgpr, !amdgcn.sgpr, i32
      amdgcn.end
    }
  }
}

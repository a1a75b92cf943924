// RUN: gcnforge-opt %s --split-input-file -p "amdgcn-regalloc{max_vgprs=4 max_sgprs=4}" | filecheck %s

// Compaction in the kernel pass (issue 19.4): four VGPRs, and at most four values live at
// once, but each 64-bit %p / %q is defined where the two live single values sit one in each
// aligned pair. Before compaction reached the pass this failed with "cannot place %p (v[2])
// ... (alignment and range sizes fragment the file)". Now the live values are copied out of
// the range's way right before its definition (one parallel copy, emitted as moves that read
// each register before it is overwritten), and every later read names the new register.
// CHECK-LABEL: amdgcn.kernel @two
// CHECK-SAME: regalloc = {v = 4 : i32
// CHECK: %a = amdgcn.vop1 v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<0>, i32
// CHECK: %c = amdgcn.vop1 v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<2>, i32
// c moves to v3 first (v3 is free), then a to v2 (c's old register): v[0:1] is free for %p
// CHECK: v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<3>, !amdgcn.vgpr<2>
// CHECK-NEXT: v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<2>, !amdgcn.vgpr<0>
// CHECK-NEXT: %p = amdgcn.vop3 v_lshlrev_b64 {{.*}} : !amdgcn.vgpr<[0 : 2]>
// CHECK: %x = amdgcn.vop1 v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<0>, i32
// c is read where it moved
// CHECK: v_readfirstlane_b32 {{.*}} : !amdgcn.sgpr<{{[0-9]+}}>, !amdgcn.vgpr<3>
// x moves to v3 (c and y are dead): v[0:1] is free for %q
// CHECK: v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<3>, !amdgcn.vgpr<0>
// CHECK-NEXT: %q = amdgcn.vop3 v_lshlrev_b64 {{.*}} : !amdgcn.vgpr<[0 : 2]>
// a and x are read where they moved
// CHECK: v_readfirstlane_b32 {{.*}} : !amdgcn.sgpr<{{[0-9]+}}>, !amdgcn.vgpr<2>
// CHECK-NEXT: v_readfirstlane_b32 {{.*}} : !amdgcn.sgpr<{{[0-9]+}}>, !amdgcn.vgpr<3>
// CHECK-NEXT: amdgcn.end
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @two {
      %c1 = arith.constant 1 : i32
      %sp = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
      %s = amdgcn.sop1 s_mov_b64 %sp, %c1 : !amdgcn.sgpr<[? + 2]>, i32
      %ca = arith.constant 10 : i32
      %da = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %da, %ca : !amdgcn.vgpr, i32
      %cb = arith.constant 11 : i32
      %db = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop1 v_mov_b32_e32 %db, %cb : !amdgcn.vgpr, i32
      %cc = arith.constant 12 : i32
      %dc = amdgcn.alloca : !amdgcn.vgpr
      %c = amdgcn.vop1 v_mov_b32_e32 %dc, %cc : !amdgcn.vgpr, i32
      %cd = arith.constant 13 : i32
      %dd = amdgcn.alloca : !amdgcn.vgpr
      %d = amdgcn.vop1 v_mov_b32_e32 %dd, %cd : !amdgcn.vgpr, i32
      %dr1 = amdgcn.alloca : !amdgcn.sgpr
      %r1 = amdgcn.vop1 v_readfirstlane_b32 %dr1, %b : !amdgcn.sgpr, !amdgcn.vgpr
      %dr2 = amdgcn.alloca : !amdgcn.sgpr
      %r2 = amdgcn.vop1 v_readfirstlane_b32 %dr2, %d : !amdgcn.sgpr, !amdgcn.vgpr
      %dp = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
      %p = amdgcn.vop3 v_lshlrev_b64 %dp, %c1, %s : !amdgcn.vgpr<[? + 2]>, i32, !amdgcn.sgpr<[? + 2]>
      %plo, %phi = amdgcn.split_range %p : !amdgcn.vgpr<[? + 2]> -> !amdgcn.vgpr, !amdgcn.vgpr
      %dr3 = amdgcn.alloca : !amdgcn.sgpr
      %r3 = amdgcn.vop1 v_readfirstlane_b32 %dr3, %plo : !amdgcn.sgpr, !amdgcn.vgpr
      %dr4 = amdgcn.alloca : !amdgcn.sgpr
      %r4 = amdgcn.vop1 v_readfirstlane_b32 %dr4, %phi : !amdgcn.sgpr, !amdgcn.vgpr
      %cx = arith.constant 20 : i32
      %dx = amdgcn.alloca : !amdgcn.vgpr
      %x = amdgcn.vop1 v_mov_b32_e32 %dx, %cx : !amdgcn.vgpr, i32
      %cy = arith.constant 21 : i32
      %dy = amdgcn.alloca : !amdgcn.vgpr
      %y = amdgcn.vop1 v_mov_b32_e32 %dy, %cy : !amdgcn.vgpr, i32
      %dr5 = amdgcn.alloca : !amdgcn.sgpr
      %r5 = amdgcn.vop1 v_readfirstlane_b32 %dr5, %c : !amdgcn.sgpr, !amdgcn.vgpr
      %dr6 = amdgcn.alloca : !amdgcn.sgpr
      %r6 = amdgcn.vop1 v_readfirstlane_b32 %dr6, %y : !amdgcn.sgpr, !amdgcn.vgpr
      %dq = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
      %q = amdgcn.vop3 v_lshlrev_b64 %dq, %c1, %s : !amdgcn.vgpr<[? + 2]>, i32, !amdgcn.sgpr<[? + 2]>
      %qlo, %qhi = amdgcn.split_range %q : !amdgcn.vgpr<[? + 2]> -> !amdgcn.vgpr, !amdgcn.vgpr
      %dr7 = amdgcn.alloca : !amdgcn.sgpr
      %r7 = amdgcn.vop1 v_readfirstlane_b32 %dr7, %qlo : !amdgcn.sgpr, !amdgcn.vgpr
      %dr8 = amdgcn.alloca : !amdgcn.sgpr
      %r8 = amdgcn.vop1 v_readfirstlane_b32 %dr8, %qhi : !amdgcn.sgpr, !amdgcn.vgpr
      %dr9 = amdgcn.alloca : !amdgcn.sgpr
      %r9 = amdgcn.vop1 v_readfirstlane_b32 %dr9, %a : !amdgcn.sgpr, !amdgcn.vgpr
      %dr10 = amdgcn.alloca : !amdgcn.sgpr
      %r10 = amdgcn.vop1 v_readfirstlane_b32 %dr10, %x : !amdgcn.sgpr, !amdgcn.vgpr
      amdgcn.end
    }
  }
}

// -----

// The same in SGPRs (s_mov_b32 copies; SCC untouched): before, "cannot place %p (s[2])".
// CHECK-LABEL: amdgcn.kernel @stwo
// CHECK-SAME: regalloc = {v = 1 : i32, a = 0 : i32, s = 4 : i32}
// CHECK: %c = amdgcn.sop1 s_mov_b32 {{.*}} : !amdgcn.sgpr<2>, i32
// CHECK: s_mov_b32 {{.*}} : !amdgcn.sgpr<3>, !amdgcn.sgpr<2>
// CHECK-NEXT: s_mov_b32 {{.*}} : !amdgcn.sgpr<2>, !amdgcn.sgpr<0>
// CHECK-NEXT: %p = amdgcn.sop1 s_mov_b64 {{.*}} : !amdgcn.sgpr<[0 : 2]>, i32
// CHECK: s_mov_b32 {{.*}} : !amdgcn.sgpr<3>, !amdgcn.sgpr<0>
// CHECK-NEXT: %q = amdgcn.sop1 s_mov_b64 {{.*}} : !amdgcn.sgpr<[0 : 2]>, i32
// CHECK: v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<0>, !amdgcn.sgpr<2>
// CHECK-NEXT: v_mov_b32_e32 {{.*}} : !amdgcn.vgpr<0>, !amdgcn.sgpr<3>
// CHECK-NEXT: amdgcn.end
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @stwo {
      %c1 = arith.constant 1 : i32
      %ca = arith.constant 10 : i32
      %da = amdgcn.alloca : !amdgcn.sgpr
      %a = amdgcn.sop1 s_mov_b32 %da, %ca : !amdgcn.sgpr, i32
      %cb = arith.constant 11 : i32
      %db = amdgcn.alloca : !amdgcn.sgpr
      %b = amdgcn.sop1 s_mov_b32 %db, %cb : !amdgcn.sgpr, i32
      %cc = arith.constant 12 : i32
      %dc = amdgcn.alloca : !amdgcn.sgpr
      %c = amdgcn.sop1 s_mov_b32 %dc, %cc : !amdgcn.sgpr, i32
      %cd = arith.constant 13 : i32
      %dd = amdgcn.alloca : !amdgcn.sgpr
      %d = amdgcn.sop1 s_mov_b32 %dd, %cd : !amdgcn.sgpr, i32
      %dr1 = amdgcn.alloca : !amdgcn.vgpr
      %r1 = amdgcn.vop1 v_mov_b32_e32 %dr1, %b : !amdgcn.vgpr, !amdgcn.sgpr
      %dr2 = amdgcn.alloca : !amdgcn.vgpr
      %r2 = amdgcn.vop1 v_mov_b32_e32 %dr2, %d : !amdgcn.vgpr, !amdgcn.sgpr
      %dp = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
      %p = amdgcn.sop1 s_mov_b64 %dp, %c1 : !amdgcn.sgpr<[? + 2]>, i32
      %plo, %phi = amdgcn.split_range %p : !amdgcn.sgpr<[? + 2]> -> !amdgcn.sgpr, !amdgcn.sgpr
      %dr3 = amdgcn.alloca : !amdgcn.vgpr
      %r3 = amdgcn.vop1 v_mov_b32_e32 %dr3, %plo : !amdgcn.vgpr, !amdgcn.sgpr
      %dr4 = amdgcn.alloca : !amdgcn.vgpr
      %r4 = amdgcn.vop1 v_mov_b32_e32 %dr4, %phi : !amdgcn.vgpr, !amdgcn.sgpr
      %cx = arith.constant 20 : i32
      %dx = amdgcn.alloca : !amdgcn.sgpr
      %x = amdgcn.sop1 s_mov_b32 %dx, %cx : !amdgcn.sgpr, i32
      %cy = arith.constant 21 : i32
      %dy = amdgcn.alloca : !amdgcn.sgpr
      %y = amdgcn.sop1 s_mov_b32 %dy, %cy : !amdgcn.sgpr, i32
      %dr5 = amdgcn.alloca : !amdgcn.vgpr
      %r5 = amdgcn.vop1 v_mov_b32_e32 %dr5, %c : !amdgcn.vgpr, !amdgcn.sgpr
      %dr6 = amdgcn.alloca : !amdgcn.vgpr
      %r6 = amdgcn.vop1 v_mov_b32_e32 %dr6, %y : !amdgcn.vgpr, !amdgcn.sgpr
      %dq = amdgcn.alloca : !amdgcn.sgpr<[? + 2]>
      %q = amdgcn.sop1 s_mov_b64 %dq, %c1 : !amdgcn.sgpr<[? + 2]>, i32
      %qlo, %qhi = amdgcn.split_range %q : !amdgcn.sgpr<[? + 2]> -> !amdgcn.sgpr, !amdgcn.sgpr
      %dr7 = amdgcn.alloca : !amdgcn.vgpr
      %r7 = amdgcn.vop1 v_mov_b32_e32 %dr7, %qlo : !amdgcn.vgpr, !amdgcn.sgpr
      %dr8 = amdgcn.alloca : !amdgcn.vgpr
      %r8 = amdgcn.vop1 v_mov_b32_e32 %dr8, %qhi : !amdgcn.vgpr, !amdgcn.sgpr
      %dr9 = amdgcn.alloca : !amdgcn.vgpr
      %r9 = amdgcn.vop1 v_mov_b32_e32 %dr9, %a : !amdgcn.vgpr, !amdgcn.sgpr
      %dr10 = amdgcn.alloca : !amdgcn.vgpr
      %r10 = amdgcn.vop1 v_mov_b32_e32 %dr10, %x : !amdgcn.vgpr, !amdgcn.sgpr
      amdgcn.end
    }
  }
}

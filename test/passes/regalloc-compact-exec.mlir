// RUN: not gcnforge-opt %s -p "amdgcn-regalloc{max_vgprs=4}" 2>&1 | filecheck %s

// regalloc-compact.mlir's @two with an EXEC write in the kernel: a vector move copies the
// active lanes only, so compaction (like splitting) moves no VGPR and the kernel fails with
// the diagnostic the author can act on, naming the range and what is live with it.
// CHECK: error: out of VGPRs: cannot place %p (v[2]) defined by amdgcn.vop3 v_lshlrev_b64 within 4 VGPRs
// CHECK-NEXT: note: live: %a (v)
// CHECK-NEXT: note: live: %x (v)
// CHECK-NOT: amdgcn.kernel
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @two_exec {
      %c0 = arith.constant 0 : i32
      %e = amdgcn.alloca : !amdgcn.special<exec>
      %m = amdgcn.sop1 s_mov_b64 %e, %c0 : !amdgcn.special<exec>, i32
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

// RUN: not gcnforge-opt %s --split-input-file -p amdgcn-regalloc 2>&1 | filecheck %s

// Conflicting pins: both values are named.
// CHECK: error: conflicting pinned registers: %b (v) defined by amdgcn.alloca : !amdgcn.vgpr<5> at v5 and %a (v[2]) defined by amdgcn.alloca : !amdgcn.vgpr<[4 : 6]> at v[4:5] are live at the same time
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @pins {
      %c0 = arith.constant 0 : i32
      %a = amdgcn.alloca : !amdgcn.vgpr<[4 : 6]>
      %b = amdgcn.alloca : !amdgcn.vgpr<5>
      %x = amdgcn.vop1 v_mov_b32_e32 %b, %c0 : !amdgcn.vgpr<5>, i32
      %d = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
      %y = amdgcn.vop3 v_lshlrev_b64 %d, %c0, %a : !amdgcn.vgpr<[? + 2]>, i32, !amdgcn.vgpr<[4 : 6]>
      %e = amdgcn.alloca : !amdgcn.vgpr
      %z = amdgcn.vop2 v_add_u32_e32 %e, %x, %x : !amdgcn.vgpr, !amdgcn.vgpr<5>, !amdgcn.vgpr<5>
      amdgcn.end
    }
  }
}

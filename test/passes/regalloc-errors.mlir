// RUN: not gcnforge-opt %s --split-input-file -p 'amdgcn-regalloc{max_vgprs=8}' 2>&1 | filecheck %s

// A pin outside the registers the pass may use is named with its limit.
// CHECK: error: %a (v[2]) defined by amdgcn.alloca : !amdgcn.vgpr<[8 : 10]> is pinned to v[8:9], which is outside the 8 available VGPRs
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @pins {
      %c0 = arith.constant 0 : i32
      %a = amdgcn.alloca : !amdgcn.vgpr<[8 : 10]>
      %d = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
      %y = amdgcn.vop3 v_lshlrev_b64 %d, %c0, %a : !amdgcn.vgpr<[? + 2]>, i32, !amdgcn.vgpr<[8 : 10]>
      amdgcn.end
    }
  }
}

// RUN: gcnforge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// Instructions and limits are the module target's: a gfx950-only instruction in a gfx942
// module, one gfx950 dropped (LLVM 22 decodes no xf32 MFMA for gfx950), LDS beyond a target's size.

amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %a = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    %c = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    // CHECK: gfx950-invalid.mlir:[[# @LINE + 1]]:22: error: 'v_mfma_f32_16x16x32_f16' is not a gfx942 instruction (the gfx950 table has it; the module's target is #amdgcn.target<gfx942>)
    %d = amdgcn.mfma v_mfma_f32_16x16x32_f16 %c, %a, %a, %c : !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx950> {
  amdgcn.kernel @k {
    %a = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    %c = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    // CHECK: [[# @LINE + 1]]:22: error: 'v_mfma_f32_16x16x8_xf32' is not a gfx950 instruction (the gfx942 table has it; the module's target is #amdgcn.target<gfx950>)
    %d = amdgcn.mfma v_mfma_f32_16x16x8_xf32 %c, %a, %a, %c : !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr<[? + 4]>
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  // CHECK: lds_size 163840 exceeds the 65536 bytes of LDS of gfx942
  amdgcn.kernel @k attributes {lds_size = 163840 : i32} {
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx950> {
  // CHECK: lds_size 163844 exceeds the 163840 bytes of LDS of gfx950
  amdgcn.kernel @k attributes {lds_size = 163844 : i32} {
    amdgcn.end
  }
}

// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    // CHECK: amdgcn.lds_alloc: size 100000 must be in (0, 65536] on gfx942
    %l = amdgcn.lds_alloc 100000 align 16 : i32
    amdgcn.end
  }
}

// -----
// A negative lds_size (found by fuzz/harness.py --mcpu gfx950: it used to raise UnboundLocalError)
amdgcn.module @m #amdgcn.target<gfx950> {
  // CHECK: gfx950-invalid.mlir:[[# @LINE + 1]]:3: error: lds_size -2147483648 is negative
  amdgcn.kernel @k attributes {lds_size = 2147483648 : i32} {
    amdgcn.end
  }
}

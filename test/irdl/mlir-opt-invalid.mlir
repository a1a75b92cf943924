// REQUIRES: llvm
// mlir-opt, with only the IRDL export to go by, rejects what the dialect forbids.
// (--disable-verify lets gcnforge-opt print IR its own verifier would reject.)
// RUN: gcnforge-opt --emit-irdl -o %t.irdl
// RUN: gcnforge-opt %s --split-input-file --disable-verify --mlir-generic | not mlir-opt --split-input-file --allow-unregistered-dialect --irdl-file=%t.irdl 2>&1 | filecheck %s

// An SGPR as a DS address: DS operands are VGPRs/AGPRs only.
// CHECK: error: '!amdgcn.sgpr<-2 : i32, 1 : i32, 1 : i32>' does not satisfy the constraint
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %s = amdgcn.alloca : !amdgcn.sgpr
    %r, %t = amdgcn.ds ds_read_b32 %v, %s : !amdgcn.vgpr, !amdgcn.sgpr
    amdgcn.end
  }
}

// -----
// A VOP3 instruction on the VOP2 op.
// CHECK: error: '"v_add_f32_e64"' does not satisfy the constraint
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %r = "amdgcn.vop2"(%v, %v, %v) {inst = #amdgcn.inst<v_add_f32_e64>} : (!amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
// A kernel argument loaded into a VGPR.
// CHECK: error: expected base type 'amdgcn.sgpr' but got 'amdgcn.vgpr'
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k attributes {args = [#amdgcn.arg<name = "n">]} {
    %n = "amdgcn.load_arg"() {index = 0 : i32} : () -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
// A memory token where a register is expected.
// CHECK: error: '!amdgcn.read_token' does not satisfy the constraint
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %r, %t = amdgcn.ds ds_read_b32 %v, %v : !amdgcn.vgpr, !amdgcn.vgpr
    %x = "amdgcn.vop1"(%v, %t) {inst = #amdgcn.inst<v_mov_b32_e32>} : (!amdgcn.vgpr, !amdgcn.read_token) -> !amdgcn.vgpr
    amdgcn.end
  }
}

// -----
// amdgcn.if on a 64-bit compare: only the 32-bit s_cmp_* compares set the SCC it tests.
// CHECK: error: '"s_cmp_eq_u64"' does not satisfy the constraint
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %s = amdgcn.alloca : !amdgcn.sgpr
    "amdgcn.if"(%s, %s) ({
      amdgcn.yield
    }, {
      amdgcn.yield
    }) {inst = #amdgcn.inst<s_cmp_eq_u64>} : (!amdgcn.sgpr, !amdgcn.sgpr) -> ()
    amdgcn.end
  }
}

// -----
// amdgcn.if on a VGPR: the compare reads scalar values.
// CHECK: error: {{.*}}does not satisfy the constraint
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %s = amdgcn.alloca : !amdgcn.sgpr
    %v = amdgcn.alloca : !amdgcn.vgpr
    "amdgcn.if"(%v, %s) ({
      amdgcn.yield
    }, {
      amdgcn.yield
    }) {inst = #amdgcn.inst<s_cmp_eq_u32>} : (!amdgcn.vgpr, !amdgcn.sgpr) -> ()
    amdgcn.end
  }
}

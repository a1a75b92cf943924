// REQUIRES: llvm
// The IRDL export loads into LLVM's mlir-opt, and IR printed in MLIR-generic form verifies there.
// RUN: gcnforge-opt --emit-irdl -o %t.irdl
// RUN: gcnforge-opt %S/../dialect/ops.mlir --mlir-generic | mlir-opt --allow-unregistered-dialect --irdl-file=%t.irdl | filecheck %s
// RUN: gcnforge-opt %s --mlir-generic | mlir-opt --allow-unregistered-dialect --irdl-file=%t.irdl | filecheck %s --check-prefix=SMALL

// CHECK: "amdgcn.module"
// CHECK: "amdgcn.vop2"({{.*}}) {inst = #amdgcn.inst<"v_add_f32_e32">, operandSegmentSizes = array<i32: 1, 1, 1
// CHECK: "amdgcn.mfma"
// CHECK: "amdgcn.global"({{.*}}) {inst = #amdgcn.inst<"global_store_dword">, off = array<i64: 2>
// CHECK: "amdgcn_cf.branch"(){{.*}}[^bb1, ^bb2]
// CHECK: "amdgcn_cf.end"

// SMALL: "amdgcn.kernel"
// SMALL: "amdgcn.vop3"({{.*}}) {inst = #amdgcn.inst<"v_add_f32_e64">, mods = {clamp}
// SMALL-SAME: !amdgcn.vgpr<-2 : i32, 1 : i32, 1 : i32>
amdgcn.module @small #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v = amdgcn.alloca : !amdgcn.vgpr
    %c = arith.constant 0.5 : f32
    %r = amdgcn.vop3 v_add_f32_e64 %v, %c, %v clamp : !amdgcn.vgpr, f32, !amdgcn.vgpr
    // SMALL: "amdgcn.loop"(%{{.*}}) ({
    // SMALL: "amdgcn_cf.yield"
    %l = amdgcn.loop 4 iter(%r : !amdgcn.vgpr) {
    ^bb0(%acc : !amdgcn.vgpr):
      %n = amdgcn.vop2 v_add_f32_e32 %v, %c, %acc : !amdgcn.vgpr, f32, !amdgcn.vgpr
      amdgcn.yield %n : !amdgcn.vgpr
    }
    // SMALL: "amdgcn.if"(%{{.*}}, %{{.*}}) ({
    // SMALL: "amdgcn_cf.yield"
    // SMALL: }, {
    // SMALL: }) {inst = #amdgcn.inst<"s_cmp_lt_u32">, resultSegmentSizes = array<i32: 1, 0,{{.*}}} : (!amdgcn.sgpr<-2 : i32, 1 : i32, 1 : i32>, i32) -> !amdgcn.vgpr
    %n = amdgcn.alloca : !amdgcn.sgpr
    %c3 = arith.constant 3 : i32
    %m = amdgcn.if s_cmp_lt_u32 (%n, %c3 : !amdgcn.sgpr, i32) -> (!amdgcn.vgpr) {
      %w = amdgcn.vop2 v_add_f32_e32 %v, %c, %l : !amdgcn.vgpr, f32, !amdgcn.vgpr
      amdgcn.yield %w : !amdgcn.vgpr
    } else {
      amdgcn.yield %l : !amdgcn.vgpr
    }
    amdgcn.end
  }
}

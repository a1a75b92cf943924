// RUN: gcnforge compile %s -S -o - | grep -v '^\s*\.loc' | filecheck %s
// RUN: gcnforge compile %s -S -o - | filecheck %s --check-prefix=LOC
// RUN: gcnforge compile %s --toolchain llvm -o %t.hsaco
// REQUIRES: llvm
// (LLVM 22's llvm-mc and ld.lld, found by gcnforge.llvm_tools, accept the text: a bare
// `llvm-mc` on PATH may be an older LLVM without gfx942.)

// A kernel with a loop and a forward exit, through the whole default pipeline: labels per
// block, the conditional branch's fall-through emitted as s_branch when it is not next,
// waits and the kernel descriptor from the allocation; llvm-mc accepts the text.
// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// CHECK: k:
// CHECK: s_load_dwordx2 s[{{[0-9]+}}:{{[0-9]+}}], s[0:1], 0x0
// CHECK-NEXT: s_waitcnt lgkmcnt(0)
// CHECK: .LBB0_1:
// CHECK: global_load_dword [[V:v[0-9]+]]
// CHECK-NEXT: s_waitcnt vmcnt(0)
// CHECK-NEXT: v_add_f32_e32 v{{[0-9]+}}, v{{[0-9]+}}, [[V]]
// CHECK: s_cbranch_scc1 .LBB0_1
// CHECK-NEXT: s_branch .LBB0_3
// CHECK: .LBB0_2:
// CHECK: .LBB0_3:
// CHECK: s_endpgm
// CHECK: .amdhsa_kernel k
// CHECK: .amdhsa_user_sgpr_kernarg_segment_ptr 1
// CHECK: .amdhsa_next_free_vgpr
// CHECK: .amdhsa_accum_offset 4
// CHECK: .end_amdhsa_kernel
// CHECK: .amdgpu_metadata
// CHECK: .name: 'p'
// CHECK: .end_amdgpu_metadata

// Line directives: this file is DWARF file 0; each instruction is at its op's line:column
// (the loads of the kernel argument at load_arg's, the loop's load at its own).
// LOC: .file 0 "{{.*}}translate" "compile-loop.mlir"
// LOC: k:
// LOC-NEXT: .loc 0 [[# @LINE + 13]] 7
// LOC-NEXT: s_load_dwordx2
// LOC: .LBB0_1:
// LOC-NEXT: .loc 0 [[# @LINE + 20]] 7
// LOC-NEXT: global_load_dword
// LOC: .loc 0 [[# @LINE + 26]] 7
// LOC-NEXT: global_store_dword
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k attributes {args = [#amdgcn.arg<name = "p", kind = global_buffer, size = 8, align = 8, space = global, access = read_write>]} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c4 = arith.constant 4 : i32
      %p = amdgcn.load_arg 0 : !amdgcn.sgpr<[? + 2]>
      %t = amdgcn.thread_id x : !amdgcn.vgpr
      %acc = amdgcn.alloca : !amdgcn.vgpr<?>
      %i = amdgcn.alloca : !amdgcn.sgpr<?>
      %a0 = amdgcn.vop1 v_mov_b32_e32 %acc, %c0 : !amdgcn.vgpr<?>, i32
      %i0 = amdgcn.sop1 s_mov_b32 %i, %c0 : !amdgcn.sgpr<?>, i32
      %d = amdgcn.alloca : !amdgcn.vgpr
      %off = amdgcn.vop2 v_lshlrev_b32_e32 %d, %c1, %t : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.branch s_branch ^loop
    ^loop:
      %x, %tok = amdgcn.global global_load_dword %d, %off, %p : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 2]>
      %a1 = amdgcn.vop2 v_add_f32_e32 %acc, %acc, %x : !amdgcn.vgpr<?>, !amdgcn.vgpr<?>, !amdgcn.vgpr
      %i1 = amdgcn.sop2 s_add_u32 %i, %i, %c1 : !amdgcn.sgpr<?>, !amdgcn.sgpr<?>, i32
      amdgcn.sopc s_cmp_lt_u32 %i, %c4 : !amdgcn.sgpr<?>, i32
      amdgcn.branch s_cbranch_scc1 ^loop, ^exit
    ^never:
      amdgcn.end
    ^exit:
      %st = amdgcn.global global_store_dword %off, %acc, %p : !amdgcn.vgpr, !amdgcn.vgpr<?>, !amdgcn.sgpr<[? + 2]>
      amdgcn.end
    }
  }
}

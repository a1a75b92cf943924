// RUN: gcnforge-opt %s -p amdgcn-lower-abi | filecheck %s

// Arguments are loaded from the kernarg pointer (s[0:1]) at their aligned offsets (8-byte
// pointer at 0, i32 at 8, pointer aligned up to 16), then one lgkmcnt(0) wait; the
// work-group id y is the second system SGPR after the 2 user SGPRs (s3); the work-item id
// y is bits [19:10] of v0; LDS allocations get offsets at their alignment.
// CHECK-LABEL: amdgcn.kernel @k
// CHECK-SAME: user_sgprs = ["kernarg_segment_ptr"], system_sgprs = ["workgroup_id_x", "workgroup_id_y"], system_vgprs = ["workitem_id_x", "workitem_id_y"]
// CHECK-SAME: lds_size = 384 : i32
// CHECK-DAG: %[[KP:.*]] = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
// CHECK-DAG: %[[WX:.*]] = amdgcn.alloca : !amdgcn.sgpr<2>
// CHECK-DAG: %[[WY:.*]] = amdgcn.alloca : !amdgcn.sgpr<3>
// CHECK-DAG: %[[V0:.*]] = amdgcn.alloca : !amdgcn.vgpr<0>
// CHECK: %[[O0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: amdgcn.smem s_load_dwordx2 %{{.*}}, %[[KP]], %[[O0]]
// CHECK: %[[O8:.*]] = arith.constant 8 : i32
// CHECK-NEXT: amdgcn.smem s_load_dword %{{.*}}, %[[KP]], %[[O8]]
// CHECK: %[[O16:.*]] = arith.constant 16 : i32
// CHECK-NEXT: amdgcn.smem s_load_dwordx2 %{{.*}}, %[[KP]], %[[O16]]
// CHECK-NEXT: amdgcn.sopp s_waitcnt lgkmcnt(0)
// CHECK: %[[S10:.*]] = arith.constant 10 : i32
// CHECK: amdgcn.vop3 v_bfe_u32 %{{.*}}, %[[V0]], %[[S10]], %{{.*}}
// CHECK: arith.constant 256 : i32
// CHECK-NOT: amdgcn.load_arg
// CHECK-NOT: amdgcn.thread_id
// CHECK-NOT: amdgcn.block_id
builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k attributes {args = [#amdgcn.arg<name = "p", kind = global_buffer, size = 8, align = 8, space = global, access = read_only>, #amdgcn.arg<name = "n", kind = by_value, size = 4, align = 4>, #amdgcn.arg<name = "q", kind = global_buffer, size = 8, align = 8, space = global, access = read_write>]} {
      %p = amdgcn.load_arg 0 : !amdgcn.sgpr<[? + 2]>
      %n = amdgcn.load_arg 1 : !amdgcn.sgpr
      %q = amdgcn.load_arg 2 : !amdgcn.sgpr<[? + 2]>
      %by = amdgcn.block_id y : !amdgcn.sgpr
      %bx = amdgcn.block_id x : !amdgcn.sgpr
      %ty = amdgcn.thread_id y : !amdgcn.vgpr
      %l0 = amdgcn.lds_alloc 100 align 4 : i32
      %l1 = amdgcn.lds_alloc 128 align 256 : i32
      amdgcn.end
    }
  }
}

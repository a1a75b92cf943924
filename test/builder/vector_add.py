# The README example, built in Python, printed, re-parsed and verified by gcnforge-opt.
# RUN: python %S/../../examples/authoring_vector_add.py | gcnforge-opt | filecheck %s
# RUN: python %S/../../examples/authoring_vector_add.py --pinned | gcnforge-opt | filecheck %s --check-prefix=PINNED

# CHECK:      amdgcn.kernel @vector_add attributes {args = [#amdgcn.arg<name = "a", kind = global_buffer, size = 8, align = 8, space = global, access = read_only, type = f32>,
# CHECK-SAME: workgroup_size = array<i32: 64, 1, 1>}
# CHECK-DAG:  %[[V:.*]] = amdgcn.alloca : !amdgcn.vgpr{{$}}
# CHECK-DAG:  %[[A:.*]] = amdgcn.load_arg 0 : !amdgcn.sgpr<[? + 2]>
# CHECK-DAG:  %[[B:.*]] = amdgcn.load_arg 1 : !amdgcn.sgpr<[? + 2]>
# CHECK-DAG:  %[[C:.*]] = amdgcn.load_arg 2 : !amdgcn.sgpr<[? + 2]>
# CHECK:      %[[TID:.*]] = amdgcn.thread_id x : !amdgcn.vgpr
# CHECK:      %[[GID:.*]] = amdgcn.vop2 v_add_u32_e32 %[[V]], %{{.*}}, %[[TID]]
# CHECK:      %[[OFF:.*]] = amdgcn.vop2 v_lshlrev_b32_e32 %[[V]], %{{.*}}, %[[GID]]
# CHECK:      %[[X:.*]], %[[TX:.*]] = amdgcn.global global_load_dword %[[V]], %[[OFF]], %[[A]]
# CHECK:      %[[Y:.*]], %[[TY:.*]] = amdgcn.global global_load_dword %[[V]], %[[OFF]], %[[B]]
# CHECK:      amdgcn.wait %[[TX]], %[[TY]] : !amdgcn.read_token, !amdgcn.read_token
# CHECK:      %[[S:.*]] = amdgcn.vop2 v_add_f32_e32 %[[V]], %[[X]], %[[Y]] : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
# CHECK:      amdgcn.global global_store_dword %[[OFF]], %[[S]], %[[C]] : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr<[? + 2]>
# CHECK:      amdgcn.end
# CHECK-NOT:  !amdgcn.vgpr<{{[0-9]}}

# PINNED:     %[[V1:.*]] = amdgcn.alloca : !amdgcn.vgpr<1>
# PINNED:     %[[OFF:.*]] = amdgcn.vop2 v_lshlrev_b32_e32 %[[V1]], %{{.*}}, %{{.*}} : !amdgcn.vgpr<1>, i32, !amdgcn.vgpr
# PINNED:     %[[V10:.*]] = amdgcn.alloca : !amdgcn.vgpr<10>
# PINNED:     %[[S:.*]] = amdgcn.vop2 v_add_f32_e32 %[[V10]], %{{.*}}, %{{.*}} : !amdgcn.vgpr<10>, !amdgcn.vgpr, !amdgcn.vgpr
# PINNED:     amdgcn.global global_store_dword %[[OFF]], %[[S]], %{{.*}} : !amdgcn.vgpr<1>, !amdgcn.vgpr<10>, !amdgcn.sgpr<[? + 2]>

# The metaprogramming example: Python loops unroll, the nanokernel is a func + calls.
# RUN: python %S/../../examples/authoring_mfma_tile.py | gcnforge-opt | filecheck %s
# RUN: python %S/../../examples/authoring_mfma_tile.py | gcnforge-opt -p amdgcn-inline | filecheck %s --check-prefix=INLINED

# CHECK:     amdgcn.func @mfma_step(%{{.*}}: !amdgcn.agpr<[? + 16]>, %{{.*}}: !amdgcn.vgpr<[? + 2]>, %{{.*}}: !amdgcn.vgpr<[? + 2]>) -> !amdgcn.agpr<[? + 16]>
# CHECK:     amdgcn.mfma v_mfma_f32_32x32x8_f16
# CHECK-COUNT-8: amdgcn.global global_load_dwordx2
# CHECK:     amdgcn.wait
# CHECK-COUNT-16: amdgcn.vop3p v_accvgpr_write_b32
# CHECK:     %acc = amdgcn.make_range
# CHECK-COUNT-4: amdgcn.call @mfma_step
# CHECK:     amdgcn.split_range %{{.*}} : !amdgcn.agpr<[? + 16]> -> !amdgcn.agpr, !amdgcn.agpr
# CHECK-COUNT-16: amdgcn.global global_store_dword %off4, %{{.*}}, %c offset = {{[0-9]+}} : !amdgcn.vgpr, !amdgcn.agpr, !amdgcn.sgpr<[? + 2]>
# CHECK:     amdgcn.end

# INLINED-NOT: amdgcn.call
# INLINED-COUNT-4: amdgcn.mfma v_mfma_f32_32x32x8_f16

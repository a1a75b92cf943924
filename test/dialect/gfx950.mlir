// RUN: gcnforge-opt %s | filecheck %s
// RUN: gcnforge-opt %s --print-op-generic | gcnforge-opt | filecheck %s

// A gfx950 module: its instructions are checked against the gfx950 table (the CDNA4
// MFMAs, v_prng_b32, v_permlane32_swap, transposing LDS reads) and its LDS limit is
// gfx950's 160 KiB (LLVM: FeatureAddressableLocalMemorySize163840).
// CHECK-LABEL: amdgcn.module @m #amdgcn.target<gfx950>
amdgcn.module @m #amdgcn.target<gfx950> {
  // CHECK: amdgcn.kernel @k attributes {lds_size = 163840 : i32}
  amdgcn.kernel @k attributes {lds_size = 163840 : i32} {
    %a = amdgcn.alloca : !amdgcn.vgpr<[? + 4]>
    %c = amdgcn.alloca : !amdgcn.agpr<[? + 4]>
    %v = amdgcn.alloca : !amdgcn.vgpr
    %w = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    // CHECK: amdgcn.mfma v_mfma_f32_16x16x32_f16
    %d = amdgcn.mfma v_mfma_f32_16x16x32_f16 %c, %a, %a, %c : !amdgcn.agpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.agpr<[? + 4]>
    // the bf16 one is VOP3P-encoded (LLVM: opcode 0x35 of VOP3P), so its op is amdgcn.vop3p,
    // like gfx942's xf32 MFMAs
    // CHECK: amdgcn.vop3p v_mfma_f32_16x16x32_bf16
    %e = amdgcn.vop3p v_mfma_f32_16x16x32_bf16 %c, %a, %a, %d : !amdgcn.agpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.vgpr<[? + 4]>, !amdgcn.agpr<[? + 4]>
    // CHECK: amdgcn.vop1 v_prng_b32_e32
    %p = amdgcn.vop1 v_prng_b32_e32 %v, %v : !amdgcn.vgpr, !amdgcn.vgpr
    // CHECK: amdgcn.ds ds_read_b64_tr_b16
    %t, %tt = amdgcn.ds ds_read_b64_tr_b16 %w, %v : !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr
    // CHECK: amdgcn.lds_alloc 100000 align 16
    %l = amdgcn.lds_alloc 100000 align 16 : i32
    amdgcn.end
  }
}

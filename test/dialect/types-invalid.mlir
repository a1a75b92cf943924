// RUN: gcnforge-opt %s --split-input-file --parsing-diagnostics | filecheck %s

// CHECK: amdgcn.vgpr: register 1 is not aligned to 2 (a 2-dword range)
%0 = "amdgcn.alloca"() : () -> !amdgcn.vgpr<[1 : 3]>

// -----
// CHECK: amdgcn.sgpr: register 2 is not aligned to 4 (a 4-dword range)
%0 = "amdgcn.alloca"() : () -> !amdgcn.sgpr<[2 : 6]>

// -----
// CHECK: amdgcn.vgpr: a 4-dword range needs alignment 2 on gfx942, got 1
%0 = "amdgcn.alloca"() : () -> !amdgcn.vgpr<[? + 4], align 1>

// -----
// CHECK: amdgcn.vgpr: alignment must be a power of two, got 3
%0 = "amdgcn.alloca"() : () -> !amdgcn.vgpr<[? + 4], align 3>

// -----
// CHECK: amdgcn.vgpr: a register range holds 1-8, 16 or 32 dwords, not 9
%0 = "amdgcn.alloca"() : () -> !amdgcn.vgpr<[? + 9]>

// -----
// CHECK: amdgcn.vgpr: registers [254 : 258] exceed the 256 addressable VGPRs
%0 = "amdgcn.alloca"() : () -> !amdgcn.vgpr<[254 : 258]>

// -----
// CHECK: amdgcn.sgpr: registers [100 : 104] exceed the 102 addressable SGPRs
%0 = "amdgcn.alloca"() : () -> !amdgcn.sgpr<[100 : 104]>

// -----
// CHECK: unknown special register 'vccz'
%0 = "amdgcn.alloca"() : () -> !amdgcn.special<vccz>

// -----
// CHECK: register range must have a positive width, got 0
%0 = "amdgcn.alloca"() : () -> !amdgcn.vgpr<[4 : 4]>

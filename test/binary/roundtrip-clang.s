// clang + ld.lld code object -> reassemblable text -> built-in assembler: same .text, .rodata, metadata.
// REQUIRES: llvm
// RUN: echo '__kernel void k(__global float *a, __global const float *b, int n) { int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x(); for (int j = i; j < n; j += 4096) a[j] = a[j] * b[j] + 1.0f; }' > %t.cl
// RUN: clang -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -O2 %t.cl -o %t.clang.hsaco
// RUN: python -m gcnforge.binary --to-asm %t.clang.hsaco -o %t.s
// RUN: filecheck %s < %t.s
// RUN: gcnforge as %t.s -o %t.ours.hsaco
// RUN: llvm-objcopy -O binary --only-section=.text %t.clang.hsaco %t.clang.text
// RUN: llvm-objcopy -O binary --only-section=.text %t.ours.hsaco %t.ours.text
// RUN: cmp %t.clang.text %t.ours.text
// RUN: llvm-objcopy -O binary --only-section=.rodata %t.clang.hsaco %t.clang.rodata
// RUN: llvm-objcopy -O binary --only-section=.rodata %t.ours.hsaco %t.ours.rodata
// RUN: cmp %t.clang.rodata %t.ours.rodata
// RUN: llvm-readelf --notes %t.clang.hsaco > %t.clang.notes
// RUN: llvm-readelf --notes %t.ours.hsaco > %t.ours.notes
// RUN: diff %t.clang.notes %t.ours.notes

// CHECK: .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// CHECK: k:
// CHECK: s_cbranch_{{[a-z]+}} .L{{[0-9a-f]+}}
// CHECK: s_endpgm
// CHECK: .amdhsa_kernel k
// CHECK: .amdgpu_metadata

// gcnforge info on a code object clang 22 + ld.lld built: metadata summary, arguments, descriptor.
// REQUIRES: llvm
// RUN: echo '__kernel void k(__global float *a, int n) { int i = __builtin_amdgcn_workitem_id_x(); if (i < n) a[i] = 1.0f; }' > %t.cl
// RUN: clang -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -O2 %t.cl -o %t.hsaco
// RUN: gcnforge info %t.hsaco --metadata | filecheck %s
// RUN: clang-offload-bundler -type=o -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx942 -input=/dev/null -input=%t.hsaco -output=%t.fat
// RUN: gcnforge info %t.fat | filecheck %s --check-prefix=FAT
// RUN: not gcnforge info %t.fat --target gfx90a 2>&1 | filecheck %s --check-prefix=NOENTRY

// CHECK: target: gfx942
// CHECK: code object version: 6
// CHECK: kernel k: entry 0x{{[0-9a-f]+}} (.text+0x0)
// CHECK: metadata: kernarg_segment_size=12, kernarg_segment_align=8
// CHECK: arg 0: offset 0 size 8 global_buffer address_space=global type_name=float*
// CHECK: arg 1: offset 8 size 4 by_value type_name=int
// CHECK: .amdhsa_kernel k
// CHECK: .amdhsa_user_sgpr_kernarg_segment_ptr 1
// CHECK: .end_amdhsa_kernel
// CHECK: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// FAT: kernel k: entry
// NOENTRY: error: offload bundle has 0 amdgcn code objects for gfx90a

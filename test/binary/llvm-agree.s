// Built-in and llvm-mc + ld.lld agree on .text and .rodata; llvm-readelf and llvm-objdump accept ours silently.
// REQUIRES: llvm
// RUN: python -m gcnforge.binary %s -o %t.ours.hsaco
// RUN: gcnforge as %s -o %t.as.hsaco
// RUN: cmp %t.ours.hsaco %t.as.hsaco
// RUN: python -m gcnforge.binary --toolchain llvm %s -o %t.llvm.hsaco
// RUN: llvm-readelf -a %t.ours.hsaco 2>&1 >/dev/null | count 0
// RUN: llvm-objdump -d --mcpu=gfx942 %t.ours.hsaco 2>&1 >/dev/null | count 0
// RUN: llvm-objcopy -O binary --only-section=.text %t.ours.hsaco %t.ours.text
// RUN: llvm-objcopy -O binary --only-section=.text %t.llvm.hsaco %t.llvm.text
// RUN: cmp %t.ours.text %t.llvm.text
// RUN: llvm-objcopy -O binary --only-section=.rodata %t.ours.hsaco %t.ours.rodata
// RUN: llvm-objcopy -O binary --only-section=.rodata %t.llvm.hsaco %t.llvm.rodata
// RUN: cmp %t.ours.rodata %t.llvm.rodata
// RUN: llvm-readelf --notes %t.ours.hsaco | filecheck %s

	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 6
	.text
	.globl	loop
	.p2align	8
	.type	loop,@function
loop:
	s_mov_b32 s2, 16
.Ltop:
	s_sub_u32 s2, s2, 1
	s_cmp_lg_u32 s2, 0
	s_cbranch_scc1 .Ltop
	s_endpgm
.Lfunc_end0:
	.size	loop, .Lfunc_end0-loop
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel loop
		.amdhsa_next_free_vgpr 0
		.amdhsa_next_free_sgpr 3
		.amdhsa_accum_offset 4
		.amdhsa_reserve_vcc 0
	.end_amdhsa_kernel
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:           []
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 4
    .kernarg_segment_size: 0
    .max_flat_workgroup_size: 1024
    .name:           loop
    .private_segment_fixed_size: 0
    .sgpr_count:     9
    .symbol:         loop.kd
    .vgpr_count:     0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
// CHECK: NT_AMDGPU_METADATA
// CHECK: .name: loop

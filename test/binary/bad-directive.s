// Directive errors point at file:line:col and exit non-zero.
// RUN: not python -m gcnforge.binary %s -o %t.hsaco 2>&1 | filecheck %s
// RUN: not gcnforge info %s 2>&1 | filecheck %s --check-prefix=NOTELF

	.text
k:
	s_endpgm
	.rodata
	.amdhsa_kernel k
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 1
		.amdhsa_accum_offset 4
		.amdhsa_bogus_field 3
	.end_amdhsa_kernel
// CHECK: bad-directive.s:13:3: error: unknown .amdhsa_kernel directive '.amdhsa_bogus_field'
// NOTELF: error: not an ELF file (bad magic)

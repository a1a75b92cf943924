// RUN: gcnforge stats %s | filecheck %s
// RUN: gcnforge stats %s --mca | filecheck %s --check-prefix=MCA
// REQUIRES: llvm

// Two independent 32x32x8 f16 MFMAs (32 cycles each, AMD's calculator) with VALU work
// hidden under them, then a loop whose body waits for its own global load.
// CHECK:      entry: 6 instructions, 64 modeled cycles
// CHECK-NEXT:   busiest pipe: mfma   MFMA utilization: 100.0%
// CHECK:        mfma   busy      64 cycles (100.0%)  2 instructions
// CHECK:      .Lloop: 6 instructions
// The load's latency is the MI300X profile's HBM figure (~350 ns published, at 2.1 GHz: 735
// cycles) + issue 4 + wait 4 + MFMA issue/loop 12 = 755; MFMA 32 / 755 = 4.2%.
// CHECK-NEXT:   loop body: 755 cycles per iteration in steady state
// CHECK-NEXT:   busiest pipe: mfma   MFMA utilization: 4.2%
// MCA:        entry: 6 instructions, 64 modeled cycles
// MCA:          llvm-mca: {{[0-9]+}} cycles (x4 = {{[0-9]+}} shader clocks), {{.*}}HWXDL 16
  v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]
  v_mfma_f32_32x32x8_f16 a[16:31], v[0:1], v[2:3], a[16:31]
  v_add_f32_e32 v4, v5, v6
  v_add_f32_e32 v7, v5, v6
  v_mul_f32_e32 v8, v5, v6
  s_mov_b32 s0, 0
.Lloop:
  global_load_dwordx2 v[2:3], v[10:11], off
  s_waitcnt vmcnt(0)
  v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[2:3], a[0:15]
  s_add_u32 s0, s0, 1
  s_cmp_lt_u32 s0, 8
  s_cbranch_scc1 .Lloop
  s_endpgm

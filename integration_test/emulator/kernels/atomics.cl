#include "common.h"
__kernel void atomic_counter(__global int* cnt, __global int* slots, int n) {
  int i = GID_X; if (i >= n) return;
  int k = ATOMIC_ADD(cnt, 1);
  slots[k] = i;
}
__kernel void histogram(__global uint* bins, __global const uint* data, int n) {
  int i = GID_X; if (i >= n) return;
  __builtin_amdgcn_atomic_inc32((volatile __global uint*)&bins[data[i] % 16], 0xffffffffu, __ATOMIC_RELAXED, "agent");
}
__kernel void atomic_minmax(__global int* mm, __global const int* data, int n) {
  int i = GID_X; if (i >= n) return;
  __atomic_fetch_min(&mm[0], data[i], __ATOMIC_RELAXED); __atomic_fetch_max(&mm[1], data[i], __ATOMIC_RELAXED);
  __atomic_fetch_or(&mm[2], 1 << (data[i] & 31), __ATOMIC_RELAXED); __atomic_fetch_xor(&mm[3], data[i], __ATOMIC_RELAXED);
}
__kernel void atomic_cas_sum(__global int* acc, __global const int* data, int n) {
  int i = GID_X; if (i >= n) return;
  int old = *acc, assumed;
  do { assumed = old; __atomic_compare_exchange_n(acc, &old, assumed + data[i], false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); } while (old != assumed);
}
__kernel void lds_histogram(__global uint* bins, __global const uint* data) {
  __local uint h[32];
  int l = LID(x);
  if (l < 32) h[l] = 0;
  BARRIER();
  ATOMIC_ADD(&h[data[GID_X] & 31], 1u);
  BARRIER();
  if (l < 32) ATOMIC_ADD(&bins[l], h[l]);
}
__kernel void float_atomic(__global float* acc, __global const float* data, int n) {
  int i = GID_X; if (i >= n) return;
  __atomic_fetch_add(acc, data[i], __ATOMIC_RELAXED);
}
__kernel void atomic_xchg64(__global long* acc, __global const long* data, int n) {
  int i = GID_X; if (i >= n) return;
  ATOMIC_ADD(acc, data[i]);
}

#include "common.h"
__kernel void divergent(__global int* out, __global const int* a, int n) {
  int i = GID_X; if (i >= n) return;
  int x = a[i], r;
  if (x & 1) { r = x * 3; if (x & 2) r += 7; else r -= 11; }
  else if (x & 4) r = x >> 1;
  else { r = -x; }
  out[i] = r;
}
__kernel void collatz(__global int* out, __global const uint* a, int n) {
  int i = GID_X; if (i >= n) return;
  uint x = a[i]; int steps = 0;
  while (x != 1u && steps < 1000) { x = (x & 1u) ? 3u * x + 1u : x >> 1; steps++; }
  out[i] = steps;
}
__kernel void nested_loops(__global float* out, __global const float* a, int n, int m) {
  int i = GID_X; if (i >= n) return;
  float acc = 0.0f;
  for (int j = 0; j < m; j++) { for (int k = 0; k <= (i % 5); k++) acc += a[(i + j * k) % n] * (float)(k + 1); }
  out[i] = acc;
}
__kernel void early_exit(__global int* out, __global const int* a, int n) {
  int i = GID_X; if (i >= n) return;
  int r = 0;
  for (int j = 0; j < 64; j++) { if (a[(i + j) % n] < 0) { r = j; break; } r = -1; }
  out[i] = r;
}
__kernel void grid2d(__global int* out, int w, int h) {
  int x = GID_X, y = GID_Y;
  if (x < w && y < h) out[y * w + x] = x * 1000 + y;
}
__kernel void addr64(__global int* out, __global const int* a, long stride, int n) {
  int i = GID_X; if (i >= n) return;
  __global const int* p = a + (long)i * stride;
  out[(long)i * 2] = p[0] + (int)(((long)p >> 32) != 0);
  out[(long)i * 2 + 1] = (int)(((ulong)p) & 3);
}

#include "common.h"
// c = a + b over n floats, one element per work-item (examples/vector_ops.py)
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, uint n) {
  uint i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}

// Kernels whose clang 22 s_waitcnt counts pin the counter model (tests/passes/test_counter_model.py):
// LDS and VMEM retire in order; SMEM pending with LDS, and FLAT, allow only a count of 0.
kernel void lds_in_order(global float *restrict out, global const float *restrict in) {
  local float t[256];
  int i = __builtin_amdgcn_workitem_id_x();
  t[i] = in[i];
  __builtin_amdgcn_s_waitcnt(0xc07f);
  __builtin_amdgcn_s_barrier();
  float a = t[(i * 7) & 255], b = t[(i * 13) & 255], c = t[(i * 29) & 255];
  out[i] = a;
  out[i + 256] = a * b;
  out[i + 512] = a * b * c;
}
kernel void vmem_in_order(global float *restrict out, global const float *restrict in, global const int *restrict idx) {
  int i = __builtin_amdgcn_workitem_id_x();
  float a = in[idx[i]], b = in[idx[i + 64]], c = in[idx[i + 128]];
  out[i] = a;
  out[i + 256] = a * b;
  out[i + 512] = a * b * c;
}
kernel void smem_and_lds(global float *restrict out, global const float *restrict in, float s) {
  local float t[256];
  int i = __builtin_amdgcn_workitem_id_x();
  t[i] = i;
  __builtin_amdgcn_s_waitcnt(0xc07f);
  __builtin_amdgcn_s_barrier();
  out[i] = t[(i * 7) & 255] * s + in[5];
}
kernel void flat_both(global float *restrict out, global float *restrict in, int k) {
  local float t[256];
  int i = __builtin_amdgcn_workitem_id_x();
  t[i] = i;
  float *p = k ? (float *)in : (float *)t;
  float a = p[i], b = p[i + 64];
  out[i] = a + 1.0f;
  out[i + 64] = a * b;
}

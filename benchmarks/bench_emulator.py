"""Emulator throughput: wave-instructions per second for a straight-line ALU kernel, an
LDS-heavy kernel and an MFMA GEMM (256x256x256 f16 -> f32), and the speedup of executing
waves that share a PC together (lockstep, arrays shaped waves x lanes) over executing one
wave at a time, measured in the same run.

    python benchmarks/bench_emulator.py            (needs clang 22 + ld.lld for the kernels)

Kernels are OpenCL C compiled by clang at run time. Every result is checked against NumPy
so the numbers are for correct executions.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gcnforge.emulator import Device
from gcnforge.llvm_tools import require_tool

SRC = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef float f32x16 __attribute__((ext_vector_type(16)));
#define LID ((int)__builtin_amdgcn_workitem_id_x())
#define WG ((int)__builtin_amdgcn_workgroup_id_x())

__kernel void alu(__global float* out, __global const float* in) {
  int i = WG * 256 + LID;
  float a = in[i], b = a * 0.5f + 1.0f, c = a - 2.0f, d = b * c;
  #pragma unroll
  for (int k = 0; k < 64; k++) {      // straight-line after unrolling: 4 dependent chains of FMAs
    a = __builtin_fmaf(a, 0.999f, b); b = __builtin_fmaf(b, 1.001f, c);
    c = __builtin_fmaf(c, 0.998f, d); d = __builtin_fmaf(d, 1.002f, a);
  }
  out[i] = a + b + c + d;
}

__kernel void lds(__global int* out, __global const int* in) {
  __local int buf[256];
  int l = LID;
  int v = in[WG * 256 + l];
  for (int k = 0; k < 32; k++) {
    buf[l] = v;
    __builtin_amdgcn_s_barrier();
    v += buf[(l + 1 + k) & 255] ^ buf[(l * 3 + k) & 255];
    __builtin_amdgcn_s_barrier();
  }
  out[WG * 256 + l] = v;
}

// C[N x N] = A[N x N] * B[N x N] (row-major, f16 in, f32 out); one wave per 32x32 tile of C,
// v_mfma_f32_32x32x8_f16: lane l holds A[row l%32][k0 + 4(l/32) + e], B[k0 + 4(l/32) + e][col l%32].
__kernel void gemm(__global float* C, __global const half* A, __global const half* B, int N) {
  int l = LID & 63, wave = WG * 4 + LID / 64;
  int tiles = N / 32, tr = wave / tiles, tc = wave % tiles;
  f32x16 acc = 0.0f;
  for (int k0 = 0; k0 < N; k0 += 8) {
    half4 a, b;
    for (int e = 0; e < 4; e++) {
      a[e] = A[(tr * 32 + l % 32) * N + k0 + 4 * (l / 32) + e];
      b[e] = B[(k0 + 4 * (l / 32) + e) * N + tc * 32 + l % 32];
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  }
  for (int r = 0; r < 16; r++)
    C[(tr * 32 + (r % 4) + 8 * (r / 4) + 4 * (l / 32)) * N + tc * 32 + l % 32] = acc[r];
}
"""


def build() -> bytes:
    clang, lld = require_tool("clang"), require_tool("ld.lld")
    d = Path(tempfile.mkdtemp())
    (d / "b.cl").write_text(SRC)
    subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2",
                    "-c", str(d / "b.cl"), "-o", str(d / "b.o")], check=True)
    subprocess.run([lld, "-shared", str(d / "b.o"), "-o", str(d / "b.so")], check=True)
    return (d / "b.so").read_bytes()


def timed(dev, code, name, ka, grid, block, **kw):
    t = time.perf_counter()
    st = dev.run(code, name, ka, grid, block, **kw)
    return st, time.perf_counter() - t


def bench_alu(code, wgs=16, **kw):
    dev = Device()
    n = wgs * 256
    x = np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32)
    pi, po = dev.memory.alloc(4 * n), dev.memory.alloc(4 * n)
    dev.memory.write(pi, x.tobytes())
    st, dt = timed(dev, code, "alu", struct.pack("<QQ", po, pi), (wgs, 1, 1), (256, 1, 1), **kw)
    a = x.copy()
    b, c = a * np.float32(0.5) + np.float32(1), a - np.float32(2)
    d = b * c
    f = lambda p, q, r: (p.astype(np.float64) * q + r).astype(np.float32)  # noqa: E731
    for _ in range(64):
        a = f(a, np.float32(0.999), b); b = f(b, np.float32(1.001), c)  # noqa: E702
        c = f(c, np.float32(0.998), d); d = f(d, np.float32(1.002), a)  # noqa: E702
    got = np.frombuffer(dev.memory.read(po, 4 * n), np.float32)
    np.testing.assert_allclose(got, a + b + c + d, rtol=1e-4)
    return st, dt


def bench_lds(code, wgs=16, **kw):
    dev = Device()
    n = wgs * 256
    x = np.random.default_rng(1).integers(-1000, 1000, n).astype(np.int32)
    pi, po = dev.memory.alloc(4 * n), dev.memory.alloc(4 * n)
    dev.memory.write(pi, x.tobytes())
    st, dt = timed(dev, code, "lds", struct.pack("<QQ", po, pi), (wgs, 1, 1), (256, 1, 1), **kw)
    v = x.reshape(wgs, 256).astype(np.int64)
    lane = np.arange(256)
    for k in range(32):
        buf = v.copy()
        v = v + (buf[:, (lane + 1 + k) & 255] ^ buf[:, (lane * 3 + k) & 255])
    v = (v & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(np.frombuffer(dev.memory.read(po, 4 * n), np.int32), v.reshape(-1))
    return st, dt


def bench_gemm(code, N=256, **kw):
    dev = Device()
    rng = np.random.default_rng(2)
    A = rng.uniform(-1, 1, (N, N)).astype(np.float16)
    B = rng.uniform(-1, 1, (N, N)).astype(np.float16)
    pa, pb, pc = dev.memory.alloc(A.nbytes), dev.memory.alloc(B.nbytes), dev.memory.alloc(4 * N * N)
    dev.memory.write(pa, A.tobytes())
    dev.memory.write(pb, B.tobytes())
    waves = (N // 32) ** 2
    st, dt = timed(dev, code, "gemm", struct.pack("<QQQi", pc, pa, pb, N), (waves // 4, 1, 1), (256, 1, 1), **kw)
    got = np.frombuffer(dev.memory.read(pc, 4 * N * N), np.float32).reshape(N, N)
    np.testing.assert_allclose(got, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-3)
    return st, dt


def warm(code) -> float:
    """Decode the kernels once (the emulator caches decoded code per code object), so the
    timings below are execution only; returns the decode time."""
    from gcnforge.emulator.decode import decode_kernel
    from gcnforge.emulator.launch import kernel_image

    t = time.perf_counter()
    for k in ("alu", "lds", "gemm"):
        img = kernel_image(code, k)
        decode_kernel(img.text, img.text_address, img.entry, img.end)
    return time.perf_counter() - t


def main() -> int:
    code = build()
    print(f"decode (once per code object, 3 kernels, includes loading the ISA table): {warm(code):.2f} s")
    print(f"{'kernel':<34}{'waves':>7}{'wave-insts':>12}{'issues':>9}{'seconds':>9}{'wave-inst/s':>13}")
    rows = {}
    for label, fn, kw in [("alu (lockstep)", bench_alu, {}), ("alu (one wave at a time)", bench_alu, {"lockstep": False}),
                          ("lds (lockstep)", bench_lds, {}), ("lds (one wave at a time)", bench_lds, {"lockstep": False}),
                          ("gemm 256^3 f16 mfma (lockstep)", bench_gemm, {}),
                          ("gemm 256^3 f16 (one wave at a time)", bench_gemm, {"lockstep": False})]:
        st, dt = fn(code, **kw)
        rows[label] = (st, dt)
        print(f"{label:<34}{st.waves:>7}{st.wave_instructions:>12}{st.issues:>9}{dt:>9.2f}"
              f"{st.wave_instructions / dt:>13,.0f}")
    print()
    for k in ("alu", "lds", "gemm"):
        lock = [v for n, v in rows.items() if n.startswith(k) and "lockstep" in n][0]
        one = [v for n, v in rows.items() if n.startswith(k) and "one wave" in n][0]
        print(f"{k}: lockstep speedup over one-wave-at-a-time = {one[1] / lock[1]:.1f}x "
              f"(modeled cycles {lock[0].cycles})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

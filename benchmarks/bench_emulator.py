"""Emulator throughput: wave-instructions per second for a straight-line ALU kernel, an
LDS-heavy kernel, an MFMA GEMM (256x256x256 f16 -> f32) and the GEMM of
``examples/drivers/main_job.py --m 1024 --n 1024 --k 1024``; the time to decode kernels into the
emulator's records; and the speedup of executing waves that share a PC together (lockstep,
arrays shaped waves x lanes) over one wave at a time, measured in the same run.

Anchor: each row's "x NumPy" is the emulator's time over NumPy computing the same result
(the reference the row is checked against) in the same process.

    python benchmarks/bench_emulator.py            (needs clang 22 + ld.lld for the kernels)

Kernels are OpenCL C compiled by clang at run time (the main_job GEMM by gcnforge). Every
result is checked against NumPy so the numbers are for correct executions.
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


CPU = [0.0]  # CPU seconds of the last timed emulation (the machine may be shared: wall time is noisy)


def timed(dev, code, name, ka, grid, block, **kw):
    t, c = time.perf_counter(), time.process_time()
    st = dev.run(code, name, ka, grid, block, **kw)
    CPU[0] = time.process_time() - c
    return st, time.perf_counter() - t


def _numpy(fn):
    """(result, seconds) of the NumPy reference computation: the anchor of each row."""
    t = time.perf_counter()
    r = fn()
    return r, time.perf_counter() - t


def bench_alu(code, wgs=64, **kw):
    dev = Device()
    n = wgs * 256
    x = np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32)
    pi, po = dev.memory.alloc(4 * n), dev.memory.alloc(4 * n)
    dev.memory.write(pi, x.tobytes())
    st, dt = timed(dev, code, "alu", struct.pack("<QQ", po, pi), (wgs, 1, 1), (256, 1, 1), **kw)

    def ref():
        a = x.copy()
        b, c = a * np.float32(0.5) + np.float32(1), a - np.float32(2)
        d = b * c
        f = lambda p, q, r: (p.astype(np.float64) * q + r).astype(np.float32)  # noqa: E731
        for _ in range(64):
            a = f(a, np.float32(0.999), b); b = f(b, np.float32(1.001), c)  # noqa: E702
            c = f(c, np.float32(0.998), d); d = f(d, np.float32(1.002), a)  # noqa: E702
        return a + b + c + d

    want, dn = _numpy(ref)
    got = np.frombuffer(dev.memory.read(po, 4 * n), np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-4)
    return st, dt, dn


def bench_lds(code, wgs=64, **kw):
    dev = Device()
    n = wgs * 256
    x = np.random.default_rng(1).integers(-1000, 1000, n).astype(np.int32)
    pi, po = dev.memory.alloc(4 * n), dev.memory.alloc(4 * n)
    dev.memory.write(pi, x.tobytes())
    st, dt = timed(dev, code, "lds", struct.pack("<QQ", po, pi), (wgs, 1, 1), (256, 1, 1), **kw)

    def ref():
        v = x.reshape(wgs, 256).astype(np.int64)
        lane = np.arange(256)
        for k in range(32):
            buf = v.copy()
            v = v + (buf[:, (lane + 1 + k) & 255] ^ buf[:, (lane * 3 + k) & 255])
        return (v & 0xFFFFFFFF).astype(np.uint32).view(np.int32)

    want, dn = _numpy(ref)
    np.testing.assert_array_equal(np.frombuffer(dev.memory.read(po, 4 * n), np.int32), want.reshape(-1))
    return st, dt, dn


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
    want, dn = _numpy(lambda: A.astype(np.float64) @ B.astype(np.float64))
    got = np.frombuffer(dev.memory.read(pc, 4 * N * N), np.float32).reshape(N, N)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    return st, dt, dn


def bench_main_job(_code, N=1024, **kw):
    """The GEMM of ``examples/drivers/main_job.py --m N --n N --k N`` (examples/gemm_lds.py, 64x64
    work-group tiles staged through LDS, f16 MFMA), built by gcnforge."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    import gemm_lds

    from gcnforge.binary import assemble, read_code_object
    from gcnforge.passes import pipeline
    from gcnforge.translate import to_assembly

    import gcnforge.runtime as rt

    module = gemm_lds.build(N, N, "f16", "f32", 2, 2)
    pipeline.run(module.top, pipeline.parse(pipeline.DEFAULT))
    blob = assemble(to_assembly(module.top))
    (name,) = read_code_object(blob).kernels
    kernel = rt.load(blob, device="emulator")[name]
    rng = np.random.default_rng(0)
    A = rng.standard_normal((N, N)).astype(np.float16)
    B = rng.standard_normal((N, N)).astype(np.float16)
    C = np.zeros((N, N), np.float32)
    t, c = time.perf_counter(), time.process_time()
    res = kernel(A, np.ascontiguousarray(B.T), C, grid=(N // 64, N // 64, 1), block=(256, 1, 1))
    dt = time.perf_counter() - t
    CPU[0] = time.process_time() - c
    want, dn = _numpy(lambda: A.astype(np.float32) @ B.astype(np.float32))
    np.testing.assert_allclose(C, want, rtol=0, atol=4 * np.finfo(np.float32).eps * N * float(np.abs(A).max() * np.abs(B).max()))
    return res.stats, dt, dn


def warm(code) -> tuple[float, float]:
    """Decode the kernels once (the emulator caches decoded code per code object), so the
    timings below are execution only. Returns (seconds of one-time setup: the ISA table, the
    handler modules and MFMA layout data; seconds to decode the three kernels into records)."""
    from gcnforge.emulator import decode, ops_mfma
    from gcnforge.emulator.launch import kernel_image
    from gcnforge.isa import table

    t = time.perf_counter()
    table.by_mnemonic("s_endpgm")
    decode.bind(decode.undecodable(0, 4, ""))  # imports every handler module
    ops_mfma._table()
    images = [kernel_image(code, k) for k in ("alu", "lds", "gemm")]
    t_setup = time.perf_counter() - t
    t = time.perf_counter()
    for img in images:
        decode.decode_kernel(img.text, img.text_address, img.entry, img.end)
    return t_setup, time.perf_counter() - t


def _instructions(code):
    from gcnforge.asm import disassemble
    from gcnforge.emulator.launch import kernel_image

    for k in ("alu", "lds", "gemm"):
        img = kernel_image(code, k)
        yield from disassemble(img.text[img.entry - img.text_address : img.end - img.text_address], img.entry)


def main() -> int:
    code = build()
    t_setup, t_decode = warm(code)
    print(f"one-time setup (ISA table, handlers, MFMA layouts) {t_setup:.2f} s; "
          f"decode of the 3 kernels ({sum(1 for _ in _instructions(code))} instructions) into records {t_decode:.3f} s")
    print(f"{'kernel':<40}{'waves':>7}{'wave-insts':>12}{'issues':>8}{'seconds':>9}{'cpu s':>7}"
          f"{'wave-inst/s':>13}{'x NumPy':>9}")
    rows = {}
    for label, fn, kw in [("alu, 256 waves", bench_alu, {}),
                          ("lds, 256 waves", bench_lds, {}),
                          ("gemm 256^3 f16 mfma, 64 waves", bench_gemm, {}),
                          ("main_job gemm_lds 1024^3 f16, 1024 waves", bench_main_job, {}),
                          ("alu, 64 waves", bench_alu, {"wgs": 16}),
                          ("alu, 64 waves, one wave at a time", bench_alu, {"wgs": 16, "lockstep": False}),
                          ("lds, 64 waves", bench_lds, {"wgs": 16}),
                          ("lds, 64 waves, one wave at a time", bench_lds, {"wgs": 16, "lockstep": False})]:
        st, dt, dn = fn(code, **kw)
        rows[label] = (st, dt)
        print(f"{label:<40}{st.waves:>7}{st.wave_instructions:>12}{st.issues:>8}{dt:>9.2f}{CPU[0]:>7.2f}"
              f"{st.wave_instructions / dt:>13,.0f}{dt / dn:>9.0f}")
    print()
    for k in ("alu", "lds"):
        one, lock = rows[f"{k}, 64 waves, one wave at a time"], rows[f"{k}, 64 waves"]
        print(f"{k}: lockstep speedup over one-wave-at-a-time = {one[1] / lock[1]:.1f}x "
              f"(modeled cycles {lock[0].cycles})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

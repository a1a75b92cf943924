"""A small GEMM kernel family for tuning tests: C[M,N] = A[M,K] @ B[K,N] (f32, row-major).

Variants differ in the output tile per workgroup (TM x TN) and the K unroll; each is
OpenCL C compiled by clang 22 for gfx942 (the LLVM oracle; later the gcnforge compiler
produces such families). One wave (64 work-items) per workgroup walks its tile.
"""

from __future__ import annotations

import math
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from gcnforge.llvm_tools import require_tool
from gcnforge.runtime.tuning import KernelFamily, Variant

SOURCE = r"""
__kernel void gemm(__global float* C, __global const float* A, __global const float* B,
                   uint M, uint N, uint K) {
  uint tx = __builtin_amdgcn_workitem_id_x();
  uint row0 = __builtin_amdgcn_workgroup_id_y() * TM;
  uint col0 = __builtin_amdgcn_workgroup_id_x() * TN;
  for (uint e = tx; e < TM * TN; e += 64) {
    uint r = row0 + e / TN, c = col0 + e % TN;
    if (r < M && c < N) {
      float acc = 0.0f;
#pragma unroll UNROLL
      for (uint kk = 0; kk < K; ++kk) acc += A[r * K + kk] * B[kk * N + c];
#ifdef BUG
      acc += 1.0f;
#endif
      C[r * N + c] = acc;
    }
  }
}
"""


def compile_variant(tm: int, tn: int, unroll: int, bug: bool = False) -> bytes:
    clang, lld = require_tool("clang"), require_tool("ld.lld")
    with tempfile.TemporaryDirectory() as d:
        src, obj, co = Path(d) / "g.cl", Path(d) / "g.o", Path(d) / "g.co"
        src.write_text(SOURCE)
        defs = [f"-DTM={tm}", f"-DTN={tn}", f"-DUNROLL={unroll}"] + (["-DBUG"] if bug else [])
        subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib",
                        "-O2", "-cl-kernel-arg-info", *defs, "-c", str(src), "-o", str(obj)], check=True,
                       capture_output=True)
        subprocess.run([lld, "-shared", str(obj), "-o", str(co)], check=True, capture_output=True)
        return co.read_bytes()


class GemmFamily(KernelFamily):
    name = "gemm_f32"
    dtype = "f32"
    target = "gfx942"
    rtol = 1e-4
    atol = 1e-4

    def __init__(self, tiles=((8, 8), (16, 16), (32, 32)), unrolls=(1,), with_bug: bool = False):
        self.tiles, self.unrolls, self.with_bug = tiles, unrolls, with_bug
        self.builds = 0

    def variants(self):
        for tm, tn in self.tiles:
            for u in self.unrolls:
                yield Variant(f"gemm_{tm}x{tn}_u{u}", "gemm", {"tile_m": tm, "tile_n": tn, "tile_k": 1,
                                                              "unroll": u, "block": 64})
        if self.with_bug:
            yield Variant("gemm_bug", "gemm", {"tile_m": 16, "tile_n": 16, "tile_k": 1, "unroll": 1, "bug": 1,
                                               "block": 64})

    def build(self, v):
        self.builds += 1
        p = v.params
        return compile_variant(p["tile_m"], p["tile_n"], p["unroll"], bool(p.get("bug")))

    def make_inputs(self, shape, rng):
        m, n, k = shape
        return {"A": rng.standard_normal((m, k)).astype(np.float32),
                "B": rng.standard_normal((k, n)).astype(np.float32),
                "C": np.zeros((m, n), np.float32)}

    def reference(self, shape, inputs):
        return inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)

    def call(self, kernel, v, shape, inputs, device):
        m, n, k = shape
        grid = (math.ceil(n / v.params["tile_n"]), math.ceil(m / v.params["tile_m"]), 1)
        kernel(inputs["C"], inputs["A"], inputs["B"], m, n, k, grid=grid, block=(64, 1, 1), device=device)
        return inputs["C"]

    def e2e(self, kernel, v, shape, inputs, device):
        # the whole operation: B arrives transposed and is made row-major first
        inputs = dict(inputs, B=np.ascontiguousarray(inputs["B"].T.T))
        return self.call(kernel, v, shape, inputs, device)


family = GemmFamily()

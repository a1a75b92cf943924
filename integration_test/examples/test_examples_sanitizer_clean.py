"""The example kernels run clean under the emulator's sanitizer (hazard wait states, MFMA
dependency distances, waits before reads of loaded registers, LDS/global bounds, barrier
use). Kernels that rely on buffer range checking for their ragged tail (vector buffer mode,
row kernels) are run on exact sizes here: the sanitizer reports every access beyond
num_records, even the intended ones. Results are checked loosely (the other tests check
them tightly); the point is the absence of sanitizer reports. Emulator only."""

import numpy as np
import pytest
from conftest import compiled

import gemm_lds
import gemm_pipelined
import norms
import row_softmax
import topk_softmax
import vector_ops

f32 = np.float32


def _run(c, name, args, grid, block):
    c.load("emulator")[name](*args, grid=grid, block=(block, 1, 1), sanitize=True)


@pytest.mark.parametrize("mode,n", [("global", 1000), ("buffer", 1024)])
def test_vector(mode, n):
    c = compiled(("vec", "add", mode), lambda: vector_ops.build("add", mode))
    a = np.arange(n, dtype=f32)
    out = np.zeros(n, f32)
    _run(c, f"vector_add_{mode}", (a, a, out, np.uint32(n)), (-(-n // 256), 1, 1), 256)
    np.testing.assert_array_equal(out, 2 * a)


def test_row_kernels():
    x = np.random.default_rng(0).standard_normal((2, 1024)).astype(f32)
    y = np.zeros_like(x)
    _run(compiled("softmax", lambda: row_softmax.build(1024, 4)), "row_softmax_f32", (x, y, np.uint32(1024)), (2, 1, 1), 256)
    assert np.allclose(y.sum(1), 1, rtol=1e-4)
    g, b = np.ones(1024, f32), np.zeros(1024, f32)
    _run(compiled(("norm", "layer"), lambda: norms.build("layer", 1024, 4)), "layer_norm_f32",
         (x, g, b, y, np.uint32(1024), f32(1e-5)), (2, 1, 1), 256)
    assert np.allclose(y.mean(1), 0, atol=1e-4)
    _run(compiled(("norm", "rms"), lambda: norms.build("rms", 1024, 4)), "rms_norm_f32",
         (x, g, y, np.uint32(1024), f32(1e-5)), (2, 1, 1), 256)
    # bf16 rows of 2048: exactly one 16-byte chunk per work-item
    xb = (np.random.default_rng(2).standard_normal((2, 2048)).astype(f32).view(np.uint32) >> 16).astype(np.uint16)
    gb = np.full(2048, 0x3F80, np.uint16)  # bf16 1.0
    yb = np.zeros_like(xb)
    _run(compiled(("norm_bf16", "layer", 2048), lambda: norms.build_bf16("layer", 2048, 4)), "layer_norm_bf16",
         (xb, gb, np.zeros_like(gb), yb, np.uint32(2048), f32(1e-5)), (2, 1, 1), 256)
    assert np.allclose((yb.astype(np.uint32) << 16).view(f32).mean(1), 0, atol=1e-2)


def test_topk():
    x = np.random.default_rng(1).standard_normal((3, 256)).astype(f32)
    w, i = np.zeros((3, 4), f32), np.zeros((3, 4), np.int32)
    _run(compiled(("topk", 256, 4, True), lambda: topk_softmax.build(256, 4, True)),
         "topk_softmax_e256_k4_renorm", (x, w, i), (3, 1, 1), 64)
    assert np.allclose(w.sum(1), 1, rtol=1e-5)


@pytest.mark.parametrize("dtype,out,splitk", [("bf16", "bf16", 1), ("f16", "f32", 2), ("fp8", "f32", 1)])
def test_gemm_lds(dtype, out, splitk):
    k = 128 if dtype != "bf16" else 64
    n = 64 if dtype != "bf16" else 128
    c = compiled(("gemm", dtype, out, 2, 2, n, k, splitk), lambda: gemm_lds.build(k, n, dtype, out, 2, 2, 64, splitk))
    a = np.zeros((64, k), np.uint8 if dtype == "fp8" else np.float16)
    bt = np.zeros((n, k), a.dtype)
    cc = np.zeros((64, n), f32 if out == "f32" else np.uint16)
    extra = (f32(1), f32(1)) if dtype == "fp8" else ()
    _run(c, gemm_lds.kernel_name(dtype, out, 2, 2, 64, splitk), (a, bt, cc, *extra), (n // 64, 1, splitk), 256)


def test_gemm_pipelined():
    c = compiled(("pipe", "f16", 2, 512), lambda: gemm_pipelined.build(512, 64, "f16", 2, 2), schedule=True)
    a = np.ones((64, 512), np.float16)
    out = np.zeros((64, 64), f32)
    _run(c, gemm_pipelined.kernel_name("f16", 2, 2, 64), (a, a, out), (1, 1, 1), 256)
    assert (out == 512).all()

"""Kernels compiled by gcnforge run on the project's emulator and match NumPy: the
allocation, waits and translation together produce working code."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import gcnforge.runtime as rt
from gcnforge.cli.cmd_compile import compile_file
from gcnforge.passes.pipeline import DEFAULT

ROOT = Path(__file__).resolve().parents[2]


def test_vector_add_runs():
    k = rt.load(compile_file(ROOT / "examples" / "authoring_vector_add.py", DEFAULT, None, "builtin", False))["vector_add"]
    n = 512
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    k(a, b, c, grid=(n // 64, 1, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(c, a + b)


def test_loop_sum_runs():
    path = Path(__file__).parent / "kernels" / "loop_sum.py"
    k = rt.load(compile_file(path, DEFAULT, None, "builtin", False))["loop_sum"]
    n = 5
    a = np.arange(64 * n, dtype=np.float32)
    c = np.zeros(64, np.float32)
    k(a, c, np.int32(n), grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(c, a.reshape(n, 64).sum(axis=0))


def test_mfma_gemm_accumulates_in_place_and_runs():
    """The example GEMM: each MFMA's fresh result takes its accumulator's registers (dst ==
    SrcC, so no copies and no overlap hazard), and the product matches NumPy."""
    import sys

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from gemm_mfma_f16 import build
    finally:
        sys.path.remove(str(ROOT / "examples"))
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline as pl
    from gcnforge.translate import to_assembly

    m = build(k_dim=32, n_dim=64)
    pl.run(m.top, pl.parse(DEFAULT))
    text = to_assembly(m.top)
    mfmas = [ln.split(None, 1)[1] for ln in text.splitlines() if "v_mfma" in ln]
    dsts = {x.split(",")[0] for x in mfmas}
    assert len(mfmas) == 4 and len(dsts) == 1  # one accumulator range throughout
    assert all(x.split(",")[3].strip() in (dsts | {"0"}) for x in mfmas)
    k = rt.load(assemble(text))["gemm_f16_32x32"]
    rng = np.random.default_rng(3)
    A = rng.standard_normal((64, 32)).astype(np.float16)
    B = rng.standard_normal((32, 64)).astype(np.float16)
    C = np.zeros((64, 64), np.float32)
    k(A, np.ascontiguousarray(B.T), C, grid=(2, 2, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_allclose(C, A.astype(np.float32) @ B.astype(np.float32), rtol=1e-3, atol=1e-3)


def test_every_kernel_of_a_python_file_in_one_code_object():
    path = Path(__file__).parent / "kernels" / "two_modules.py"
    mod = rt.load(compile_file(path, DEFAULT, None, "builtin", False))
    out = np.zeros(64, np.uint32)
    mod["iota"](out, grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(out, np.arange(64))
    mod["fill"](out, np.uint32(7), grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(out, 7)
    src = np.arange(100, 164, dtype=np.uint32)
    mod["copy"](src, out, grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    np.testing.assert_array_equal(out, src)
    only = rt.load(compile_file(path, DEFAULT, ["copy"], "builtin", False))
    from gcnforge.binary import read_code_object

    assert set(read_code_object(compile_file(path, DEFAULT, ["copy"], "builtin", False)).kernels) == {"copy"}
    del only

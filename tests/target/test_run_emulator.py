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

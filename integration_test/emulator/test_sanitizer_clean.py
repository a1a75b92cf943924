"""The sanitizer stays silent on correct code: every kernel of the suite (clang 22 output)
runs again with ``sanitize=True`` (stop at the first report) and must still pass."""

from __future__ import annotations

import pytest

from gcnforge.testing import require_llvm

import harness
import test_kernels
import test_mfma

KERNEL_TESTS = [(n, f) for n, f in vars(test_kernels).items() if n.startswith("test_") and callable(f)]
MFMA_NAMES = sorted(test_mfma.BUILTINS)[::3]  # every shape family is in this subset


@pytest.fixture
def sanitized(monkeypatch):
    monkeypatch.setattr(harness, "SANITIZE", True)


# test_buffer_ops_bounds relies on out-of-range buffer lanes reading 0: defined by the CDNA3
# range check, so the sanitizer stays silent on it too
@pytest.mark.parametrize("fn", [f for _, f in KERNEL_TESTS], ids=[n for n, _ in KERNEL_TESTS])
def test_kernel_clean(sanitized, fn, tools):
    fn(tools)


@pytest.fixture(scope="module")
def tools():
    return require_llvm("clang", "ld.lld")


@pytest.mark.parametrize("name", MFMA_NAMES)
def test_mfma_clean(sanitized, name, mfma_code):
    test_mfma.test_mfma(mfma_code, name)


def test_gemm_clean(sanitized):
    test_mfma.test_mfma_gemm()


mfma_code = test_mfma.mfma_code


import test_kernels_gfx950  # noqa: E402

G950_TESTS = [(n, f) for n, f in vars(test_kernels_gfx950).items() if n.startswith("test_") and callable(f)]


@pytest.fixture(scope="module")
def gfx950_code():
    return harness.build_cl("gfx950/ops.cl", require_llvm("clang", "ld.lld"), mcpu="gfx950")


@pytest.mark.parametrize("fn", [f for _, f in G950_TESTS], ids=[n for n, _ in G950_TESTS])
def test_gfx950_kernel_clean(sanitized, fn, gfx950_code):
    fn(gfx950_code)

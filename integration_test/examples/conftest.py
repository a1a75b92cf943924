"""Shared fixtures of the example-kernel integration tests.

* ``device``: every test runs on the emulator, and on HIP when hip-python sees a gfx942 GPU
  (skipped otherwise, with the backend's reason);
* ``compiled(key, build_fn)``: compiles a builder Module once per session (compilation is
  the slow part of these tests, the emulator runs are small problems).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
sys.path.insert(0, str(EXAMPLES / "drivers"))  # main_job, kernel_tables, gemm_tune

from lib.compile import compile_module, require_device  # noqa: E402

_CACHE: dict = {}


@pytest.fixture(params=["emulator", "hip"])
def device(request):
    require_device(request.param)
    return request.param


def compiled(key, build_fn, schedule: bool = False):
    if key not in _CACHE:
        _CACHE[key] = compile_module(build_fn(), schedule=schedule)
    return _CACHE[key]

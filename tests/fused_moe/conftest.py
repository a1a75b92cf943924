"""The MoE tests import the kernels from ``examples/`` (``moe`` package, ``topk_softmax``,
``lib.compile``) and compile each module once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

pytest.importorskip("ml_dtypes")  # the reference's e4m3fnuz / bf16 oracle

_CACHE: dict = {}


@pytest.fixture(scope="session")
def loaded():
    return _loaded


def _loaded(key, build_fn, kernel: str):
    """The emulator kernel ``kernel`` of ``build_fn()``, compiled once per key."""
    from lib.compile import compile_module

    if key not in _CACHE:
        _CACHE[key] = compile_module(build_fn()).load("emulator")
    return _CACHE[key][kernel]

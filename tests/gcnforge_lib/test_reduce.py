"""gcnforge.lib wave/block reductions and the wave scan on the emulator against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.lib import block_reduce, wave_reduce, wave_reduce_swizzle, wave_scan
from tests.gcnforge_lib.helpers import run

RNG = np.random.default_rng(24)
REF = {"add": np.sum, "max": np.max, "min": np.min, "umax": np.max, "umin": np.min, "iadd": np.sum}


def _wave_kernel(fn, op, waves=1):
    m = Module("m")
    with m.kernel("k", [Arg.ptr("x", access="read_only"), Arg.ptr("y", access="write_only")],
                  workgroup_size=(64 * waves, 1, 1)) as k:
        x, y = k.args()
        tid = k.thread_id("x")
        off = k.v_lshlrev_b32(2, tid)
        v, t = k.global_load_dword(off, x)
        k.wait(t)
        k.global_store_dword(off, fn(k, v, op, tid), y)
    return m


def _data(op, n):
    if op in ("umax", "umin", "iadd"):
        return RNG.integers(0, 1 << 20, n).astype(np.uint32)
    return RNG.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("op", ["add", "max", "min", "umax", "umin"])
@pytest.mark.parametrize("how", ["dpp", "swizzle"])
def test_wave_reduce(op, how):
    f = wave_reduce if how == "dpp" else wave_reduce_swizzle
    x = _data(op, 64)
    y = np.zeros_like(x)
    run(_wave_kernel(lambda k, v, o, _t: f(k, v, o), op), "k", x, y)
    want = REF[op](x.astype(np.float64) if x.dtype == np.float32 else x)
    np.testing.assert_allclose(y, np.full(64, want, x.dtype), rtol=1e-5)


@pytest.mark.parametrize("op", ["iadd", "add", "umax"])
def test_wave_scan(op):
    x = _data(op, 64)
    y = np.zeros_like(x)
    run(_wave_kernel(lambda k, v, o, _t: wave_scan(k, v, o), op), "k", x, y)
    if op == "iadd":
        assert np.array_equal(y, np.cumsum(x, dtype=np.uint32))
    elif op == "umax":
        assert np.array_equal(y, np.maximum.accumulate(x))
    else:
        np.testing.assert_allclose(y, np.cumsum(x.astype(np.float64)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("waves", [2, 4])
@pytest.mark.parametrize("op", ["add", "max"])
def test_block_reduce(waves, op):
    def body(k, v, o, tid):
        return block_reduce(k, v, o, k.lds(4 * waves), waves, tid)

    x = _data(op, 64 * waves)
    y = np.zeros_like(x)
    run(_wave_kernel(body, op, waves), "k", x, y, block=(64 * waves, 1, 1))
    np.testing.assert_allclose(y, np.full_like(x, REF[op](x.astype(np.float64))), rtol=1e-5)


def test_unknown_op_is_refused():
    m = Module("m")
    with m.kernel("k", []) as k:
        with pytest.raises(Diagnostic, match="unknown reduction"):
            wave_reduce(k, k.v_mov_b32(0), "mul")

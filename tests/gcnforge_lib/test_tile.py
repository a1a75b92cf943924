"""gcnforge.lib tile moves: a 32 x 32 x 32 f16 GEMM tile through global -> LDS (swizzled) ->
MFMA fragments -> global, on the emulator against NumPy's matmul; a ragged M (rows past the
buffer read 0 and are not stored)."""

from __future__ import annotations

import numpy as np
import pytest

from gcnforge.builder import Arg, Module
from gcnforge.lib import (LdsLayout, Swizzle, fragment_to_global, global_to_lds, lds_to_fragment,
                          make_buffer_rsrc)
from gcnforge.lib.tile import emit_lane_function, fit_lane_function
from tests.gcnforge_lib.helpers import run

MF = "v_mfma_f32_32x32x8_f16"


def _gemm(swizzle, m_rows):
    lay = LdsLayout(32, 32, 2, swizzle=swizzle)
    m = Module("m")
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("bt", access="read_only"), Arg.ptr("c", access="write_only")]
    with m.kernel("k", args, workgroup_size=(64, 1, 1)) as k:
        pa, pb, pc = k.args()
        tid = k.thread_id("x")
        ra = make_buffer_rsrc(k, pa, m_rows * 64)
        rb = make_buffer_rsrc(k, pb, 32 * 64)
        rc = make_buffer_rsrc(k, pc, m_rows * 128)
        la, lb = k.lds(lay.nbytes), k.lds(lay.nbytes)
        toks = global_to_lds(k, ra, 0, 64, la, lay, tid, 64) + global_to_lds(k, rb, 0, 64, lb, lay, tid, 64)
        k.wait(*toks)
        k.s_barrier()
        acc = k.concat(*[k.v_mov_b32(0) for _ in range(16)])
        for k0 in range(0, 32, 8):
            a, ta = lds_to_fragment(k, la, lay, MF, "A", k0)
            b, tb = lds_to_fragment(k, lb, lay, MF, "B", k0)
            k.wait(ta, tb)
            acc = k.inst(MF, a, b, acc)
        fragment_to_global(k, acc, rc, 0, 128, MF)
    return m


@pytest.mark.parametrize("swizzle", [None, Swizzle(2, 4, 3)])
@pytest.mark.parametrize("m_rows", [32, 21])
def test_gemm_tile_through_lds(swizzle, m_rows):
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (32, 32)).astype(np.float16)
    b = rng.integers(-3, 4, (32, 32)).astype(np.float16)
    c = np.full((32, 32), -1.0, np.float32)
    run(_gemm(swizzle, m_rows), "k", a[:m_rows].copy(), np.ascontiguousarray(b.T), c)
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.array_equal(c[:m_rows], want[:m_rows])
    assert (c[m_rows:] == -1.0).all()


def test_lane_functions_fit_bit_fields():
    lanes = np.arange(64)
    assert fit_lane_function(lanes % 32) == [(0, 5, 1)]
    assert fit_lane_function((lanes // 32) * 4 + 8) == [(5, 1, 4)]
    assert fit_lane_function(lanes * lanes) is None


def test_emitted_lane_function_matches():
    lanes = np.arange(64)
    vals = (lanes % 16) * 3 + (lanes // 16) * 40 + 5
    m = Module("m")
    with m.kernel("k", [Arg.ptr("y", access="write_only")], workgroup_size=(64, 1, 1)) as k:
        (y,) = k.args()
        tid = k.thread_id("x")
        k.global_store_dword(k.v_lshlrev_b32(2, tid), emit_lane_function(k, tid, 5, fit_lane_function(vals)), y)
    out = np.zeros(64, np.uint32)
    run(m, "k", out)
    assert np.array_equal(out, vals)

"""gcnforge.lib buffer resources, clamped tails, lane masks and masked regions on the
emulator against NumPy (the tail lanes read 0 and drop their stores: the V# rule)."""

from __future__ import annotations

import numpy as np
import pytest

from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.lib import (buffer_load, buffer_store, lane_id, lane_mask_lt, load_idx, make_buffer_rsrc, masked,
                          store_idx)
from tests.gcnforge_lib.helpers import run

RO, WO = "read_only", "write_only"


@pytest.mark.parametrize("n", [1, 63, 100, 128])
def test_raw_buffer_tail_is_clamped(n):
    """out[i] = 2 * x[i] + 1 for i < n over 2 work-groups of 64: no mask, the V# (4n bytes)
    zeroes the loads past n and drops the stores there (the sentinel past n survives)."""
    m = Module("m")
    with m.kernel("k", [Arg.ptr("x", access=RO), Arg.ptr("y", access=WO), Arg.value("n")],
                  workgroup_size=(64, 1, 1)) as k:
        x, y, nv = k.args()
        nbytes = k.s_lshl_b32(nv, 2)
        gid = k.v_add_u32(k.s_lshl_b32(k.block_id("x"), 6), k.thread_id("x"))
        off = k.v_lshlrev_b32(2, gid)
        v, t = buffer_load(k, make_buffer_rsrc(k, x, nbytes), off)
        k.wait(t)
        buffer_store(k, k.v_fma_f32(v, 2.0, 1.0), make_buffer_rsrc(k, y, nbytes), off)
    xs = np.random.default_rng(n).standard_normal(128).astype(np.float32)
    ys = np.full(128, -7.0, np.float32)
    run(m, "k", xs, ys, np.uint32(n), grid=(2, 1, 1), sanitize=False)
    assert np.array_equal(ys[:n], (2 * xs[:n] + 1).astype(np.float32))
    assert (ys[n:] == -7.0).all()


def test_structured_buffer_by_record_index():
    """Records of 8 bytes (two f32); record i's second field = its first * 3 for i < n; the
    V# counts records (num_records = n), so indices past n read 0 and store nothing."""
    n = 50
    m = Module("m")
    with m.kernel("k", [Arg.ptr("r"), Arg.value("n")], workgroup_size=(64, 1, 1)) as k:
        r, nv = k.args()
        rs = make_buffer_rsrc(k, r, nv, stride=8)
        i = k.thread_id("x")
        v, t = load_idx(k, rs, i)
        k.wait(t)
        store_idx(k, k.v_mul_f32(3.0, v), rs, i, imm=4)
    rec = np.random.default_rng(1).standard_normal((64, 2)).astype(np.float32)
    want = rec.copy()
    want[:n, 1] = 3 * rec[:n, 0]
    run(m, "k", rec, np.uint32(n), sanitize=False)
    assert np.array_equal(rec, want)


def test_masked_region_and_lane_id():
    """Lanes < n write their lane id + 10; the others keep the sentinel."""
    n = 37
    m = Module("m")
    with m.kernel("k", [Arg.ptr("y", access=WO), Arg.value("n")], workgroup_size=(64, 1, 1)) as k:
        y, nv = k.args()
        lid = lane_id(k)
        off = k.v_lshlrev_b32(2, lid)
        with masked(k, lane_mask_lt(k, lid, nv)):
            k.global_store_dword(off, k.v_add_u32(10, lid), y)
    ys = np.full(64, 0xDEAD, np.uint32)
    run(m, "k", ys, np.uint32(n))
    assert np.array_equal(ys[:n], np.arange(n) + 10) and (ys[n:] == 0xDEAD).all()


def test_buffer_width_is_checked():
    m = Module("m")
    with m.kernel("k", [Arg.ptr("x")]) as k:
        (x,) = k.args()
        with pytest.raises(Diagnostic, match="1, 2, 3 or 4 dwords"):
            buffer_load(k, make_buffer_rsrc(k, x, 64), k.thread_id("x"), dwords=5)

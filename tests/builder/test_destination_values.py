"""Destination-passing names storage, never an SSA result: ``k.v_add_f32(y, a, x)`` with ``y``
an earlier instruction's result used to compile to an instruction writing y's register while
its result was placed in another (a silent wrong value: 1.0 stored instead of 4.0 on the
emulator). It is refused at the author's line; storage (``k.vgpr()``) and fresh results work."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.passes import pipeline as pl
from gcnforge.translate import to_code_object


def test_result_as_destination_refused_at_authors_line():
    m = Module("d")
    with m.kernel("d", [Arg.value("a", np.float32)], workgroup_size=(64, 1, 1)) as k:
        (a,) = k.args()
        x, y = k.v_mov_b32(1.0), k.v_mov_b32(2.0)
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(Diagnostic, match="destination vdst is a value an instruction produced") as e:
            k.v_add_f32(y, a, x)
    assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


@pytest.mark.parametrize("storage", [False, True])
def test_fresh_and_storage_destinations_compute(storage):
    m = Module("d")
    with m.kernel("d", [Arg.ptr("o", np.float32), Arg.value("a", np.float32)], workgroup_size=(64, 1, 1)) as k:
        o, a = k.args()
        x = k.v_mov_b32(1.0)
        r = k.v_add_f32(k.vgpr(), a, x) if storage else k.v_add_f32(a, x)
        k.global_store_dword(k.v_lshlrev_b32(2, k.thread_id("x")), r, o)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    out = np.zeros(64, np.float32)
    rt.load(to_code_object(m.top))["d"](out, 3.0, grid=1, block=64, device="emulator")
    np.testing.assert_array_equal(out, np.full(64, 4.0, np.float32))


def test_accumulating_into_a_result_refused_and_storage_accumulates():
    """v_fmac_f32 reads and writes its destination (a tied operand): with an SSA result there
    it stored 1.0 instead of 5.0; with storage it accumulates in place."""
    m = Module("f")
    with m.kernel("f", [Arg.ptr("o", np.float32), Arg.value("a", np.float32)], workgroup_size=(64, 1, 1)) as k:
        o, a = k.args()
        x = k.v_mov_b32(1.0)
        with pytest.raises(Diagnostic, match="it accumulates into its destination"):
            k.v_fmac_f32(k.v_mov_b32(2.0), a, x)
        acc = k.vgpr()
        k.v_mov_b32(acc, 2.0)
        k.global_store_dword(k.v_lshlrev_b32(2, k.thread_id("x")), k.v_fmac_f32(acc, a, x), o)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    out = np.zeros(64, np.float32)
    rt.load(to_code_object(m.top))["f"](out, 3.0, grid=1, block=64, device="emulator")
    np.testing.assert_array_equal(out, np.full(64, 5.0, np.float32))


def test_buffer_atomic_data_may_be_a_result_unless_it_returns():
    """A MUBUF atomic writes vdata back only in its returning form (sc0): without sc0 an earlier
    result is just its data (examples/gemm_lds.py's split-K buffer_atomic_add_f32), with sc0 it
    would be overwritten and is refused."""
    from gcnforge.lib import make_buffer_rsrc

    m = Module("d")
    with m.kernel("d", [Arg.ptr("o", np.float32)], workgroup_size=(64, 1, 1)) as k:
        (o,) = k.args()
        rsrc = make_buffer_rsrc(k, o, 256)
        off = k.v_lshlrev_b32(2, k.thread_id("x"))
        v = k.v_mov_b32(1.5)
        k.buffer_atomic_add_f32(v, off, rsrc, 0, offen=True)
        with pytest.raises(Diagnostic, match="destination vdata is a value an instruction produced"):
            k.buffer_atomic_add_f32(v, off, rsrc, 0, offen=True, sc0=True)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    out = np.ones(64, np.float32)
    rt.load(to_code_object(m.top))["d"](out, grid=1, block=64, device="emulator")
    np.testing.assert_array_equal(out, np.full(64, 2.5, np.float32))


def test_buffer_atomic_data_result_stays_live_until_the_atomic():
    """The data of an atomic without sc0 is read by it: a value computed between the data and
    the atomic must not take the data's register (the allocator gave the offset the data's
    VGPR, and the atomic added the address bits: examples/moe/stage2.py's first run)."""
    from gcnforge.lib import make_buffer_rsrc

    m = Module("d2")
    with m.kernel("d2", [Arg.ptr("o", np.float32)], workgroup_size=(64, 1, 1)) as k:
        (o,) = k.args()
        rsrc = make_buffer_rsrc(k, o, 256)
        t4 = k.v_lshlrev_b32(2, k.thread_id("x"))  # live to the end
        v = k.v_mul_f32(1.5, k.v_cvt_f32_u32(k.thread_id("x")))  # the data
        off = k.v_add_u32(t4, k.s_mov_b32(0))  # then the offset: the lowest free VGPR was the data's
        k.buffer_atomic_add_f32(v, off, rsrc, 0, offen=True)
        k.buffer_atomic_add_f32(k.v_mov_b32(2.0), t4, rsrc, 0, offen=True)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    out = np.ones(64, np.float32)
    rt.load(to_code_object(m.top))["d2"](out, grid=1, block=64, device="emulator")
    np.testing.assert_array_equal(out, 3 + 1.5 * np.arange(64, dtype=np.float32))

"""Coalescing 64-bit VGPR copies (``v_mov_b64``, a same-file move of ``isa.moves`` that the
binding now coalesces, ``bind.copies``): kernels with such copies, allocated and run on the
emulator, compute what NumPy computes, and a copy whose source dies is gone."""

from __future__ import annotations

import numpy as np

import gcnforge.runtime as rt
from gcnforge.binary import assemble
from gcnforge.builder import Arg, Module
from gcnforge.passes import pipeline as pl
from gcnforge.passes.regalloc.bind import copies
from gcnforge.translate import to_assembly


def _run(build, n_out: int, src: np.ndarray) -> tuple[np.ndarray, str]:
    m = Module("cp64")
    with m.kernel("cp64", [Arg.ptr("src"), Arg.ptr("dst")], workgroup_size=(64, 1, 1)) as k:
        build(k)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    dst = np.zeros(64 * 2 * n_out, np.uint32)
    rt.load(assemble(text))["cp64"](src, dst, grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    return dst.view(np.uint64).reshape(n_out, 64), text


def _src():
    return np.random.default_rng(7).integers(0, 2**32, size=128, dtype=np.uint32)


def test_v_mov_b64_is_a_coalesced_copy():
    assert {"v_mov_b64_e32", "v_mov_b64_e64"} <= copies()


def test_copy_whose_source_dies_is_coalesced_and_correct():
    def build(k):
        src, dst = k.args()
        off = k.v_lshlrev_b32(3, k.thread_id("x"))
        a, _ = k.global_load_dwordx2(off, src)
        b = k.v_mov_b64(a)  # a dies here: b may take a's registers
        k.global_store_dwordx2(off, k.v_lshlrev_b64(1, b), dst)
        k.s_endpgm()

    got, text = _run(build, 1, _src())
    a = _src().view(np.uint64)
    np.testing.assert_array_equal(got[0], a << np.uint64(1))
    assert "v_mov_b64" not in text  # coalesced away


def test_copy_whose_source_stays_live_keeps_both_values():
    def build(k):
        src, dst = k.args()
        off = k.v_lshlrev_b32(3, k.thread_id("x"))
        a, _ = k.global_load_dwordx2(off, src)
        b = k.v_mov_b64(a)
        a2 = k.v_lshlrev_b64(1, a)  # a read after the copy; b and a2 both live to the stores
        b2 = k.v_lshlrev_b64(3, b)
        k.global_store_dwordx2(off, a2, dst)
        k.global_store_dwordx2(off, b2, dst, offset=512)
        k.s_endpgm()

    got, _ = _run(build, 2, _src())
    a = _src().view(np.uint64)
    np.testing.assert_array_equal(got[0], a << np.uint64(1))
    np.testing.assert_array_equal(got[1], a << np.uint64(3))

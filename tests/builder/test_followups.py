"""Builder follow-ups, each checked end to end (builder -> default pipeline -> built-in
assembler -> emulator) against NumPy: launch ids asked for twice, and non-returning
vs returning atomics."""

from __future__ import annotations

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import InstOp

WAVE = 64


def _run(m: Module, *arrays, grid=(1, 1, 1)):
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline
    from gcnforge.translate import to_assembly

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


def _atomic_kernel(sc0: bool):
    m = Module("t")
    with m.kernel("k", [Arg.ptr("acc"), Arg.ptr("old")], workgroup_size=(WAVE, 1, 1)) as k:
        acc, old = k.args()
        lane = k.thread_id("x")
        off = k.v_lshlrev_b32(2, k.v_and_b32(3, lane))  # lanes hit acc[lane % 4]
        one = k.v_mov_b32(1.0)
        got = k.global_atomic_add_f32(off, one, acc, sc0=True) if sc0 else k.global_atomic_add_f32(off, one, acc)
        if sc0:
            prev, t = got
            k.wait(t)
            k.global_store_dword(k.v_lshlrev_b32(2, lane), prev, old)
        k.s_endpgm()
    return m, got


def test_atomic_without_sc0_has_no_destination():
    m, tok = _atomic_kernel(sc0=False)
    op = next(o for o in m.top.walk() if isinstance(o, InstOp) and o.mnemonic == "global_atomic_add_f32")
    assert op.off_slots == (0,) and len(op.outs) == 1  # vdst 'off', only the write token
    assert str(tok.value.type) == "!amdgcn.write_token"
    assert "global_atomic_add_f32 off, %" in m.text()  # the IR spells the missing vdst 'off'
    m.verify()


def test_atomic_without_sc0_runs():
    m, _ = _atomic_kernel(sc0=False)
    acc = np.zeros(4, np.float32)
    asm = _run(m, acc, np.zeros(WAVE, np.float32))
    line = next(ln for ln in asm.splitlines() if "global_atomic_add_f32" in ln)
    assert "sc0" not in line and len(line.split(",")) == 3, line  # vaddr, vdata, saddr
    np.testing.assert_array_equal(acc, np.full(4, WAVE / 4, np.float32))


def test_atomic_with_sc0_returns_the_old_value():
    m, (prev, tok) = _atomic_kernel(sc0=True)
    assert str(tok.value.type) == "!amdgcn.read_token"
    acc, old = np.zeros(4, np.float32), np.full(WAVE, -1, np.float32)
    _run(m, acc, old)
    np.testing.assert_array_equal(acc, np.full(4, WAVE / 4, np.float32))
    # the 16 lanes adding to one address saw 0, 1, ..., 15 in some order
    for j in range(4):
        np.testing.assert_array_equal(np.sort(old[j::4]), np.arange(WAVE // 4, dtype=np.float32))


def test_atomic_destination_without_sc0_is_reported():
    m = Module("t")
    with m.kernel("k", [Arg.ptr("acc")]) as k:
        (acc,) = k.args()
        v = k.vgpr()
        with pytest.raises(Diagnostic, match="must use sc0"):
            k.global_atomic_add_f32(v, v, v, acc)

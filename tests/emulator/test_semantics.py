"""Instruction semantics that the clang-compiled suite does not reach, on hand-written
kernels assembled by llvm-mc: VGPR indexing mode (AccVGPR operands included), lane access and v_cmpx, DS
read2/write2/read_b96/return atomics, idxen buffer loads with strides and bounds, SDWA, s_setvskip,
and s_trap (a located Diagnostic)."""

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

L = np.arange(64)


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    t = require_llvm("llvm-mc", "ld.lld")
    d = tmp_path_factory.mktemp("sem")
    src = Path(__file__).with_name("semantics_kernels.s")
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(src), "-o",
                    str(d / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(d / "k.o"), "-o", str(d / "k.so")], check=True)
    return (d / "k.so").read_bytes()


def run(code, name, nout, extra=b"", sanitize=True):
    dev = Device()
    out = dev.memory.alloc(4 * 64 * nout)
    dev.memory.write(out, b"\0" * (4 * 64 * nout))
    dev.run(code, name, struct.pack("<Q", out) + extra, (1, 1, 1), (64, 1, 1), sanitize=sanitize)
    return np.frombuffer(dev.memory.read(out, 4 * 64 * nout), np.uint32).reshape(nout, 64), dev


def test_gpr_index_mode(code):
    o, _ = run(code, "gpr_idx", 4)
    np.testing.assert_array_equal(o, [400 + L, 300 + L, L, 100 + L])


def test_gpr_index_mode_moves_accvgpr_operands(code):
    """The index applies to AccVGPR operands as to VGPRs (S_SET_GPR_IDX_ON: the operands the mode
    selects are addressed relative to M0[7:0]; an AccVGPR is a VGPR operand with the ACC bit):
    a1 read with index 4 is a5; a1 written with index 2 is a3, a1 keeps its value."""
    o, _ = run(code, "gpr_idx_acc", 3)
    np.testing.assert_array_equal(o, [500 + L, 4 * L, 100 + L])


def test_lane_ops(code):
    o, _ = run(code, "lane_ops", 4)
    np.testing.assert_array_equal(o[0], np.where(L == 7, 0x1234, L))
    np.testing.assert_array_equal(o[1], 9)
    np.testing.assert_array_equal(o[2], np.where(L < 32, 0xFFFFFFFF, 0))
    np.testing.assert_array_equal(o[3], np.minimum(L, 32))


def test_ds_ops(code):
    o, _ = run(code, "ds_ops", 7)
    half = L // 2
    np.testing.assert_array_equal(o[0], np.where(L % 2 == 0, half, 1000 + half))
    np.testing.assert_array_equal(o[1], np.where(L % 2 == 0, 2000 + half, 3000 + half))
    # ds_read_b96 at 16*l: dwords 4l, 4l+1, 4l+2 of the b64 array {m, 1000+m} (m < 64) then the second array
    flat = np.concatenate([np.stack([L, 1000 + L], 1).reshape(-1), np.stack([2000 + L, 3000 + L], 1).reshape(-1)])
    np.testing.assert_array_equal(o[2:5], np.stack([flat[4 * L], flat[4 * L + 1], flat[4 * L + 2]]))
    assert sorted(o[5].tolist()) == list(range(64))  # ds_add_rtn: every lane saw a distinct old value
    np.testing.assert_array_equal(o[6], 64)


def test_buffer_idxen_stride_and_bounds(code):
    dev = Device()
    src = dev.memory.alloc(8 * 64)
    dev.memory.write(src, np.arange(128, dtype=np.uint32).tobytes())
    out = dev.memory.alloc(4 * 64)
    dev.run(code, "buffer_idxen", struct.pack("<QQ", out, src), (1, 1, 1), (64, 1, 1))
    o = np.frombuffer(dev.memory.read(out, 256), np.uint32)
    # stride 8 bytes, offset 4: element 2l+1; records beyond num_records=32 read 0
    np.testing.assert_array_equal(o, np.where(L < 32, 2 * L + 1, 0))


def test_sdwa(code):
    o, _ = run(code, "sdwa_ops", 3)
    np.testing.assert_array_equal(o[0], ((2 * L + 3) << 16) | 0x5555)
    np.testing.assert_array_equal(o[1], 0x80)
    v2 = (L * 0x101 + 0x300).astype(np.uint32)
    np.testing.assert_array_equal(o[2].view(np.float32), (v2 >> 16).astype(np.uint16).view(np.float16).astype(np.float32))


def test_lds_dma_through_m0(code):
    dev = Device()
    src = dev.memory.alloc(256)
    dev.memory.write(src, (np.arange(64, dtype=np.uint32) * 3).tobytes())
    out = dev.memory.alloc(512)
    dev.run(code, "lds_dma", struct.pack("<QQ", out, src), (1, 1, 1), (64, 1, 1), sanitize=True)
    o = np.frombuffer(dev.memory.read(out, 512), np.uint32).reshape(2, 64)
    np.testing.assert_array_equal(o[0], 3 * L)
    np.testing.assert_array_equal(o[1], 3 * L)


def test_lds_dma_lands_when_vmcnt_retires_it(code):
    """An LDS DMA writes LDS when its load returns, which the wave sees only through vmcnt
    (LLVM D124626: "LDS DMA operations need a wait on vmcnt before LDS written can be
    accessed"; outstanding.py): a read before the wait sees the old contents (a global load's
    latency is hundreds of cycles, the read a few), ``vmcnt(1)`` retires the older of two DMAs
    only (vmcnt counts in order), ``vmcnt(0)`` both. The sanitizer, on the same model, reports
    exactly the two reads that see old contents."""
    dev = Device()
    src = dev.memory.alloc(512)
    dev.memory.write(src, (np.arange(128, dtype=np.uint32) * 3 + 1).tobytes())
    out = dev.memory.alloc(1024)
    st = dev.run(code, "lds_dma_return", struct.pack("<QQ", out, src), (1, 1, 1), (64, 1, 1), sanitize=True,
                 sanitize_mode="continue")
    o = np.frombuffer(dev.memory.read(out, 1024), np.uint32).reshape(4, 64)
    np.testing.assert_array_equal(o, [1000 + L, 3 * L + 1, 1000 + L, 3 * (64 + L) + 1])
    early = sorted(r.loc.text for r in st.reports if r.kind == "unwaited")
    assert early == ["ds_read_b32 v2, v20", "ds_read_b32 v4, v20 offset:256"], [str(r) for r in st.reports]


@pytest.mark.parametrize("spin,want", [(0, "dma"), (400, "write")])
def test_unwaited_lds_dma_lands_after_the_memory_latency(code, spin, want):
    """A DMA no wait retires lands once the memory latency (the profile's ``lat_hbm``) has passed
    on the work-group's clock, and the emulator, which runs waves out of clock order, orders it
    with other writes by those clocks: wave 1's DMA and wave 0's write of the same LDS race (the
    sanitizer reports it); a write right away (spin 0) is overwritten by the DMA, one after
    1200 cycles of spinning is not (the reads come 1200 cycles after both; 3 issue cycles a turn)."""
    dev = Device()
    src = dev.memory.alloc(256)
    dev.memory.write(src, (np.arange(64, dtype=np.uint32) + 100).tobytes())
    out = dev.memory.alloc(512)
    st = dev.run(code, "lds_dma_order", struct.pack("<QQI", out, src, spin), (1, 1, 1), (128, 1, 1), sanitize=True,
                 sanitize_mode="continue")
    o = np.frombuffer(dev.memory.read(out, 512), np.uint32).reshape(2, 64)
    np.testing.assert_array_equal(o, np.broadcast_to(L + 100 if want == "dma" else 7, (2, 64)))
    assert any(r.kind == "lds-race" for r in st.reports), [str(r) for r in st.reports]


def test_kernarg_preload(code):
    o, _ = run(code, "preload", 1)
    np.testing.assert_array_equal(o[0], L + 7)


def test_salu_mask_ops_and_scalar_atomic(code):
    o, _ = run(code, "salu_misc", 5)
    np.testing.assert_array_equal(o[0], 0xF0)  # s_wqm: whole quad of bit 4
    np.testing.assert_array_equal(o[1], 0x25)  # s_quadmask of 0x00f00f01: quads 0, 2, 5
    np.testing.assert_array_equal(o[2], 0x33)  # s_bitreplicate of 0b101
    np.testing.assert_array_equal(o[3], 0)  # old value returned by s_atomic_add ... glc
    assert o[4][0] == 3


def test_setvskip_skips_vector_instructions(code):
    o, _ = run(code, "vskip", 4)
    # expected from the guide's S_SETVSKIP: the v_mov, v_cmpx (EXEC intact: every lane stores),
    # global store and ds_write under VSKIP did nothing; the s_mov between them ran (1 + 5)
    np.testing.assert_array_equal(o[0], 6)
    np.testing.assert_array_equal(o[1], 0)
    np.testing.assert_array_equal(o[2], 7)  # s_setvskip s6, 0 selects bit 0 of 2: not set
    np.testing.assert_array_equal(o[3], 1)  # the ds_write of 1 before VSKIP stands


def test_trap_is_a_located_diagnostic(code):
    with pytest.raises(Diagnostic) as e:
        Device().run(code, "trap", b"\0" * 8, (1, 1, 1), (64, 1, 1))
    assert "s_trap 2" in str(e.value) and "pc=0x" in str(e.value) and "wave=0" in str(e.value)


def test_trace_hook_sees_every_issue(code):
    events = []
    dev = Device()
    out = dev.memory.alloc(4 * 128 * 4)
    st = dev.run(code, "lane_ops", struct.pack("<Q", out), (2, 1, 1), (128, 1, 1), trace=events.append)
    assert len(events) == st.issues and sum(len(e.waves) for e in events) == st.wave_instructions
    assert events[0].text.startswith("s_load_dwordx2") and events[-1].text == "s_endpgm"
    assert set(events[0].workgroups) == {(0, 0, 0), (1, 0, 0)}


def test_spin_wait_between_waves_progresses(code):
    st = Device().run(code, "spin_wait", b"\0" * 8, (1, 1, 1), (128, 1, 1), max_instructions=100_000)
    assert st.wave_instructions < 10_000


def test_16bit_destinations(code):
    o, _ = run(code, "half_dst", 3)
    np.testing.assert_array_equal(o[0], 0x4000)  # 1+1 = 2.0, high half zeroed
    np.testing.assert_array_equal(o[1], 0xBEEF4000)  # fma 1*1+1 = 2.0, high half kept
    np.testing.assert_array_equal(o[2], 0x40000000)  # op_sel dst bit: result in the high half, low kept (0)


def test_packed_f32_scalar_and_constant_sources(code):
    """v_pk_fma/mul/add_f32 reading an SGPR pair and an inline constant (op_sel_hi picks the
    dword each half reads, neg_hi negates the high half's source), under a partial EXEC:
    lanes off keep their old zeros. Expected values from the ISA guide's VOP3P rules in NumPy."""
    o, _ = run(code, "pk_f32", 6)
    f = o.view(np.float32)
    on = np.array([(0xFFFF0FFF >> i) & 1 if i < 32 else (0x0000FFFF >> (i - 32)) & 1 for i in L], bool)
    lo, hi = L.astype(np.float32), L.astype(np.float32) + np.float32(0.5)
    want = [lo * 3 + 1, hi * -2 + 1, lo * 3, hi * 3, lo + 1, -hi + 1]
    for got, w in zip(f, want):
        np.testing.assert_array_equal(got, np.where(on, w, np.float32(0)))

"""Each sanitizer check catches its deliberately broken kernel (hand-written assembly,
assembled by llvm-mc and linked by ld.lld in the test), with the right kind, pc and
location; the correct counterpart raises nothing."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnforge.emulator import Device
from gcnforge.emulator.sanitizer import SanitizerReport
from gcnforge.testing import require_llvm

SRC = Path(__file__).with_name("broken_kernels.s")


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    t = require_llvm("llvm-mc", "ld.lld")
    d = tmp_path_factory.mktemp("broken")
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(SRC),
                    "-o", str(d / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(d / "k.o"), "-o", str(d / "k.so")], check=True)
    return (d / "k.so").read_bytes()


def launch(code, name, block=64, nbytes=256, **kw):
    dev = Device()
    buf = dev.memory.alloc(nbytes)  # 64 dwords unless asked
    dev.memory.write(buf, np.arange(nbytes // 4, dtype=np.uint32).tobytes())
    return dev.run(code, name, struct.pack("<Q", buf), (1, 1, 1), (block, 1, 1), sanitize=True, **kw)


CASES = [
    ("oob_global", 64, "oob", "global_load_dword v2, v1, s[4:5] offset:256", "outside the 256-byte allocation"),
    ("unmapped_global", 64, "unmapped", "global_load_dword v4, v[2:3], off", "unmapped address 0x1000"),
    ("misaligned_global", 64, "misaligned", "offset:2", "not 4-byte aligned"),
    # a buffer access the range check lets through still needs memory behind it
    ("buffer_in_range_oob", 64, "oob", "buffer_load_dword", "outside the 256-byte allocation"),
    ("buffer_in_range_unmapped", 64, "unmapped", "buffer_load_dword", "unmapped address 0x1000"),
    ("oob_lds", 64, "oob", "ds_read_b32 v2, v1 offset:1024", "outside the 256-byte LDS"),
    ("unwaited_vmem", 64, "unwaited", "v_add_u32_e32 v3, v2, v2", "s_waitcnt vmcnt"),
    ("unwaited_smem", 64, "unwaited", "s_add_u32 s6, s4, 4", "lgkmcnt"),
    ("unwaited_barrier", 128, "unwaited", "s_barrier", "needs s_waitcnt lgkmcnt(0) before the barrier"),
    ("unwaited_lgkm_mixed", 64, "unwaited", "v_add_u32_e32 v3, v2, v2", "s_waitcnt lgkmcnt"),
    ("unwaited_overwrite", 64, "unwaited", "v_mov_b32_e32 v2, 0", "v2 is overwritten before the load"),
    ("uninit_store", 64, "uninit", "global_store_dword v1, v5, s[4:5]", "v5 holds a value never written"),
    ("lds_race", 128, "lds-race", "ds_read_b32 v3, v2", "by wave 1"),
    ("hazard_dpp", 64, "hazard", "v_mov_b32_dpp v2, v1", "needs 2 wait states, got 0"),
    ("hazard_valu_sgpr_vmem", 64, "hazard", "global_load_dword v2, v1, s[6:7]", "needs 5 wait states"),
    ("hazard_valu_sgpr_valu", 64, "hazard", "v_add_u32_e32 v1, s6, v0", "needs 2 wait states, got 0"),
    # a 2-pass non-XDL MFMA result read by VALU: P + 2 = 4 (clang 22 emits s_nop 3 there)
    ("hazard_mfma", 64, "hazard", "v_add_f32_e32 v6, v0, v0", "needs 4 wait states, got 0"),
    ("hazard_dgemm_store", 64, "hazard", "global_store_dwordx2 v0, v[0:1], s[4:5]", "needs 18 wait states, got 10"),
]


@pytest.mark.parametrize("name,block,kind,text,words", CASES, ids=[c[0] for c in CASES])
def test_broken_kernel_is_caught(code, name, block, kind, text, words):
    with pytest.raises(SanitizerReport) as e:
        launch(code, name, block)
    r = e.value
    assert r.kind == kind, str(r)
    assert text in str(r) and words in str(r), str(r)
    assert r.loc.kernel == name and r.loc.wg == (0, 0, 0) and r.loc.pc > 0
    assert str(r).startswith(f"{name}: pc=0x")


def test_budget_ends_endless_loop(code):
    with pytest.raises(SanitizerReport.__mro__[1]) as e:  # EmulationError
        launch(code, "endless", max_instructions=5000)
    assert e.value.kind == "budget" and "5000" in str(e.value)


def test_sanitized_default_budget_is_per_wave(code, monkeypatch):
    """A sanitized run's default budget stops an endless loop whose state never repeats (s8
    counts up: the livelock check cannot see it) after SANITIZE_MAX_WAVE_INSTRUCTIONS per wave,
    not after the 50M-instruction launch budget (an hour of sanitized emulation); an explicit
    max_instructions replaces it. (The limit is lowered here to keep the test short; the trace
    hook stops the run if the default limit does not.)"""
    from gcnforge.emulator import device

    monkeypatch.setattr(device, "SANITIZE_MAX_WAVE_INSTRUCTIONS", 2000)
    seen = [0]

    def guard(ev):
        seen[0] += 1
        if seen[0] > 20_000:
            raise RuntimeError("the sanitized run has no per-wave budget")

    with pytest.raises(SanitizerReport.__mro__[1]) as e:  # EmulationError
        launch(code, "endless", block=128, trace=guard)
    assert e.value.kind == "budget" and "more than 2000 instructions" in str(e.value), str(e.value)
    assert 2000 <= seen[0] <= 2001
    seen[0] = 0
    with pytest.raises(SanitizerReport.__mro__[1]) as e:  # the launch's own budget: 2 waves x 3000
        launch(code, "endless", block=128, trace=guard, max_instructions=6000)
    assert e.value.kind == "budget" and "budget of 6000 wave-instructions" in str(e.value), str(e.value)


def test_budget_without_sanitizer(code):
    dev = Device()
    with pytest.raises(Exception) as e:
        dev.run(code, "endless", b"\0" * 8, (1, 1, 1), (64, 1, 1), max_instructions=1000)
    assert "budget" in str(e.value)


def test_clean_kernel_has_no_report(code):
    st = launch(code, "clean", 128, nbytes=512)
    assert st.reports == []


def test_buffer_range_check_is_defined(code):
    """Out-of-range MUBUF lanes are defined by the hardware (loads 0, stores dropped): a
    kernel that prefetches past the end through a shrinking num_records runs clean."""
    dev = Device()
    buf = dev.memory.alloc(256)
    dev.memory.write(buf, np.arange(64, dtype=np.uint32).tobytes())
    st = dev.run(code, "buffer_prefetch_past_end", struct.pack("<Q", buf), (1, 1, 1), (64, 1, 1), sanitize=True,
                 sanitize_mode="continue")
    assert st.reports == []
    lane = np.arange(64)
    # byte offset 4l of tile 1 (base + 128, 128 records left) is in range for l < 32
    want = np.where(lane < 32, lane + 32, 0)
    assert np.array_equal(np.frombuffer(dev.memory.read(buf, 256), np.uint32), want)


def test_continue_mode_collects_reports(code):
    st = launch(code, "oob_global", sanitize_mode="continue")
    assert [r.kind for r in st.reports] == ["oob"]
    st = launch(code, "lds_race", 128, sanitize_mode="continue")
    assert {r.kind for r in st.reports} == {"lds-race"}


def test_vgpr_beyond_allocation_is_a_fault(code):
    with pytest.raises(Exception) as e:
        Device().run(code, "vgpr_beyond_allocation", b"\0" * 8, (1, 1, 1), (64, 1, 1))
    assert "v20" in str(e.value) and "8 VGPRs" in str(e.value) and "pc=0x" in str(e.value)


@pytest.mark.parametrize("grid,block,words", [((0, 1, 1), (64, 1, 1), "bad launch shape"),
                                               ((1, 1, 1), (1025, 1, 1), "exceeds gfx942's 1024"),
                                               ((1, 1, 1), (64, 1, 1), "not found")])
def test_bad_launches_are_diagnostics(code, grid, block, words):
    from gcnforge.diagnostics import Diagnostic

    name = "nope" if words == "not found" else "clean"
    with pytest.raises(Diagnostic) as e:
        Device().run(code, name, b"\0" * 8, grid, block)
    assert words in str(e.value)


def test_lds_over_64k_is_a_diagnostic(code):
    from gcnforge.diagnostics import Diagnostic

    with pytest.raises(Diagnostic) as e:
        Device().run(code, "clean", b"\0" * 8, (1, 1, 1), (128, 1, 1), dynamic_lds=65536)
    assert "LDS" in str(e.value)

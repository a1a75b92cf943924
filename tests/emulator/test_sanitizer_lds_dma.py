"""The sanitizer's LDS DMA completion model (``emulator/sanitizer_lds_dma.py``, issue 28).

Oracle: clang 22 compiles a two-wave kernel in which each wave copies 64 dwords into its own
LDS half with ``__builtin_amdgcn_global_load_lds`` and, after a workgroup release fence and
``s_barrier``, reads the other wave's half; clang waits ``vmcnt(0)`` before the barrier (the
DMA is a vector-memory load whose LDS write is done only when vmcnt retires it: LLVM D124626,
"LDS DMA operations need a wait on vmcnt before LDS written can be accessed"). That object runs
clean and right against NumPy; the same code with the barrier's wait reduced to ``lgkmcnt(0)``
is reported as an LDS race naming the DMA. Reading one's own DMA destination before any vmcnt
wait is ``unwaited`` (the same rule, one wave).
"""

from __future__ import annotations

import re
import struct
import subprocess

import numpy as np
import pytest

from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

CL = """kernel void k(global int *in, global int *out) {
  local int buf[128];
  int lid = __builtin_amdgcn_workitem_id_x();
  int base = __builtin_amdgcn_readfirstlane(lid & ~63);
  __builtin_amdgcn_global_load_lds(in + lid, buf + base, 4, 0, 0);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[lid] = buf[127 - lid];
}
"""


@pytest.fixture(scope="module")
def clang_asm(tmp_path_factory):
    t = require_llvm("clang", "llvm-mc", "ld.lld")
    d = tmp_path_factory.mktemp("lds_dma")
    (d / "k.cl").write_text(CL)
    subprocess.run([t["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2",
                    "-S", str(d / "k.cl"), "-o", str(d / "k.s")], check=True, capture_output=True)
    return t, d, (d / "k.s").read_text()


def _build(t, d, text: str) -> bytes:
    (d / "m.s").write_text(text)
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(d / "m.s"),
                    "-o", str(d / "m.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(d / "m.o"), "-o", str(d / "m.so")], check=True)
    return (d / "m.so").read_bytes()


def _run(code: bytes):
    dev = Device()
    src, dst = dev.memory.alloc(512), dev.memory.alloc(512)
    dev.memory.write(src, np.arange(128, dtype=np.int32).tobytes())
    st = dev.run(code, "k", struct.pack("<QQ", src, dst), (1, 1, 1), (128, 1, 1), sanitize=True,
                 sanitize_mode="continue")
    return st, np.frombuffer(dev.memory.read(dst, 512), np.int32)


def _barrier_wait(text: str) -> str:
    """The s_waitcnt right before clang's s_barrier."""
    m = re.search(r"\n(\s*s_waitcnt [^\n]*)\n\s*s_barrier\n", text)
    assert m is not None, text
    return m.group(1)


def test_clang_waits_vmcnt_before_the_barrier_and_runs_clean(clang_asm):
    t, d, text = clang_asm
    assert "global_load_lds_dword" in text and "vmcnt(0)" in _barrier_wait(text)
    st, out = _run(_build(t, d, text))
    assert st.reports == [], [str(r) for r in st.reports]
    np.testing.assert_array_equal(out, np.arange(128)[::-1])


def test_barrier_before_the_dma_completes_is_a_race(clang_asm):
    t, d, text = clang_asm
    w = _barrier_wait(text)
    st, _ = _run(_build(t, d, text.replace(w, w.split("s_waitcnt")[0] + "s_waitcnt lgkmcnt(0)", 1)))
    races = [str(r) for r in st.reports if r.kind == "lds-race"]
    assert len(races) == 1 and "ds_read_b32" in races[0] and "LDS DMA" in races[0] and "vmcnt" in races[0], \
        [str(r) for r in st.reports]


def test_reading_ones_own_dma_destination_before_vmcnt_is_unwaited(clang_asm):
    t, d, text = clang_asm
    w = _barrier_wait(text)
    # one wave, no barrier: read the lane's own DMA'd dword at once, then after s_waitcnt vmcnt(0)
    body = text.replace(w + "\n\ts_barrier\n", "\n", 1)
    body = re.sub(r"ds_read_b32 (v\d+), (v\d+) offset:\d+", r"ds_read_b32 \1, v0", body, count=1)
    assert body != text
    st, _ = _run(_build(t, d, body))
    bad = [str(r) for r in st.reports if r.kind == "unwaited"]
    assert len(bad) == 1 and "LDS DMA" in bad[0] and "ds_read_b32" in bad[0], [str(r) for r in st.reports]
    fixed = body.replace("\tds_read_b32", "\ts_waitcnt vmcnt(0)\n\tds_read_b32", 1)
    st, out = _run(_build(t, d, fixed))
    assert [r for r in st.reports if r.kind in ("unwaited", "lds-race")] == []

"""A process that launches many kernels keeps a fixed footprint (issue 23): the emulator's
memory reuses the buffers of finished launches, and its decode cache is bounded."""

from __future__ import annotations

import os

import pytest

import numpy as np

import gcnforge.runtime as rt
from gcnforge.binary import assemble
from gcnforge.emulator import decode
from gcnforge.runtime.kernargs import ArgLayout

LITERAL = 0x5EED0000  # not an inline constant: the instruction carries it as a literal dword

_SRC = f""".amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  v_mov_b32_e32 v2, 0x{LITERAL:x}
  v_add_u32_e32 v2, v0, v2
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[4:5]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_kernarg_size 16
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
"""


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.slow  # 1,000 launches, ~30 s: CI's full pass
def test_thousand_launches_of_different_code_objects_stay_within_a_fixed_footprint(monkeypatch):
    """1,000 launches, each of a different code object (the kernel's literal differs, so the
    code bytes, the decode cache key and the result differ), each with a 1 MiB output buffer the
    runtime allocates and frees: without reuse the arena would grow by ~1 GiB. The decode cache
    is capped at 2,000 records here, below the ~7,000 the 1,000 programs decode to."""
    monkeypatch.setattr(decode, "CACHE_INSTRUCTIONS", 2000)
    base = assemble(_SRC)
    at = base.index(LITERAL.to_bytes(4, "little"))
    assert base.count(LITERAL.to_bytes(4, "little")) == 1
    out = np.zeros(1 << 18, np.uint32)  # 1 MiB

    def launch(i: int) -> None:
        co = base[:at] + (LITERAL + i).to_bytes(4, "little") + base[at + 4 :]
        k = rt.load(co).kernel("k", layout=ArgLayout.slots16(["out:u32*"]))
        k(out, grid=(1,), block=(64,), device="emulator")
        assert out[5] == LITERAL + i + 5  # this object's code ran

    for i in range(20):  # warm up: tables, caches, the arena's first size
        launch(i)
    before = _rss()
    for i in range(20, 1020):
        launch(i)
    grown = _rss() - before
    assert decode.cached_instructions() <= 2000
    assert grown < 48 << 20, f"RSS grew by {grown >> 20} MiB over 1,000 launches"

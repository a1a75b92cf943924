"""Minimized code objects from issue 16's run of mutated objects through `gcnforge run`
and `gcnforge raise`: each must end in a located diagnostic and exit 1, never a
traceback, a huge allocation or a hang. Built with llvm-mc + ld.lld."""

from __future__ import annotations

import struct
import subprocess

import pytest

from gcnforge.cli.main import main
from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

HEAD = """.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
"""


def _kd(extra: str = "", vgprs: int = 8) -> str:
    return f""".rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr {vgprs}
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
{extra}
.end_amdhsa_kernel
"""


SOURCES = {
    # a VGPR beyond .amdhsa_next_free_vgpr (the sanitizer indexed its tables with it)
    "vgpr200": HEAD + "  v_add_f32 v1, v1, v200\n  s_endpgm\n" + _kd(vgprs=3),
    # a private segment of 4 GiB per work-item (NumPy was asked for 256 GiB)
    "private": HEAD + "  s_endpgm\n" + _kd("  .amdhsa_private_segment_fixed_size 4294967295"),
    "lds": HEAD + "  s_endpgm\n" + _kd("  .amdhsa_group_segment_fixed_size 4294967295"),
    # loops forever without changing any state: spins on a global flag nobody sets ...
    "spin": HEAD + """  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_mov_b32_e32 v1, 0
  s_waitcnt lgkmcnt(0)
.Lspin:
  global_load_dword v2, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_cmp_eq_u32_e32 vcc, 0, v2
  s_cbranch_vccnz .Lspin
  s_endpgm
""" + _kd(),
    # ... or on an LDS word nobody writes (wave 1 of 2 waits at a different pc)
    "spin_lds": HEAD + """  v_mov_b32_e32 v1, 0
  v_cmp_gt_u32_e32 vcc, 64, v0
  s_cbranch_vccnz .Lother
.Lspin:
  ds_read_b32 v2, v1
  s_waitcnt lgkmcnt(0)
  v_cmp_eq_u32_e32 vcc, 0, v2
  s_cbranch_vccnz .Lspin
  s_endpgm
.Lother:
  ds_read_b32 v2, v1 offset:4
  s_waitcnt lgkmcnt(0)
  v_cmp_eq_u32_e32 vcc, 0, v2
  s_cbranch_vccnz .Lother
  s_endpgm
""" + _kd("  .amdhsa_group_segment_fixed_size 64"),
    # a loop whose state changes every iteration: only the instruction budget ends it
    "count": HEAD + "  s_mov_b32 s4, 0\n.Lloop:\n  s_add_u32 s4, s4, 1\n  s_branch .Lloop\n  s_endpgm\n" + _kd(),
    # metadata whose argument .size is patched into a list below
    "meta": HEAD + "  s_endpgm\n" + _kd("  .amdhsa_kernarg_size 8") + """
.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 8
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 8
    .max_flat_workgroup_size: 1024
    .args:
      - {.name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global}
...
.end_amdgpu_metadata
""",
}


@pytest.fixture(scope="module")
def objs(tmp_path_factory):
    t = require_llvm("llvm-mc", "ld.lld")
    d = tmp_path_factory.mktemp("mutated")
    out = {}
    for name, src in SOURCES.items():
        (d / f"{name}.s").write_text(src)
        subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj",
                        str(d / f"{name}.s"), "-o", str(d / f"{name}.o")], check=True)
        subprocess.run([t["ld.lld"], "-shared", str(d / f"{name}.o"), "-o", str(d / f"{name}.hsaco")], check=True)
        out[name] = d / f"{name}.hsaco"
    data = out["meta"].read_bytes()
    key = b"\xa5.size\x08"  # msgpack: ".size": 8  ->  ".size": [] (same length)
    assert data.count(key) == 1
    out["meta_list"] = d / "meta_list.hsaco"
    out["meta_list"].write_bytes(data.replace(key, b"\xa5.size\x90"))
    return out


def _cli(capsys, *argv):
    rc = main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out + cap.err


@pytest.mark.parametrize("sanitize", [[], ["--sanitize"], ["--sanitize-continue"]])
def test_vgpr_outside_allocation_same_diagnostic_with_sanitizer(objs, capsys, sanitize):
    rc, text = _cli(capsys, "run", objs["vgpr200"], "k", "--grid", "1", "--block", "64", *sanitize)
    assert rc == 1 and "Traceback" not in text
    assert "pc=0x" in text and "error: register v200 is outside the 8 VGPRs allocated" in text


def test_huge_private_segment_is_a_diagnostic(objs, capsys):
    rc, text = _cli(capsys, "run", objs["private"], "k", "--grid", "1", "--block", "64")
    assert rc == 1 and "Traceback" not in text
    assert "k.kd+0x4 (private_segment_fixed_size): error: private_segment_fixed_size 4294967295" in text


def test_huge_lds_is_a_diagnostic(objs, capsys):
    rc, text = _cli(capsys, "run", objs["lds"], "k", "--grid", "1", "--block", "64")
    assert rc == 1 and "Traceback" not in text
    assert "k.kd+0x0 (group_segment_fixed_size): error:" in text and "65536" in text


def test_metadata_size_list_is_a_diagnostic_in_raise(objs, capsys, tmp_path):
    rc, text = _cli(capsys, "raise", objs["meta_list"], "-o", tmp_path / "k.mlir")
    assert rc == 1 and "Traceback" not in text
    assert "kernel k metadata .args[0]: error: metadata field .size is list" in text


def test_max_instructions_option(objs, capsys):
    rc, text = _cli(capsys, "run", objs["count"], "k", "--grid", "1", "--block", "64", "--max-instructions", "1000")
    assert rc == 1 and "Traceback" not in text
    assert "pc=0x" in text and "instruction budget of 1000 wave-instructions exhausted" in text
    rc, text = _cli(capsys, "run", objs["count"], "k", "--grid", "1", "--block", "64", "--max-instructions", "0")
    assert rc == 1 and "--max-instructions 0 must be a positive count" in text


@pytest.mark.parametrize("sanitize", [False, True])
@pytest.mark.parametrize("name,grid,block", [("spin", 1, 64), ("spin", 8, 256), ("spin_lds", 1, 128)])
def test_spinning_kernel_stops_long_before_the_budget(objs, name, grid, block, sanitize):
    # the budget given here is far above where the repeat is seen; reaching it would mean the
    # repeat went unnoticed (the default budget is larger still)
    dev = Device()
    flag = dev.memory.alloc(64)
    dev.memory.write(flag, b"\0" * 64)
    with pytest.raises(Diagnostic) as e:
        dev.run(objs[name].read_bytes(), "k", struct.pack("<Q", flag), (grid, 1, 1), (block, 1, 1),
                sanitize=sanitize, max_instructions=2_000_000)
    msg = str(e.value)
    assert "the kernel never finishes: the machine state at issue" in msg and "pc=0x" in msg

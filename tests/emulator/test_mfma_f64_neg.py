"""v_mfma_f64_16x16x4_f64 with LLVM's neg:[a,b,c] modifier (the NEG bits of the DGEMM
encoding, assembled by llvm-mc). With A = 1.0 and B = 2.0 in every lane, every element of
A x B is 4 * 1.0 * 2.0 = 8 whatever the lane layout, and C and D share one layout, so each
result register is exactly +-8 +- C of the same register and lane."""

import struct
import subprocess

import numpy as np
import pytest

from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

NEGS = ("[0,0,0]", "[1,0,0]", "[0,1,0]", "[1,1,0]", "[0,0,1]")


def _source() -> str:
    lines = [
        '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
        ".text", ".globl dneg", ".p2align 8", ".type dneg,@function", "dneg:",
        "  s_load_dwordx2 s[4:5], s[0:1], 0x0",
        "  v_lshlrev_b32_e32 v30, 2, v0",
        "  v_mov_b32_e32 v31, v0",  # the lane id (v0 becomes part of C)
        "  v_cvt_f64_u32_e32 v[8:9], 1",  # A = 1.0
        "  v_cvt_f64_u32_e32 v[10:11], 2",  # B = 2.0
    ]
    for p in range(4):  # C register pair p, lane l: l + 64 p
        lines += [f"  v_add_u32_e32 v12, {64 * p}, v31", f"  v_cvt_f64_u32_e32 v[{2 * p}:{2 * p + 1}], v12"]
    lines.append("  s_waitcnt lgkmcnt(0)")
    for neg in NEGS:
        lines += [f"  v_mfma_f64_16x16x4_f64 v[16:23], v[8:9], v[10:11], v[0:7] neg:{neg}"] + ["  s_nop 7"] * 3
        lines += [f"  global_store_dword v30, v{16 + r}, s[4:5] offset:{256 * r}" for r in range(8)]
        lines += ["  s_add_u32 s4, s4, 0x800", "  s_addc_u32 s5, s5, 0"]
    lines += ["  s_endpgm", ".rodata", ".p2align 6", ".amdhsa_kernel dneg",
              "  .amdhsa_user_sgpr_kernarg_segment_ptr 1", "  .amdhsa_next_free_vgpr 32",
              "  .amdhsa_next_free_sgpr 16", "  .amdhsa_accum_offset 32", ".end_amdhsa_kernel"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    t = require_llvm("llvm-mc", "ld.lld")
    d = tmp_path_factory.mktemp("dneg")
    (d / "k.s").write_text(_source())
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(d / "k.s"),
                    "-o", str(d / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(d / "k.o"), "-o", str(d / "k.so")], check=True)
    dev = Device()
    n = len(NEGS) * 8 * 64
    out = dev.memory.alloc(4 * n)
    dev.run((d / "k.so").read_bytes(), "dneg", struct.pack("<Q", out), (1, 1, 1), (64, 1, 1))
    words = np.frombuffer(dev.memory.read(out, 4 * n), np.uint32).reshape(len(NEGS), 4, 2, 64)
    # register pair p of variant k: low dword in register 2p, high in 2p+1
    return (words[:, :, 0].astype(np.uint64) | (words[:, :, 1].astype(np.uint64) << np.uint64(32))).view(np.float64)


@pytest.mark.parametrize("k", range(len(NEGS)), ids=NEGS)
def test_neg_modifier(results, k):
    na, nb, nc = (int(c) for c in NEGS[k].strip("[]").split(","))
    c = np.arange(64)[None, :] + 64.0 * np.arange(4)[:, None]
    prod = 8.0 * (-1) ** (na + nb)
    np.testing.assert_array_equal(results[k], prod + (-c if nc else c))

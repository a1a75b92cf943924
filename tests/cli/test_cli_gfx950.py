"""``--target gfx950`` / ``--mcpu gfx950`` through the CLI: ``as`` lists encodings as
``llvm-mc -mcpu=gfx950 -show-encoding`` does, ``as -o`` writes a gfx950 code object whose
``e_flags`` equal llvm-mc + ld.lld's, and ``dis`` / ``info`` take the target from the ELF."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gcnforge.testing import require_llvm

SRC = (Path(__file__).parent / "kernel_ok.s").read_text().replace("gfx942", "gfx950").replace(
    "\tv_add_u32_e32 v2, 1, v2\n", "\tv_add_u32_e32 v2, 1, v2\n\tv_prng_b32_e32 v2, v2\n\tv_permlane16_swap_b32_e32 v2, v1\n"
    "\tv_mfma_scale_f32_16x16x128_f8f6f4 v[4:7], v[8:15], v[16:23], v[4:7], v24, v25 op_sel:[1,0,0] cbsz:1\n"
    "\tv_mfma_ld_scale_b32 v1, v2\n\tv_mfma_f32_16x16x128_f8f6f4 v[4:7], v[8:15], v[16:23], v[4:7]\n").replace(
    ".amdhsa_next_free_vgpr 3", ".amdhsa_next_free_vgpr 32")


def _cli(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", "gcnforge.cli.main", *argv], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_as_listing_matches_llvm_mc(tmp_path):
    tools = require_llvm("llvm-mc")
    s = tmp_path / "k.s"
    s.write_text("v_prng_b32 v1, v2\nds_read_b64_tr_b16 v[0:1], v2 offset:8\n"
                 "v_mfma_i32_16x16x64_i8 a[0:3], v[4:7], v[8:11], a[0:3] blgp:1\n")
    want = subprocess.run([tools["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-show-encoding", str(s)],
                          capture_output=True, text=True, check=True).stdout
    enc = [ln.split("; encoding:")[1].strip() for ln in want.splitlines() if "; encoding:" in ln]
    for flag in ("--mcpu", "--target"):
        r = _cli("as", str(s), flag, "gfx950")
        assert r.returncode == 0, r.stderr
        assert [ln.split("; encoding:")[1].strip() for ln in r.stdout.splitlines() if "; encoding:" in ln] == enc
    r = _cli("as", str(s))  # gfx942 by default: refused with a located error
    assert r.returncode != 0 and "unknown instruction 'v_prng_b32' for gfx942" in r.stderr and "Traceback" not in r.stderr


def test_code_object_round_trip(tmp_path):
    tools = require_llvm("llvm-mc", "ld.lld", "llvm-objdump")
    s = tmp_path / "k.s"
    s.write_text(SRC)
    r = _cli("as", str(s), "--target", "gfx950", "-o", str(tmp_path / "ours.hsaco"))
    assert r.returncode == 0, r.stderr
    r = _cli("as", str(s), "--target", "gfx950", "--toolchain", "llvm", "-o", str(tmp_path / "ref.hsaco"))
    assert r.returncode == 0, r.stderr
    ours, ref = (tmp_path / "ours.hsaco").read_bytes(), (tmp_path / "ref.hsaco").read_bytes()
    assert ours[48:52] == ref[48:52]  # e_flags (EF_AMDGPU_MACH_AMDGCN_GFX950 | features)
    want = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx950", str(tmp_path / "ref.hsaco")],
                          capture_output=True, text=True, check=True).stdout
    got = _cli("dis", str(tmp_path / "ours.hsaco"))
    assert got.returncode == 0, got.stderr
    w = [ln.split() for ln in want.splitlines() if ln.startswith("\t")]
    assert any("v_prng_b32_e32" in ln for ln in w) and any("v_mfma_scale_f32_16x16x128_f8f6f4" in ln for ln in w)
    assert w == [ln.split() for ln in got.stdout.splitlines() if ln.startswith("\t")]
    info = _cli("info", str(tmp_path / "ours.hsaco"))
    assert info.returncode == 0 and "gfx950" in info.stdout, info.stderr


def test_raise_of_a_bad_amdgcn_target_is_located(tmp_path):
    """fuzz --mcpu gfx950 (CLI slice): ``gcnforge raise FILE.s`` read the ``.amdgcn_target``
    directive without a location, so a damaged target id was reported at no line."""
    s = tmp_path / "k.s"
    s.write_text(SRC.replace("amdgcn-amd-amdhsa--gfx950", "amdgcn-amd-amdhsa--gfx950:xnack?"))
    line = next(i for i, ln in enumerate(SRC.splitlines(), 1) if ".amdgcn_target" in ln)
    r = _cli("raise", str(s), "--target", "gfx950", "-o", str(tmp_path / "k.mlir"))
    assert r.returncode == 1 and f"k.s:{line}:" in r.stderr and "invalid target feature 'xnack?'" in r.stderr, r.stderr

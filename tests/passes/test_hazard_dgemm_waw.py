"""A DGEMM result overwritten by a VALU op (row ``mfma_overwrite``) against LLVM 22's hazard
recognizer: clang never overwrites a live MFMA result, so the oracle is ``llc`` run from
``post-RA-hazard-rec`` on clang's MIR with a ``V_MOV_B32`` to the result's first register put
right after the DGEMM. LLVM pads 6 (4x4) and 11 (16x16) on gfx942 and on gfx950, where a read
of gfx950's 16-pass DGEMM 16x16 result needs 19; the hazard pass accepts LLVM's code and
reports it one wait state short."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.isa import hazards as hz
from gcnforge.raising import raise_code_object
from gcnforge.raising.verify import verify_module
from gcnforge.testing import require_llvm

sys.path.insert(0, str(Path(__file__).parent))
from test_hazard_rules_gfx950 import _shortened  # noqa: E402

SRC = """typedef double v4d __attribute__((ext_vector_type(4)));
kernel void dg16(global v4d *restrict out, global const v4d *restrict cin, global const double *restrict a) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_mfma_f64_16x16x4f64(a[i], a[i+64], cin[i], 0, 0, 0);
}
kernel void dg4(global double *restrict out, global const double *restrict cin, global const double *restrict a) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_mfma_f64_4x4x4f64(a[i], a[i+64], cin[i], 0, 0, 0);
}
"""
DGEMM = {"dg16": "v_mfma_f64_16x16x4_f64", "dg4": "v_mfma_f64_4x4x4_4b_f64"}


@pytest.fixture(scope="module", params=["gfx942", "gfx950"])
def llvm_asm(request, tmp_path_factory):
    t, cpu = require_llvm("clang", "llc"), request.param
    d = tmp_path_factory.mktemp(f"dgemm_waw_{cpu}")
    (d / "k.cl").write_text(SRC)
    subprocess.run([t["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-nogpulib", "-O2",
                    "-S", "-emit-llvm", "k.cl", "-o", "k.ll"], cwd=d, check=True, capture_output=True)
    subprocess.run([t["llc"], "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-stop-before=post-RA-hazard-rec",
                    "k.ll", "-o", "k.mir"], cwd=d, check=True, capture_output=True)
    out = []
    for ln in (d / "k.mir").read_text().splitlines(keepends=True):
        out.append(ln)
        m = re.match(r"\s*renamable (\$vgpr\d+)\S* = V_MFMA_F64_", ln)
        if m:  # overwrite the result's first register at once
            out.append(f"    {m.group(1)} = V_MOV_B32_e32 0, implicit $exec\n")
    (d / "w.mir").write_text("".join(out))
    subprocess.run([t["llc"], "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-start-before=post-RA-hazard-rec",
                    "w.mir", "-o", "w.s"], cwd=d, check=True, capture_output=True)
    return cpu, (d / "w.s").read_text()


def _pad(text: str, kernel: str) -> tuple[int, int]:
    """(wait states LLVM put between the DGEMM and the v_mov overwriting its result, the
    line of that s_nop)."""
    lines = [ln.split(";")[0].strip() for ln in text.splitlines()]
    i = next(k for k in range(lines.index(f"{kernel}:"), len(lines)) if lines[k].startswith("v_mfma_f64"))
    assert lines[i + 1].startswith("s_nop") and re.match(r"v_mov_b32_e32 v\d+, 0$", lines[i + 2]), lines[i:i + 3]
    return int(lines[i + 1].split()[1]) + 1, i + 1


@pytest.mark.parametrize("kernel", sorted(DGEMM))
def test_dgemm_overwrite_matches_llvm(llvm_asm, kernel):
    cpu, text = llvm_asm
    ws, nop = _pad(text, kernel)
    assert hz.need("mfma_overwrite", DGEMM[kernel], target=cpu) == ws == (11 if kernel == "dg16" else 6)
    code = read_code_object(assemble(text, target=cpu))
    assert [f for f in verify_module(raise_code_object(code), ["hazards"]) if f.startswith(f"@{kernel} ")] == []
    short = read_code_object(assemble(_shortened(text, nop), target=cpu))
    found = [f for f in verify_module(raise_code_object(short), ["hazards"]) if f.startswith(f"@{kernel} ")]
    assert found and "needs 1 more wait state" in found[0] and "(mfma_overwrite)" in found[0], found
    if cpu == "gfx950" and kernel == "dg16":
        assert hz.need("mfma_valu_read", DGEMM[kernel], target=cpu) == 19

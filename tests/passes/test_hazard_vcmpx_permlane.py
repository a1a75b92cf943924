"""gfx950's v_cmpx -> v_permlane16/32_swap row (``vcmpx_exec_permlane``, LLVM 22
GCNHazardRecognizer::checkPermlaneHazards: a compare writing EXEC needs 4 wait states before a
permlane swap). clang emits no v_cmpx on gfx9 (it masks with s_and_saveexec), so the oracle is
LLVM 22's own hazard recognizer: clang's permlane kernel stopped before ``post-RA-hazard-rec``
(MIR), a V_CMPX and m one-wait-state ``S_NOP 0`` put before the swap, and ``llc`` run from that
pass on. The table's number equals LLVM's padding; the hazard pass (verify mode) and the
sanitizer accept LLVM's code and report it one wait state short."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gcnforge.binary import assemble
from gcnforge.emulator import Device
from gcnforge.isa import hazards as hz
from gcnforge.testing import require_llvm

sys.path.insert(0, str(Path(__file__).parent))
from test_hazard_rules_gfx950 import _findings, _shortened  # noqa: E402

T = "gfx950"
SRC = """typedef unsigned int v2u __attribute__((ext_vector_type(2)));
kernel void permlane16(global v2u *restrict out, global const unsigned *restrict in) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_permlane16_swap(in[i] + in[i+64], in[i+128] * in[i+192], false, false);
}
kernel void permlane32(global v2u *restrict out, global const unsigned *restrict in) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_permlane32_swap(in[i] + in[i+64], in[i+128] * in[i+192], false, false);
}
"""
# v0 == v0: EXEC keeps every active lane, so the kernel still computes what it did
CMPX = "    V_CMPX_EQ_U32_e32 $vgpr0, $vgpr0, implicit-def $exec, implicit-def $vcc, implicit $exec\n"


@pytest.fixture(scope="module")
def mir(tmp_path_factory):
    t = require_llvm("clang", "llc")
    d = tmp_path_factory.mktemp("vcmpx_permlane")
    (d / "k.cl").write_text(SRC)
    subprocess.run([t["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={T}", "-nogpulib", "-O2",
                    "-S", "-emit-llvm", "k.cl", "-o", "k.ll"], cwd=d, check=True, capture_output=True)
    subprocess.run([t["llc"], "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={T}", "-stop-before=post-RA-hazard-rec",
                    "k.ll", "-o", "k.mir"], cwd=d, check=True, capture_output=True)
    return d, t["llc"], (d / "k.mir").read_text()


def _llvm_asm(mir, swap: str, m: int) -> str:
    """LLVM's assembly with a v_cmpx and ``m`` ``s_nop 0`` before every ``swap``."""
    d, llc, text = mir
    lines = text.splitlines(keepends=True)
    out = []
    for ln in lines:
        if f"= {swap} " in ln:
            out.append(CMPX + "    S_NOP 0\n" * m)
        out.append(ln)
    assert len(out) > len(lines), swap
    src, dst = d / f"{swap}_{m}.mir", d / f"{swap}_{m}.s"
    src.write_text("".join(out))
    subprocess.run([llc, "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={T}", "-start-before=post-RA-hazard-rec",
                    str(src), "-o", str(dst)], check=True, capture_output=True)
    return dst.read_text()


def _pad(text: str, kernel: str) -> tuple[int, int]:
    """(wait states between the v_cmpx and the swap in ``kernel``, the line of the last s_nop)."""
    lines = [ln.split(";")[0].strip() for ln in text.splitlines()]
    i = next(k for k in range(lines.index(f"{kernel}:"), len(lines)) if lines[k].startswith("v_cmpx"))
    j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("v_permlane"))
    body = [ln for ln in lines[i + 1:j] if ln and not ln.startswith(".")]
    assert all(b.startswith("s_nop") for b in body), body
    return sum(int(b.split()[1]) + 1 for b in body), max(k for k in range(i + 1, j) if lines[k].startswith("s_nop"))


KERNELS = {"permlane16": "V_PERMLANE16_SWAP_B32_e32", "permlane32": "V_PERMLANE32_SWAP_B32_e32"}


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_row_equals_llvm_padding(mir, kernel):
    need = hz.need("vcmpx_exec_permlane", target=T)
    assert need == 4 and hz.need("vcmpx_exec_permlane", target="gfx942") == 0
    for m in range(need + 2):
        ws, _ = _pad(_llvm_asm(mir, KERNELS[kernel], m), kernel)
        assert ws == max(m, need), (m, ws)


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_hazard_pass_accepts_llvm_and_reports_one_short(mir, kernel):
    text = _llvm_asm(mir, KERNELS[kernel], 0)
    found = _findings(text, kernel)
    if found is None:
        pytest.skip("the raiser keeps this instruction opaque (lift.inst)")
    assert found == []
    found = _findings(_shortened(text, _pad(text, kernel)[1]), kernel)
    assert found and "needs 1 more wait state" in found[0] and "(vcmpx_exec_permlane)" in found[0], found


def _reports(text: str, kernel: str) -> list[tuple[str, str]]:
    code = assemble(text, target=T)
    dev = Device()
    bufs = [dev.memory.alloc(4096) for _ in range(2)]
    for b in bufs:
        dev.memory.write(b, np.arange(1024, dtype=np.uint32).tobytes())
    st = dev.run(code, kernel, struct.pack("<QQ", *bufs) + bytes(256), (1, 1, 1), (64, 1, 1), sanitize=True,
                 sanitize_mode="continue")
    return [(r.kind, str(r)) for r in st.reports]


@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_sanitizer_accepts_llvm_and_reports_one_short(mir, kernel):
    text = _llvm_asm(mir, KERNELS[kernel], 0)
    assert _reports(text, kernel) == []
    got = _reports(_shortened(text, _pad(text, kernel)[1]), kernel)
    assert len(got) == 1 and got[0][0] == "hazard", got
    assert "v_cmpx wrote EXEC" in got[0][1] and "needs 4 wait states, got 3" in got[0][1], got

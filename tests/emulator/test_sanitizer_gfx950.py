"""The sanitizer's gfx950 hazard rows, with clang 22 -mcpu=gfx950 as the oracle: a VALU write
read by ``v_permlane16_swap`` / ``v_permlane32_swap`` (row valu_vgpr_permlane), and VOP3
``op_sel`` destination-high-half writes of one- and two-source instructions
(``v_cvt_pk_fp8_f32 ... op_sel:[0,0,1]``, ``v_cvt_scalef32_f16_fp8 ... op_sel:[0,0,1]``), the
byte-select conversions (``v_cvt_sr_fp8_f32 ... op_sel:[0,0,1,0]``) and the FP4 stochastic-rounding
ones at any op_sel (row valu_partial_vgpr). clang's kernels (its s_nop padding) run clean; with the s_nop before the
consumer removed, the sanitizer reports the hazard at the consumer with the wait states clang
padded as the number needed."""

from __future__ import annotations

import struct
import subprocess

import numpy as np
import pytest

from gcnforge.binary import assemble
from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

SRC = """typedef half v2h __attribute__((ext_vector_type(2)));
typedef unsigned int v2u __attribute__((ext_vector_type(2)));
typedef float v2f __attribute__((ext_vector_type(2)));
kernel void permlane16(global v2u *restrict out, global const unsigned *restrict in, global const int *restrict x) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_permlane16_swap(in[i] + in[i+64], in[i+128] * in[i+192], false, false);
}
kernel void permlane32(global v2u *restrict out, global const unsigned *restrict in, global const int *restrict x) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_permlane32_swap(in[i] + in[i+64], in[i+128] * in[i+192], false, false);
}
kernel void cvt_pk_fp8_hi(global int *restrict out, global const float *restrict in, global const int *restrict old) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_cvt_pk_fp8_f32(in[i], in[i+64], old[i], true) + 5;
}
kernel void sr_fp8_byte1(global unsigned *restrict out, global const unsigned *restrict old,
                         global const float *restrict f, float s) {
  int i = __builtin_amdgcn_workitem_id_x();
  unsigned r = __builtin_amdgcn_cvt_sr_fp8_f32(f[i], old[i+64], old[i], 1);
  out[i] = r + 5;
}
kernel void sr_pk_fp4_sel0(global unsigned *restrict out, global const unsigned *restrict old,
                           global const float *restrict f, float s) {
  int i = __builtin_amdgcn_workitem_id_x();
  unsigned r = __builtin_amdgcn_cvt_scalef32_sr_pk_fp4_f32(old[i], (v2f)(f[i], f[i+64]), old[i+64], s, 0);
  out[i] = r + 5;
}
kernel void cvt_scale_hi(global v2h *restrict out, global const v2h *restrict old, global const int *restrict src,
                         float s) {
  int i = __builtin_amdgcn_workitem_id_x();
  v2h r = __builtin_amdgcn_cvt_scalef32_f16_fp8(old[i], src[i], s, 0, true);
  out[i] = r + r;
}
"""
# kernel -> (producer, consumer) mnemonics as clang prints them
CASES = {"permlane16": ("v_mul_lo_u32", "v_permlane16_swap_b32_e32"),
         "permlane32": ("v_mul_lo_u32", "v_permlane32_swap_b32_e32"),
         "cvt_pk_fp8_hi": ("v_cvt_pk_fp8_f32", "v_add_u32_e32"),
         "cvt_scale_hi": ("v_cvt_scalef32_f16_fp8", "v_pk_add_f16"),
         "sr_fp8_byte1": ("v_cvt_sr_fp8_f32", "v_add_u32_e32"),  # op_sel[2]: byte 1
         "sr_pk_fp4_sel0": ("v_cvt_scalef32_sr_pk_fp4_f32", "v_add_u32_e32")}  # FP4 sr: any op_sel


@pytest.fixture(scope="module")
def asm(tmp_path_factory):
    clang = require_llvm("clang")["clang"]
    d = tmp_path_factory.mktemp("san950")
    (d / "k.cl").write_text(SRC)
    subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950", "-nogpulib", "-O2",
                    "-S", "k.cl", "-o", "k.s"], cwd=d, check=True, capture_output=True)
    return (d / "k.s").read_text()


def _pad(text: str, kernel: str) -> tuple[int, int, str]:
    """(wait states clang put between the producer and the consumer, the line of its last
    s_nop there, the consumer's text)."""
    producer, consumer = CASES[kernel]
    lines = [ln.split(";")[0].rstrip() for ln in text.splitlines()]
    start = lines.index(f"{kernel}:")
    i = next(i for i in range(start, len(lines)) if lines[i].strip().startswith(producer + " "))
    j = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(consumer + " "))
    body = [ln.strip() for ln in lines[i + 1:j] if ln.strip() and not ln.strip().startswith(".")]
    ws = sum(int(b.split()[1], 0) + 1 if b.startswith("s_nop") else 1 for b in body)
    nop = max(k for k in range(i + 1, j) if lines[k].strip().startswith("s_nop"))
    return ws, nop, lines[j].strip()


def _reports(text: str, kernel: str) -> list[tuple[str, str]]:
    code = assemble(text, target="gfx950")
    dev = Device()
    bufs = [dev.memory.alloc(4096) for _ in range(3)]
    for b in bufs:
        dev.memory.write(b, np.arange(1024, dtype=np.uint32).tobytes())
    karg = struct.pack("<QQQf", *bufs, 1.0) + bytes(256)
    st = dev.run(code, kernel, karg, (1, 1, 1), (64, 1, 1), sanitize=True, sanitize_mode="continue")
    return [(r.kind, str(r)) for r in st.reports]


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_sanitizer_matches_clang_padding(asm, kernel):
    ws, nop, consumer = _pad(asm, kernel)
    assert ws >= 1  # clang padded: the pair shows the rule
    assert _reports(asm, kernel) == []
    lines = asm.splitlines()
    k = int(lines[nop].split()[1])
    short = "\n".join(lines[:nop] + lines[nop + 1:]) + "\n"
    got = _reports(short, kernel)
    assert len(got) == 1, got
    kind, msg = got[0]
    assert kind == "hazard" and f"'{' '.join(consumer.split())}'" in msg, got
    assert f"needs {ws} wait states, got {ws - k - 1}" in msg, got

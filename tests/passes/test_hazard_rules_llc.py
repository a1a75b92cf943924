"""Hazard rows checked against LLVM 22's own hazard recognizer, on gfx942 and gfx950 (issue 28
items 3 and 5, issue 30's M0 -> LDS DMA row).

The oracle: a two-instruction MIR function (producer, consumer; physical registers) run through
``llc -run-pass=post-RA-hazard-rec``, and the ``S_NOP``s it puts between them counted (``S_NOP
N`` is N + 1 wait states). Rows clang rarely has to pad (a VALU write before an MFMA's SrcC, DOT
results, a DGEMM before an f64 FMA, VOP3P's op_sel_hi[0] read as a high-half write, an XDL
MFMA's SrcC overwritten by a load, an SALU M0 write before LDS DMA, a store's data overwritten) are
walked here. For each pair and target:

* the hazard table (``gcnforge.isa.hazards``) asks for exactly llc's number (0: no row applies);
* the sanitizer, running the same pair in LLVM syntax on the emulator, is clean with that many
  wait states and reports the pair with one fewer;
* the hazard pass (verify mode, on the raised kernel) likewise, where the raiser models both
  instructions (``buffer_* ... lds`` raises as an ``amdgcn.mubuf`` with vdata 'off').
"""

from __future__ import annotations

import re
import struct
import subprocess

import numpy as np
import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.emulator import Device
from gcnforge.isa import hazards as hz
from gcnforge.isa import table
from gcnforge.raising import raise_code_object
from gcnforge.raising.verify import verify_module
from gcnforge.testing import require_llvm

TARGETS = ("gfx942", "gfx950")


def _v(a: int, b: int) -> str:
    return "$" + "_".join(f"vgpr{i}" for i in range(a, b + 1))


_M = ", implicit $mode, implicit $exec"
MIR = {
    "mul": "$vgpr2 = V_MUL_F32_e32 $vgpr4, $vgpr5" + _M,
    "pk_mul": "$vgpr2_vgpr3 = V_PK_MUL_F32 8, $vgpr4_vgpr5, 8, $vgpr6_vgpr7, 0, 0, 0, 0, 0" + _M,
    "pk_mul_lo": "$vgpr2_vgpr3 = V_PK_MUL_F32 0, $vgpr4_vgpr5, 8, $vgpr6_vgpr7, 0, 0, 0, 0, 0" + _M,
    "pk_add_f16": "$vgpr2 = V_PK_ADD_F16 8, $vgpr4, 8, $vgpr5, 0, 0, 0, 0, 0" + _M,
    "dot2c": "$vgpr2 = V_DOT2C_F32_F16_e32 $vgpr4, $vgpr5, $vgpr2" + _M,
    "dot2": "$vgpr2 = V_DOT2_F32_F16 8, $vgpr4, 8, $vgpr5, 8, $vgpr6, 0, 0, 0, 0, 0" + _M,
    "mfma_srcc": f"{_v(2, 17)} = V_MFMA_F32_32X32X8F16_vgprcd_e64 $vgpr20_vgpr21, $vgpr22_vgpr23, {_v(2, 17)}, 0, 0, 0"
                 + _M,
    "mfma_srca": f"{_v(12, 15)} = V_MFMA_F32_16X16X16F16_vgprcd_e64 $vgpr2_vgpr3, $vgpr22_vgpr23, {_v(12, 15)}, 0, 0, 0"
                 + _M,
    "add": "$vgpr8 = V_ADD_F32_e32 $vgpr2, $vgpr9" + _M,
    "mov_over": "$vgpr2 = V_MOV_B32_e32 $vgpr9, implicit $exec",
    "store": "GLOBAL_STORE_DWORD $vgpr0_vgpr1, $vgpr2, 0, 0, implicit $exec",
    "dot2c_srca": "$vgpr10 = V_DOT2C_F32_F16_e32 $vgpr2, $vgpr5, $vgpr10" + _M,
    "dot2c_srcc": "$vgpr2 = V_DOT2C_F32_F16_e32 $vgpr11, $vgpr5, $vgpr2" + _M,
    "dot2_srca": "$vgpr12 = V_DOT2_F32_F16 8, $vgpr2, 8, $vgpr5, 8, $vgpr6, 0, 0, 0, 0, 0" + _M,
    "dot2_srcc": "$vgpr12 = V_DOT2_F32_F16 8, $vgpr11, 8, $vgpr5, 8, $vgpr2, 0, 0, 0, 0, 0" + _M,
    "dgemm16": f"{_v(20, 27)} = V_MFMA_F64_16X16X4F64_vgprcd_e64 $vgpr10_vgpr11, $vgpr12_vgpr13, {_v(20, 27)}, 0, 0, 0"
               + _M,
    "dgemm4": "$vgpr20_vgpr21 = V_MFMA_F64_4X4X4F64_vgprcd_e64 $vgpr10_vgpr11, $vgpr12_vgpr13, $vgpr22_vgpr23, 0, 0, 0"
              + _M,
    "fmac64": "$vgpr4_vgpr5 = V_FMAC_F64_e32 $vgpr6_vgpr7, $vgpr8_vgpr9, $vgpr4_vgpr5" + _M,
    "fma64": "$vgpr4_vgpr5 = V_FMA_F64_e64 0, $vgpr6_vgpr7, 0, $vgpr8_vgpr9, 0, $vgpr14_vgpr15, 0, 0" + _M,
    "add64": "$vgpr4_vgpr5 = V_ADD_F64_e64 0, $vgpr6_vgpr7, 0, $vgpr8_vgpr9, 0, 0" + _M,
    "mfma_war": f"{_v(8, 11)} = V_MFMA_F32_16X16X16F16_vgprcd_e64 $vgpr4_vgpr5, $vgpr6_vgpr7, {_v(24, 27)}, 0, 0, 0"
                + _M,
    "global_over": "$vgpr25 = GLOBAL_LOAD_DWORD_SADDR $sgpr0_sgpr1, $vgpr0, 0, 0, implicit $exec",
    "ds_over": "$vgpr25 = DS_READ_B32_gfx9 $vgpr0, 0, 0, implicit $exec",
    "mov_over25": "$vgpr25 = V_MOV_B32_e32 0, implicit $exec",
    "m0": "$m0 = S_ADD_U32 $sgpr4, 4, implicit-def dead $scc",
    "buffer_lds": "BUFFER_LOAD_DWORD_LDS_OFFEN $vgpr1, $sgpr4_sgpr5_sgpr6_sgpr7, $sgpr8, 0, 0, 0, implicit $exec, "
                  "implicit $m0",
    "buffer_lds_x4": "BUFFER_LOAD_DWORDX4_LDS_OFFEN $vgpr1, $sgpr4_sgpr5_sgpr6_sgpr7, $sgpr8, 0, 0, 0, implicit $exec, "
                     "implicit $m0",
    "global_lds": "GLOBAL_LOAD_LDS_DWORD $vgpr2_vgpr3, 0, 0, implicit $m0, implicit $exec",
    "store_x4": "GLOBAL_STORE_DWORDX4 $vgpr0_vgpr1, $vgpr4_vgpr5_vgpr6_vgpr7, 0, 0, implicit $exec",
    "store_x2": "GLOBAL_STORE_DWORDX2 $vgpr0_vgpr1, $vgpr4_vgpr5, 0, 0, implicit $exec",
    "buf_store_sgpr": "BUFFER_STORE_DWORDX4_IDXEN_exact $vgpr4_vgpr5_vgpr6_vgpr7, $vgpr10, $sgpr4_sgpr5_sgpr6_sgpr7, "
                      "$sgpr8, 0, 0, 0, implicit $exec",
    "buf_store_0": "BUFFER_STORE_DWORDX4_OFFEN_exact $vgpr4_vgpr5_vgpr6_vgpr7, $vgpr10, $sgpr4_sgpr5_sgpr6_sgpr7, 0, 0, "
                   "0, 0, implicit $exec",
    "cas_x2": "GLOBAL_ATOMIC_CMPSWAP_X2 $vgpr0_vgpr1, $vgpr4_vgpr5_vgpr6_vgpr7, 0, 0, implicit $exec",
    "mov_over5": "$vgpr5 = V_MOV_B32_e32 0, implicit $exec",
    "exp": "$vgpr2 = V_EXP_F32_e32 $vgpr4" + _M,
    "mfma_v0": f"{_v(0, 3)} = V_MFMA_F32_16X16X16F16_vgprcd_e64 $vgpr20_vgpr21, $vgpr22_vgpr23, {_v(24, 27)}, 0, 0, 0"
               + _M,
    "scale_v0": f"{_v(0, 3)} = V_MFMA_SCALE_F32_16X16X128_F8F6F4_f8_f8_vgprcd_e64 {_v(4, 11)}, {_v(12, 19)}, "
                f"{_v(24, 27)}, 0, 0, $vgpr28, $vgpr29, 0, 0" + _M,
    "scale_sa": f"{_v(24, 27)} = V_MFMA_SCALE_F32_16X16X128_F8F6F4_f8_f8_vgprcd_e64 {_v(4, 11)}, {_v(12, 19)}, "
                f"{_v(24, 27)}, 0, 0, $vgpr2, $vgpr30, 0, 0" + _M,
    "scale_sb": f"{_v(32, 47)} = V_MFMA_SCALE_F32_32X32X64_F8F6F4_f8_f8_vgprcd_e64 {_v(4, 11)}, {_v(12, 19)}, "
                f"{_v(32, 47)}, 0, 0, $vgpr30, $vgpr2, 0, 0" + _M,
    "mfma_over4": "$vgpr4_vgpr5_vgpr6_vgpr7 = V_MFMA_F32_16X16X16F16_vgprcd_e64 $vgpr20_vgpr21, $vgpr22_vgpr23, "
                  f"{_v(24, 27)}, 0, 0, 0" + _M,
}
# the same instructions in LLVM's assembly syntax
ASM = {
    "mul": "v_mul_f32_e32 v2, v4, v5",
    "pk_mul": "v_pk_mul_f32 v[2:3], v[4:5], v[6:7]",
    "pk_mul_lo": "v_pk_mul_f32 v[2:3], v[4:5], v[6:7] op_sel_hi:[0,1]",
    "pk_add_f16": "v_pk_add_f16 v2, v4, v5",
    "dot2c": "v_dot2c_f32_f16_e32 v2, v4, v5",
    "dot2": "v_dot2_f32_f16 v2, v4, v5, v6",
    "mfma_srcc": "v_mfma_f32_32x32x8_f16 v[2:17], v[20:21], v[22:23], v[2:17]",
    "mfma_srca": "v_mfma_f32_16x16x16_f16 v[12:15], v[2:3], v[22:23], v[12:15]",
    "add": "v_add_f32_e32 v8, v2, v9",
    "mov_over": "v_mov_b32_e32 v2, v9",
    "store": "global_store_dword v[0:1], v2, off",
    "dot2c_srca": "v_dot2c_f32_f16_e32 v10, v2, v5",
    "dot2c_srcc": "v_dot2c_f32_f16_e32 v2, v11, v5",
    "dot2_srca": "v_dot2_f32_f16 v12, v2, v5, v6",
    "dot2_srcc": "v_dot2_f32_f16 v12, v11, v5, v2",
    "dgemm16": "v_mfma_f64_16x16x4_f64 v[20:27], v[10:11], v[12:13], v[20:27]",
    "dgemm4": "v_mfma_f64_4x4x4_4b_f64 v[20:21], v[10:11], v[12:13], v[22:23]",
    "fmac64": "v_fmac_f64_e32 v[4:5], v[6:7], v[8:9]",
    "fma64": "v_fma_f64 v[4:5], v[6:7], v[8:9], v[14:15]",
    "add64": "v_add_f64 v[4:5], v[6:7], v[8:9]",
    "mfma_war": "v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[24:27]",
    "global_over": "global_load_dword v25, v0, s[0:1]",
    "ds_over": "ds_read_b32 v25, v0",
    "mov_over25": "v_mov_b32_e32 v25, 0",
    "m0": "s_add_u32 m0, s4, 4",
    "buffer_lds": "buffer_load_dword v1, s[4:7], s8 offen lds",
    "buffer_lds_x4": "buffer_load_dwordx4 v1, s[4:7], s8 offen lds",
    "global_lds": "global_load_lds_dword v[2:3], off",
    "store_x4": "global_store_dwordx4 v[0:1], v[4:7], off",
    "store_x2": "global_store_dwordx2 v[0:1], v[4:5], off",
    "buf_store_sgpr": "buffer_store_dwordx4 v[4:7], v10, s[4:7], s8 idxen",
    "buf_store_0": "buffer_store_dwordx4 v[4:7], v10, s[4:7], 0 offen",
    "cas_x2": "global_atomic_cmpswap_x2 v[0:1], v[4:7], off",
    "mov_over5": "v_mov_b32_e32 v5, 0",
    "exp": "v_exp_f32_e32 v2, v4",
    "mfma_v0": "v_mfma_f32_16x16x16_f16 v[0:3], v[20:21], v[22:23], v[24:27]",
    "scale_v0": "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[24:27], v28, v29 op_sel_hi:[0,0,0]",
    "scale_sa": "v_mfma_scale_f32_16x16x128_f8f6f4 v[24:27], v[4:11], v[12:19], v[24:27], v2, v30 op_sel_hi:[0,0,0]",
    "scale_sb": "v_mfma_scale_f32_32x32x64_f8f6f4 v[32:47], v[4:11], v[12:19], v[32:47], v30, v2 op_sel_hi:[0,0,0]",
    "mfma_over4": "v_mfma_f32_16x16x16_f16 v[4:7], v[20:21], v[22:23], v[24:27]",
}
# (producer, consumer) -> the row gcnforge's table must apply (None: no row, 0 wait states)
PAIRS = {
    ("mul", "mfma_srcc"): "valu_vgpr_mfma",  # the missed one (issue 28 item 3)
    ("mul", "mfma_srca"): "valu_vgpr_mfma",
    ("pk_mul", "mfma_srcc"): "valu_vgpr_mfma",
    ("dot2c", "mfma_srcc"): None,  # a DOT before an MFMA: no row (IsLegacyVALUNotDotFn)
    ("dot2c", "mfma_srca"): None,
    ("dot2", "mfma_srcc"): "valu_partial_vgpr",  # ... but VOP3P's op_sel_hi[0] (fixed at 1 for DOTs): 1
    ("pk_mul", "add"): "valu_partial_vgpr",
    ("pk_add_f16", "add"): "valu_partial_vgpr",
    ("pk_mul_lo", "add"): None,
    ("dot2c", "add"): "dot_read",
    ("dot2", "add"): "dot_read",
    ("dot2c", "store"): "dot_read",
    ("dot2c", "mov_over"): "dot_overwrite",
    ("dot2c", "dot2c_srca"): "dot_read",
    ("dot2c", "dot2c_srcc"): None,  # the same DOT chaining its accumulator
    ("dot2", "dot2_srca"): "dot_read",
    ("dot2", "dot2_srcc"): "valu_partial_vgpr",  # the same DOT's SrcC: no DOT row, the op_sel_hi one
    ("dot2c", "dot2_srcc"): "dot_read",  # another DOT opcode: any read
    ("dgemm16", "fmac64"): "dgemm_fma64",
    ("dgemm4", "fma64"): "dgemm_fma64",
    ("dgemm16", "add64"): None,
    ("mfma_war", "mov_over25"): "mfma_srcc_war",  # an XDL MFMA's SrcC overwritten (WAR) ...
    ("mfma_war", "global_over"): "mfma_srcc_war",  # ... by a load too
    ("mfma_war", "ds_over"): "mfma_srcc_war",
    ("m0", "buffer_lds"): "salu_m0",  # issue 28 item 5 / issue 30: LDS DMA after an SALU M0 write
    ("m0", "buffer_lds_x4"): "salu_m0",  # (gfx950's 16-byte LDS DMA)
    ("m0", "global_lds"): "salu_m0",
    # a store's data overwritten: more than 8 bytes, and for a buffer store only without an SGPR
    # soffset (aiter's gfx950 epilogue stores with ``s51 idxen``: no wait states owed)
    ("store_x4", "mov_over5"): "vmem_store_data",
    ("store_x4", "mfma_over4"): "vmem_store_data",  # an MFMA is a VALU op here
    ("store_x2", "mov_over5"): None,
    ("buf_store_0", "mov_over5"): "vmem_store_data",
    ("buf_store_sgpr", "mov_over5"): None,
    ("buf_store_sgpr", "mfma_over4"): None,
    ("cas_x2", "mov_over5"): "vmem_store_data",
    # gfx950's block-scaled MFMA: its scale VGPRs are sources like SrcA/SrcB (checkMAIHazards90A
    # walks every explicit VGPR use): a VALU write before either needs 2, an MFMA result the SrcA/B count
    ("mul", "scale_sa"): "valu_vgpr_mfma",
    ("mul", "scale_sb"): "valu_vgpr_mfma",
    ("exp", "scale_sa"): "valu_vgpr_mfma",
    ("pk_mul", "scale_sb"): "valu_vgpr_mfma",
    ("dot2c", "scale_sa"): None,
    ("mfma_v0", "scale_sa"): "mfma_srcab",
    ("scale_v0", "scale_sb"): "mfma_srcab",
    ("scale_v0", "mov_over5"): None,  # its SrcA overwritten: no row
}
ONLY = {"buffer_lds_x4": ("gfx950",), "scale_v0": ("gfx950",), "scale_sa": ("gfx950",), "scale_sb": ("gfx950",)}  # instructions of one target
CASES = [(p, c, t) for (p, c) in PAIRS for t in TARGETS if t in ONLY.get(c, TARGETS) and t in ONLY.get(p, TARGETS)]
_LIVE = "$vgpr0_vgpr1, $sgpr0_sgpr1, $sgpr4_sgpr5_sgpr6_sgpr7, $sgpr8"


@pytest.fixture(scope="module")
def llc(tmp_path_factory):
    tool = require_llvm("llc")["llc"]
    d = tmp_path_factory.mktemp("hazard_llc")
    out = {}
    for p, c, t in CASES:
        f = d / f"{p}-{c}-{t}.mir"
        f.write_text(f"---\nname: k\ntracksRegLiveness: false\nbody: |\n  bb.0:\n    liveins: {_LIVE}\n"
                     f"    {MIR[p]}\n    {MIR[c]}\n    S_ENDPGM 0\n...\n")
        r = subprocess.run([tool, "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={t}", "-run-pass=post-RA-hazard-rec", str(f),
                            "-o", "-"], capture_output=True, text=True, check=True)
        body = [ln.strip() for ln in r.stdout.split("body:", 1)[1].splitlines()]
        op = MIR[p].split(" = ", 1)[-1].split()[0]  # the producer's opcode (the first line naming it)
        i = next(k for k, ln in enumerate(body) if f" {op} " in f" {ln} ")
        n = 0
        for ln in body[i + 1:]:
            m = re.match(r"S_NOP (\d+)", ln)
            if m is None:
                break
            n += int(m.group(1)) + 1
        out[(p, c, t)] = n
    return out


def _kernel(producer: str, consumer: str, wait_states: int, target: str) -> str:
    pad = []
    while wait_states > 0:
        pad.append(f"  s_nop {min(wait_states, 8) - 1}")
        wait_states -= 8
    body = "\n".join(["  s_load_dwordx2 s[0:1], s[0:1], 0x0", "  s_waitcnt lgkmcnt(0)", "  s_nop 7", "  s_nop 7",
                      "  s_nop 7", "  v_mov_b32_e32 v0, 0", "  v_mov_b32_e32 v1, 0", "  s_nop 7", f"  {producer}", *pad,
                      f"  {consumer}", "  s_endpgm"])
    return (f'.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n'
            f"{body}\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
            "  .amdhsa_next_free_vgpr 64\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 64\n"
            "  .amdhsa_group_segment_fixed_size 1024\n.end_amdhsa_kernel\n")


def _sanitizer(text: str, target: str) -> list[str]:
    dev = Device()
    buf = dev.memory.alloc(1 << 12)
    st = dev.run(assemble(text, target=target), "k", struct.pack("<Q", buf), (1, 1, 1), (64, 1, 1), sanitize=True,
                 sanitize_mode="continue")
    return [str(r) for r in st.reports if r.kind == "hazard"]


def _pass(text: str, target: str) -> list[str] | None:
    """The hazard pass's findings; None when the raiser keeps an instruction opaque."""
    m = raise_code_object(read_code_object(assemble(text, target=target)))
    if any(op.name == "lift.inst" for op in m.walk()):
        return None
    return [f for f in verify_module(m, ["hazards"]) if f.startswith("@k ")]


@pytest.mark.parametrize("p,c,t", CASES, ids=[f"{p}-{c}-{t}" for p, c, t in CASES])
def test_table_matches_llc(llc, p, c, t):
    n, rule = llc[(p, c, t)], PAIRS[(p, c)]
    producer, consumer = ASM[p].split()[0], ASM[c].split()[0]
    if rule is None:
        assert n == 0, (p, c, t, n)
    else:
        with table.use_target(t):
            assert hz.need(rule, producer, consumer, target=t) == n > 0, (rule, n)


@pytest.mark.parametrize("p,c,t", CASES, ids=[f"{p}-{c}-{t}" for p, c, t in CASES])
def test_sanitizer_and_pass_at_llc_count(llc, p, c, t):
    n, rule = llc[(p, c, t)], PAIRS[(p, c)]
    ok = _kernel(ASM[p], ASM[c], n, t)
    assert _sanitizer(ok, t) == []
    found = _pass(ok, t)
    assert found in (None, []), found
    if n == 0:
        return
    short = _kernel(ASM[p], ASM[c], n - 1, t)
    reps = _sanitizer(short, t)
    assert len(reps) == 1 and f"needs {n} wait states, got {n - 1}" in reps[0], reps
    found = _pass(short, t)
    if found is not None:
        assert len(found) == 1 and "needs 1 more wait state" in found[0] and f"({rule})" in found[0], found


def test_every_new_row_is_walked():
    """The rows this file is the oracle for all appear above."""
    assert {"valu_vgpr_mfma", "valu_partial_vgpr", "dot_read", "dot_overwrite", "dgemm_fma64", "salu_m0",
            "mfma_srcc_war", "vmem_store_data"} <= \
        set(PAIRS.values())

"""The gfx942 hazard rules, case by case (AMD Instinct MI300 ISA Reference Guide, 4.5
"Manually Inserted Wait States (NOPs)"; MFMA rows by pass count), each checked three ways:
the s_nop the pass inserts right after the first instruction, that an independent
instruction in between reduces it by one, and that verify mode reports it."""

from __future__ import annotations

import pytest

from gcnforge.builder import Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import KernelOp
from gcnforge.passes import pipeline as pl


def build(first, second, filler: int = 0):
    """first/second: callables k -> None emitting one instruction each (pinned registers)."""
    m = Module("h")
    with m.kernel("h") as k:
        first(k)
        for _ in range(filler):
            k.v_mov_b32(k.vgpr(200), 0)  # independent of every register used below
        second(k)
        k.s_endpgm()
    return m


def nops_between(m) -> int:
    k = next(op for op in m.top.walk() if isinstance(op, KernelOp))
    total = 0
    for op in k.walk():
        if isinstance(op, InstOp) and op.mnemonic == "s_nop":
            total += op.imm_values[0] + 1
    return total


def V(k, i, n=1):
    return k.vgpr(i, n)


def S(k, i, n=1):
    return k.sgpr(i, n)


CASES = {
    # VALU writes SGPR -> VMEM reads that SGPR: 5
    "valu_sgpr_vmem": (5, lambda k: k.v_readfirstlane_b32(S(k, 4), V(k, 0)),
                       lambda k: k.global_load_dword(V(k, 1), V(k, 0), S(k, 4, 2))),
    # VALU writes VCC -> v_div_fmas: 4
    "vcc_div_fmas": (4, lambda k: k.v_cmp_eq_u32_e32(V(k, 0), V(k, 1)),
                     lambda k: k.v_div_fmas_f32(V(k, 2), V(k, 0), V(k, 1), V(k, 3))),
    # VALU writes SGPR -> v_readlane lane select: 4
    "readlane_select": (4, lambda k: k.v_readfirstlane_b32(S(k, 6), V(k, 0)),
                        lambda k: k.v_readlane_b32(S(k, 7), V(k, 1), S(k, 6))),
    # VALU writes VGPR -> v_readlane vsrc0: 1
    "readlane_vsrc": (1, lambda k: k.v_mov_b32(V(k, 1), 0),
                      lambda k: k.v_readlane_b32(S(k, 7), V(k, 1), 0)),
    # trans -> non-trans consumer: 1
    "trans": (1, lambda k: k.v_exp_f32(V(k, 1), V(k, 0)),
              lambda k: k.v_add_f32(V(k, 2), V(k, 1), V(k, 1))),
    # VALU writes VGPR -> MFMA reads it: 2
    "valu_mfma": (2, lambda k: k.v_mov_b32(V(k, 2), 0),
                  lambda k: k.v_mfma_f32_32x32x8_f16(V(k, 8, 16), V(k, 0, 2), V(k, 2, 2), V(k, 8, 16))),
    # MFMA 32x32x8 f16 (8 passes) -> VALU reads its result: 8 + 3
    "mfma_valu": (11, lambda k: k.v_mfma_f32_32x32x8_f16(V(k, 8, 16), V(k, 0, 2), V(k, 2, 2), V(k, 8, 16)),
                  lambda k: k.v_add_f32(V(k, 4), V(k, 9), V(k, 9))),
    # MFMA (8 passes) -> MFMA reading the result as SrcA/B: 8 + 3
    "mfma_srcab": (11, lambda k: k.v_mfma_f32_32x32x8_f16(V(k, 8, 16), V(k, 0, 2), V(k, 2, 2), V(k, 8, 16)),
                   lambda k: k.v_mfma_f32_32x32x8_f16(V(k, 32, 16), V(k, 8, 2), V(k, 2, 2), V(k, 32, 16))),
    # MFMA (8 passes) -> MFMA reading an overlapping (not identical) SrcC: 8 + 1
    "mfma_srcc_overlap": (9, lambda k: k.v_mfma_f32_32x32x8_f16(V(k, 8, 16), V(k, 0, 2), V(k, 2, 2), V(k, 8, 16)),
                          lambda k: k.v_mfma_f32_16x16x16_f16(V(k, 40, 4), V(k, 0, 2), V(k, 2, 2), V(k, 8, 4))),
    # MFMA (4 passes: 16x16x16 f16) reads SrcC -> VALU overwrites it (WAR): 4 - 1
    "mfma_war": (3, lambda k: k.v_mfma_f32_16x16x16_f16(V(k, 40, 4), V(k, 0, 2), V(k, 2, 2), V(k, 8, 4)),
                 lambda k: k.v_mov_b32(V(k, 9), 0)),
    # DGEMM 16x16x4 f64 result read by a memory op: 18; by a VALU op: 11
    "dgemm_mem": (18, lambda k: k.v_mfma_f64_16x16x4_f64(V(k, 8, 8), V(k, 0, 2), V(k, 2, 2), V(k, 8, 8)),
                  lambda k: k.global_store_dword(V(k, 30), V(k, 9), S(k, 0, 2))),
    "dgemm_valu": (11, lambda k: k.v_mfma_f64_16x16x4_f64(V(k, 8, 8), V(k, 0, 2), V(k, 2, 2), V(k, 8, 8)),
                   lambda k: k.v_add_f32(V(k, 4), V(k, 9), V(k, 9))),
    # VALU writes EXEC -> MFMA: 4 (v_cmpx writes EXEC)
    "exec_mfma": (4, lambda k: k.v_cmpx_eq_u32_e32(V(k, 0), V(k, 1)),
                  lambda k: k.v_mfma_f32_32x32x8_f16(V(k, 8, 16), V(k, 0, 2), V(k, 2, 2), V(k, 8, 16))),
    # VALU writes VCC -> VALU reads it implicitly (v_cndmask_b32_e32): 2 (gfx940 co-exec)
    "vcc_cndmask": (2, lambda k: k.v_cmp_eq_u32_e32(V(k, 0), V(k, 1)),
                    lambda k: k.v_cndmask_b32_e32(V(k, 2), V(k, 0), V(k, 1))),
    # SDWA write of a VGPR's high word -> VALU reads it: 1
    "dst_sel": (1, lambda k: k.v_mov_b32(V(k, 1), V(k, 0), dst_sel="WORD_1", dst_unused="UNUSED_PRESERVE",
                                          src0_sel="DWORD"),
                lambda k: k.v_add_u32(V(k, 2), V(k, 1), V(k, 1))),
    # s_setreg -> s_getreg: 2
    "setreg_getreg": (2, lambda k: k.s_setreg_b32(S(k, 0), simm16=0x1801),
                      lambda k: k.s_getreg_b32(S(k, 1), simm16=0x1801)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule(name):
    want, first, second = CASES[name]
    m = build(first, second)
    pl.run(m.top, pl.parse("amdgcn-hazards"))
    assert nops_between(m) == want
    if want > 1:
        m = build(first, second, filler=1)
        pl.run(m.top, pl.parse("amdgcn-hazards"))
        assert nops_between(m) == want - 1
    m = build(first, second, filler=want)
    pl.run(m.top, pl.parse("amdgcn-hazards"))
    assert nops_between(m) == 0
    m = build(first, second)
    with pytest.raises(Diagnostic) as e:
        pl.run(m.top, pl.parse("amdgcn-hazards{mode=verify}"))
    assert f"needs {want} more wait state" in e.value.notes[0]
    assert nops_between(m) == 0  # verify changes nothing


def test_same_srcc_back_to_back_needs_nothing():
    mf = lambda k: k.v_mfma_f32_32x32x8_f16(V(k, 8, 16), V(k, 0, 2), V(k, 2, 2), V(k, 8, 16))  # noqa: E731
    m = build(mf, mf)
    pl.run(m.top, pl.parse("amdgcn-hazards"))
    assert nops_between(m) == 0

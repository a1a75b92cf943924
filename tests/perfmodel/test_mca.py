"""The issue model against LLVM 22's llvm-mca, run live: MFMA pipe occupancy of every MFMA
in the ISA table agrees after the unit conversion (perfmodel.mca docstring says why the
other figures differ)."""

from __future__ import annotations

from gcnforge.isa import table
from gcnforge.cli.model_input import analyze_asm
from gcnforge.perfmodel.mca import MCA_CYCLE, run_mca
from gcnforge.testing import require_llvm


def _reg(f: str, i: int, n: int) -> str:
    return f"{f}{i}" if n == 1 else f"{f}[{i}:{i + n - 1}]"


def mfma_block(inst, copies: int = 4) -> list[str]:
    lines = []
    for k in range(copies):
        ops = []
        for o in inst.operands:
            if o.name in ("vdst", "src2") and o.dwords > 1:
                ops.append(_reg("a", 32 * k, o.dwords))
            elif o.name == "src2":  # smfmac's sparsity index
                ops.append(_reg("v", 200 + k, o.dwords))
            else:
                ops.append(_reg("v", 128 + 8 * k + (0 if o.name == "src0" else 4), o.dwords))
        lines.append(f"{inst.mnemonic} " + ", ".join(ops))
    return lines


def test_mfma_occupancy_matches_llvm_mca():
    require_llvm("llvm-mca")
    insts = [i for i in table.instructions() if i.sem == "mfma"]
    assert len(insts) >= 40
    blocks = [(i.mnemonic, mfma_block(i)) for i in insts]
    for (name, lines), m in zip(blocks, run_mca(blocks), strict=True):
        (ours,) = analyze_asm("\n".join(lines))
        # LLVM books DGEMM (f64 MFMA) on its VALU resource, the others on XDL
        theirs = (m.pressure.get("HWXDL", 0) + m.pressure.get("HWVALU", 0)) * MCA_CYCLE
        assert ours.busy["mfma"] == theirs, (name, ours.busy, m.pressure)
        assert ours.cycles == ours.busy["mfma"]  # independent MFMAs: pipe-bound in both
        assert abs(m.total_cycles * MCA_CYCLE - ours.cycles) <= MCA_CYCLE, (name, m.total_cycles, ours.cycles)


def test_memory_and_waits_differ_as_documented():
    require_llvm("llvm-mca")
    lines = ["global_load_dword v1, v[2:3], off", "s_waitcnt vmcnt(0)", "v_add_f32_e32 v4, v1, v1"]
    (m,) = run_mca([("mem", lines)])
    (ours,) = analyze_asm("\n".join(lines))
    # llvm-mca: 80-cycle placeholder latency; ours: the MI300X profile's HBM latency (~350 ns
    # published, at 2.1 GHz) + the wait
    assert m.total_cycles * MCA_CYCLE < ours.cycles
    assert ours.cycles >= round(350e-9 * 2.1e9)

"""The gfx942 issue model: hand-computed cases, waits, IR vs assembly, CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.cli.model_input import analyze_asm, analyze_file
from gcnforge.perfmodel.costs import mfma_cycles
from gcnforge.perfmodel.issue import decode_waitcnt

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))  # the kernel lives in examples/


# the MI300X profile's HBM latency, from the published pointer-chase figure it cites (about
# 350 ns: Chips and Cheese 2024, Tee et al. SC25) at the data sheet's 2.1 GHz
HBM = round(350e-9 * 2.1e9)


def one(text: str):
    (r,) = analyze_asm(text)
    return r


def test_independent_mfmas_fill_the_matrix_pipe():
    # 4 independent 32x32x8 f16 (32 cycles each, AMD's calculator): back to back on one pipe
    r = one("\n".join(f"v_mfma_f32_32x32x8_f16 a[{16*k}:{16*k+15}], v[0:1], v[2:3], a[{16*k}:{16*k+15}]"
                      for k in range(4)))
    assert r.busy["mfma"] == 128 and r.cycles == 128 and r.busiest == "mfma"
    assert r.mfma_utilization == 1.0


def test_valu_work_hides_under_mfma():
    mf = "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]"
    valu = "\n".join(f"v_add_f32_e32 v{10+k}, v{20+k}, v{30+k}" for k in range(6))
    r = one(mf + "\n" + valu)  # 6 VALU ops (24 cycles) issue while the 32-cycle MFMA runs
    assert r.cycles == 32 and r.busy["valu"] == 24
    r2 = one(valu + "\n" + mf)  # MFMA last: it starts after the VALU issue slots
    assert r2.cycles == 24 + 32


def test_dependent_chain_waits_for_latency():
    r = one("v_exp_f32_e32 v1, v2\nv_exp_f32_e32 v3, v1\nv_add_f32_e32 v4, v3, v3")
    assert r.cycles == 16 + 16 + 4  # quarter-rate trans, then the dependent add


def test_waitcnt_counts_in_issue_order():
    assert decode_waitcnt(0x0F70) == (0, None)  # vmcnt(0)
    loads = "global_load_dword v1, v[2:3], off\nglobal_load_dword v4, v[2:3], off\n"
    r1 = one(loads + "s_waitcnt vmcnt(1)\nv_mov_b32_e32 v9, 0")
    r0 = one(loads + "s_waitcnt vmcnt(0)\nv_mov_b32_e32 v9, 0")
    # the wait issues when the first load is done (HBM), v_mov one window later
    assert r1.issue_cycles == HBM + 4
    # vmcnt(0) waits for the second load too (issued at 4, done at HBM + 4)
    assert r0.issue_cycles == HBM + 4 + 4


def test_lds_bandwidth_by_width():
    r = one("ds_read_b128 v[0:3], v8\nds_read_b128 v[4:7], v8\nds_read_b32 v9, v8")
    assert r.busy["lds"] == 8 + 8 + 4


def test_smfmac_and_unknown_shapes():
    assert mfma_cycles("v_smfmac_f32_32x32x16_f16") == mfma_cycles("v_mfma_f32_32x32x8_f16") == 32
    assert mfma_cycles("v_mfma_f64_16x16x4_f64") == 32


def test_ir_and_assembly_agree(tmp_path):
    mlir = tmp_path / "k.mlir"
    mlir.write_text("""builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %a = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
      %b = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
      %c = amdgcn.alloca : !amdgcn.agpr<[? + 16]>
      %d0 = amdgcn.alloca : !amdgcn.agpr<[? + 16]>
      %x = amdgcn.mfma v_mfma_f32_32x32x8_f16 %d0, %a, %b, %c : !amdgcn.agpr<[? + 16]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.agpr<[? + 16]>
      %d1 = amdgcn.alloca : !amdgcn.agpr<[? + 16]>
      %y = amdgcn.mfma v_mfma_f32_32x32x8_f16 %d1, %a, %b, %x : !amdgcn.agpr<[? + 16]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.agpr<[? + 16]>
      amdgcn.end
    }
  }
}""")
    (ir,) = analyze_file(mlir)
    asm = one("v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[16:31]\n"
              "v_mfma_f32_32x32x8_f16 a[32:47], v[0:1], v[2:3], a[0:15]")
    assert ir.cycles == asm.cycles == 64 and ir.busy == asm.busy


def test_cli_stats_and_errors(tmp_path):
    s = tmp_path / "b.s"
    s.write_text("v_add_f32_e32 v1, v2, v3\ns_endpgm\n")
    p = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "stats", str(s)], capture_output=True, text=True)
    assert p.returncode == 0 and "busiest pipe: valu" in p.stdout, p.stderr
    bad = tmp_path / "bad.s"
    bad.write_text("v_add_f32_e32 v1, v2\n")
    p = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "stats", str(bad)], capture_output=True, text=True)
    assert p.returncode == 1 and "bad.s:1:" in p.stderr and "Traceback" not in p.stderr
    with pytest.raises(Diagnostic):
        analyze_file(tmp_path / "missing.s")


def test_loop_body_steady_state_asm():
    (entry, body, tail) = analyze_asm("""  s_mov_b32 s0, 0
.Lloop:
  global_load_dwordx2 v[2:3], v[0:1], off
  s_waitcnt vmcnt(0)
  v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[2:3], a[0:15]
  s_add_u32 s0, s0, 1
  s_cmp_lt_u32 s0, 8
  s_cbranch_scc1 .Lloop
  s_endpgm""")
    assert entry.per_iteration is None and tail.per_iteration is None
    # each iteration waits for its own load: 4 (issue) + HBM (latency) + 4 (wait) + MFMA
    # issue..., the loop-carried MFMA overlaps the next iteration's load
    assert body.per_iteration == HBM + 20
    assert abs(body.mfma_utilization - 32 / (HBM + 20)) < 1e-9


def test_loop_body_steady_state_ir(tmp_path):
    """Iteration n reads what n - 1 yielded: a chain of dependent MFMAs through the
    iteration value runs at one MFMA per 32 cycles; independent VALU work hides under it."""
    mlir = tmp_path / "loop.mlir"
    mlir.write_text("""builtin.module {
  amdgcn.module @m #amdgcn.target<gfx942> {
    amdgcn.kernel @k {
      %a = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
      %c = amdgcn.alloca : !amdgcn.agpr<[? + 16]>
      %x = amdgcn.alloca : !amdgcn.vgpr
      %r = amdgcn.loop 8 iter(%c : !amdgcn.agpr<[? + 16]>) {
      ^bb0(%acc : !amdgcn.agpr<[? + 16]>):
        %d = amdgcn.alloca : !amdgcn.agpr<[? + 16]>
        %n = amdgcn.mfma v_mfma_f32_32x32x8_f16 %d, %a, %a, %acc : !amdgcn.agpr<[? + 16]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.vgpr<[? + 2]>, !amdgcn.agpr<[? + 16]>
        %e = amdgcn.alloca : !amdgcn.vgpr
        %y = amdgcn.vop2 v_add_f32_e32 %e, %x, %x : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
        amdgcn.yield %n : !amdgcn.agpr<[? + 16]>
      }
      amdgcn.end
    }
  }
}""")
    reps = analyze_file(mlir)
    (loop,) = [r for r in reps if "loop0" in r.name]
    assert loop.per_iteration == 32 and loop.mfma_utilization == 1.0


def test_code_object_and_text_agree(tmp_path):
    """The same compiled kernel modeled from its .s text and from its code object."""
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline as pl
    from gemm_scheduled import SCHEDULED, build
    from gcnforge.schedule.passes import schedule_loops
    from gcnforge.translate import to_assembly

    m = build(64, 64, SCHEDULED)
    schedule_loops(m.top)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    (s_path := tmp_path / "g.s").write_text(text)
    (co_path := tmp_path / "g.hsaco").write_bytes(assemble(text))
    from_text = [r for r in analyze_file(s_path) if r.instructions > 1]
    from_co = [r for r in analyze_file(co_path) if r.instructions > 1]
    assert len(from_text) == len(from_co) == 1
    a, b = from_text[0], from_co[0]
    assert (a.instructions, a.cycles, a.busy) == (b.instructions, b.cycles, b.busy)
    assert a.busy["mfma"] == 8 * 32


def test_code_object_loop_detected_like_text(tmp_path):
    """A compiled software-pipelined loop: the back branch found in the code object (SOPP
    offset) and in the text (label) give the same steady-state figures."""
    from gcnforge.binary import assemble
    from gcnforge.passes import pipeline as pl
    from gemm_scheduled import build
    from gcnforge.schedule.lower_loops import lower_loops
    from gcnforge.schedule.passes import schedule_loops
    from gcnforge.translate import to_assembly

    m = build(128, 64, stages=(0, 1, 2))
    schedule_loops(m.top)
    lower_loops(m.top)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    (s_path := tmp_path / "g.s").write_text(text)
    (co_path := tmp_path / "g.hsaco").write_bytes(assemble(text))
    (a,) = [r for r in analyze_file(s_path) if r.per_iteration is not None]
    (b,) = [r for r in analyze_file(co_path) if r.per_iteration is not None]
    assert a.per_iteration == b.per_iteration and a.busy == b.busy
    assert a.busy["mfma"] == 2 * 32

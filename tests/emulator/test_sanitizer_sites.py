"""The sanitizer for production code (issue 26): continue mode lists every site (kind, pc)
once with its count over the whole launch (every batch of work-groups), and a suppression
file silences what its rules match, in both modes, counted apart. The kernel's hazard (a
``v_readlane_b32`` SGPR write read by the next VALU) is the one clang 22 pads with ``s_nop 1``
(issue 26's example; the row lives in ``isa.hazards``)."""

from __future__ import annotations

import numpy as np
import pytest

import gcnforge
from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator.suppressions import Suppressions
from gcnforge.runtime.kernargs import ArgLayout

SRC = """
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  s_lshl_b32 s2, s2, 7
  v_add_u32_e32 v1, s2, v0
  v_lshlrev_b32_e32 v1, 2, v1
  v_mov_b32_e32 v4, v0
  s_nop 4
  v_readlane_b32 s20, v4, 63
  v_mov_b32_e32 v16, s20
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v16, s[0:1]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_next_free_vgpr 17
  .amdhsa_next_free_sgpr 21
  .amdhsa_accum_offset 20
.end_amdhsa_kernel
"""

GRID = 256  # several of the emulator's batches of work-groups


@pytest.fixture(scope="module")
def kernel():
    return gcnforge.load(gcnforge.assemble(SRC)).kernel("k", layout=ArgLayout.slots16(["out:u32*"]))


def _expected():
    # every lane of a wave stores lane 63's v0 of its wave: 63 or 127 (two waves per work-group)
    return np.tile(np.repeat(np.array([63, 127], np.uint32), 64), GRID)


def test_continue_mode_lists_each_site_once_with_its_count(kernel):
    out = np.zeros(GRID * 128, np.uint32)
    r = kernel(out=out, grid=GRID, block=128, device="emulator", sanitize=True, sanitize_mode="continue")
    np.testing.assert_array_equal(out, _expected())  # the run went to the end
    assert [(rep.kind, rep.loc.text) for rep in r.stats.reports] == [("hazard", "v_mov_b32_e32 v16, s20")]
    ((site, n),) = r.stats.report_counts.items()
    assert site == (r.stats.reports[0].loc.pc, "hazard") and n > 1  # counted over every batch, listed once


def test_suppressions_silence_matching_reports_in_both_modes(kernel, tmp_path):
    pc = kernel(out=np.zeros(128, np.uint32), grid=1, block=128, device="emulator", sanitize=True,
                sanitize_mode="continue").stats.reports[0].loc.pc
    f = tmp_path / "supp.txt"
    f.write_text(f"# checked by hand\nkind=uninit\nkind=hazard pc={pc:#x} kernel=k*   # the readlane read\n")
    out = np.zeros(GRID * 128, np.uint32)
    r = kernel(out=out, grid=GRID, block=128, device="emulator", sanitize=True, sanitize_suppress=str(f))
    np.testing.assert_array_equal(out, _expected())  # stop mode did not stop
    assert r.stats.reports == [] and sum(r.stats.suppressed.values()) > 1
    # a rule for another pc silences nothing
    f.write_text(f"kind=hazard pc={pc + 4:#x}-{pc + 64:#x}\n")
    with pytest.raises(Diagnostic, match="needs 2 wait states"):
        kernel(out=np.zeros(128, np.uint32), grid=1, block=128, device="emulator", sanitize=True,
               sanitize_suppress=str(f))


@pytest.mark.parametrize("text,msg,col", [
    ("kind=hazard pc=zz", "pc 'zz' is not an address", 13),
    ("kind=hazard   bogus", "'bogus' is not key=value", 15),
    ("pc=0x20-0x10", "ends before it starts", 1),
    ("colour=red", "unknown key 'colour'", 1),
])
def test_bad_suppression_files_are_located(text, msg, col):
    with pytest.raises(Diagnostic, match=msg) as e:
        Suppressions.parse("# header\n" + text, "s.txt")
    assert str(e.value.loc) == f"s.txt:2:{col}"


def test_cli_summary_and_suppress(kernel, tmp_path, capsys):
    from gcnforge.cli.main import main

    co = tmp_path / "k.co"
    co.write_bytes(gcnforge.assemble(SRC))
    base = ["run", str(co), "k", "--grid", str(GRID), "--block", "128", "--layout", "out:u32*",
            "-a", f"out=zeros:{GRID * 128}:u32", "-q"]
    assert main(base + ["--sanitize-continue"]) == 1
    err = capsys.readouterr().err
    assert err.count("error: sanitizer:") == 1 and "sanitizer summary: 1 site(s)" in err
    assert "hazard" in err and "v_mov_b32_e32 v16, s20" in err
    (tmp_path / "s.txt").write_text("kind=hazard\n")
    assert main(base + ["--sanitize", "--suppress", str(tmp_path / "s.txt")]) == 0
    assert "suppressed:" in capsys.readouterr().err


def test_huge_grid_is_refused_up_front_with_an_estimate():
    """grid=(65535, 65535, 1) is legal but would emulate for hours: after the first batch of
    work-groups the launch is refused with its estimate and the option that lifts the budget."""
    src = SRC.replace("  global_store_dword v1, v16, s[0:1]\n", "")
    k = gcnforge.load(gcnforge.assemble(src)).kernel("k", layout=ArgLayout.slots16(["out:u32*"]))
    with pytest.raises(Diagnostic, match=r"would execute about [\d,]+ wave-instructions \(4,294,836,225 work-groups") as e:
        k(out=np.zeros(4, np.uint32), grid=(65535, 65535, 1), block=128, device="emulator")
    assert "measured on the first" in e.value.message  # refused after one batch, not at the budget
    assert any("--max-instructions" in n for n in e.value.notes)

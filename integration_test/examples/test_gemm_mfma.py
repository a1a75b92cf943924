"""The main job's GEMM (examples/gemm_mfma_f16.py) end to end: compile, run, check vs NumPy."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "drivers"))

import main_job  # noqa: E402


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (32, 96, 40)])
def test_main_job_matches_numpy(m, n, k, capsys):
    assert main_job.main(["--m", str(m), "--n", str(n), "--k", str(k), "--device", "emulator"]) == 0
    out = capsys.readouterr().out
    assert "-> OK" in out and "MFMA utilization" in out
    assert "on MI300X (modelled)" in out and "limited by:" in out  # the timing mode's report

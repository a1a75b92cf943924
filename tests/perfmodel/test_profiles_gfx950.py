"""The gfx950 devices (MI355X, MI350X): the MFMA facts against the data sheets' peak rates, the
profile a gfx950 launch is timed with, and the refusal of another target's device."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.binary import assemble
from gcnforge.diagnostics import Diagnostic
from gcnforge.perfmodel import profiles
from gcnforge.perfmodel.costs import cost
from gcnforge.runtime.kernargs import ArgLayout

ROOT = Path(__file__).resolve().parents[2]
COPY = (ROOT / "benchmarks" / "kernels" / "copy.s").read_text()  # a streaming-copy microbenchmark

# The independent reference: AMD's data sheets (product pages) give peak dense matrix throughput
# rounded to two significant digits (MI355X: FP16/BF16 2.5, OCP-FP8 5.0, FP6/FP4 10 PFLOP/s;
# MI350X: 2.3, 4.6, 9.2; MI300X: FP16 1307.4 TFLOP/s). The model's figure is
# CUs x clock x (flops of one MFMA / its cycles) x 4 SIMDs from gfx950.mfma.json (LLVM's pass
# counts); it must round to the published one.
# (device, MFMA, (cbsz, blgp) or None, published peak FLOP/s, the published figure's half unit)
PEAKS = [
    ("mi355x", "v_mfma_f32_16x16x32_f16", None, 2.5e15, 0.05e15),
    ("mi355x", "v_mfma_f32_32x32x16_bf16", None, 2.5e15, 0.05e15),
    ("mi355x", "v_mfma_f32_16x16x128_f8f6f4", (0, 0), 5.0e15, 0.05e15),  # FP8 E4M3 x E4M3
    ("mi355x", "v_mfma_f32_32x32x64_f8f6f4", (1, 0), 5.0e15, 0.05e15),  # BF8 x FP8
    ("mi355x", "v_mfma_f32_16x16x128_f8f6f4", (2, 2), 10e15, 0.5e15),  # FP6 E2M3
    ("mi355x", "v_mfma_scale_f32_16x16x128_f8f6f4", (4, 4), 10e15, 0.5e15),  # MXFP4
    ("mi350x", "v_mfma_f32_16x16x32_bf16", None, 2.3e15, 0.05e15),
    ("mi350x", "v_mfma_f32_16x16x128_f8f6f4", (0, 1), 4.6e15, 0.05e15),
    ("mi350x", "v_mfma_f32_32x32x64_f8f6f4", (4, 4), 9.2e15, 0.05e15),
    ("mi300x", "v_mfma_f32_32x32x8_f16", None, 1307.4e12, 0.05e12),
]


@pytest.mark.parametrize("dev,mnemonic,formats,published,half_unit", PEAKS)
def test_mfma_peak_matches_the_data_sheet(dev, mnemonic, formats, published, half_unit):
    assert abs(profiles.get(dev).mfma_peak_flops(mnemonic, formats) - published) <= half_unit


def test_fp8_rate_per_cu_per_clock_is_isscc_figure():
    # AMD at ISSCC 2026: an MI355X CU does 8192 FP8 FLOP per clock (MI300X: 4096)
    for dev, mnemonic, per_clock in (("mi355x", "v_mfma_f32_16x16x128_f8f6f4", 8192),
                                     ("mi300x", "v_mfma_f32_16x16x32_fp8_fp8", 4096)):
        p = profiles.get(dev)
        assert p.mfma_peak_flops(mnemonic) / (p.cus * p.clock_hz) == per_clock


def test_mfma_cost_reads_the_profiles_target_not_the_active_one():
    """With gfx942 active (the default), a gfx950 MFMA under the MI355X profile costs its gfx950
    pass count (it used to be looked up in gfx942's table: an unknown MFMA, 64 cycles); an FP4
    f8f6f4 MFMA half the FP8 one (LLVM's gfx950 scheduling model: 4 and 8 passes)."""
    mi355x = profiles.get("mi355x")
    assert cost("mfma", "v_mfma_f32_16x16x32_f16", 4, mi355x)[1] == 16
    assert cost("mfma", "v_mfma_f32_32x32x16_bf16", 4, mi355x)[1] == 32
    assert cost("mfma", "v_mfma_f32_16x16x128_f8f6f4", 4, mi355x, (4, 4))[1] == 16
    assert cost("mfma", "v_mfma_f32_16x16x128_f8f6f4", 4, mi355x, (0, 4))[1] == 32
    # gfx950 changed the f64 16x16x4 MFMA from 8 to 16 passes; gfx942's is still 8
    assert cost("mfma", "v_mfma_f64_16x16x4_f64", 2, mi355x)[1] == 64
    assert cost("mfma", "v_mfma_f64_16x16x4_f64", 2, profiles.get("mi300x"))[1] == 32


def _mxfp4_kernel():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import gemm_mxfp as gx
    finally:
        sys.path.remove(str(ROOT / "examples"))
    k = rt.load(gx.code_object(16, 16, 128))[gx.NAME]
    a, sa = gx.quantize_mxfp4(np.ones((16, 128)))
    args = (a, sa, a, sa, np.zeros((16, 16), np.float32))
    return k, args


def test_gfx950_launch_uses_the_mi355x_profile_and_refuses_gfx942_devices():
    k, args = _mxfp4_kernel()
    r = k(*args, grid=(1, 1), block=(64, 1, 1), device="emulator", timing=True)
    assert r.timing.device == "MI355X" and r.clock_hz == 2.4e9
    assert k(*args, grid=(1, 1), block=(64, 1, 1), device="emulator", timing="mi350x").timing.device == "MI350X"
    plain = k(*args, grid=(1, 1), block=(64, 1, 1), device="emulator")  # untimed: issue cycles, no time
    assert plain.clock_hz is None and plain.seconds is None and plain.cycles > 0
    for dev in ("mi300x", "mi308x", "mi325x"):
        with pytest.raises(Diagnostic, match=r"gfx942 device, but the code object is for gfx950: use mi350x or mi355x"):
            k(*args, grid=(1, 1), block=(64, 1, 1), device="emulator", timing=dev)


def test_gfx942_launch_refuses_gfx950_devices():
    k = rt.load(assemble(COPY)).kernel("copy", layout=ArgLayout.slots16(["out:u32*", "inp:u32*"]))
    x = np.zeros(1024, np.uint32)  # 16 bytes per work-item
    assert k(x, x, grid=(1,), block=(256,), device="emulator", timing=True).timing.device == "MI300X"
    with pytest.raises(Diagnostic, match="MI355X is a gfx950 device, but the code object is for gfx942"):
        k(x, x, grid=(1,), block=(256,), device="emulator", timing="mi355x")


def test_cli_run_and_stats_timing_mi355x(tmp_path):
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import gemm_mxfp as gx
    finally:
        sys.path.remove(str(ROOT / "examples"))
    co = tmp_path / "mxfp4.co"
    co.write_bytes(gx.code_object(16, 16, 128))
    cli = [sys.executable, "-m", "gcnforge.cli.main"]
    run = cli + ["run", str(co), gx.NAME, "-a", "a=zeros:1024:u8", "-a", "sa=zeros:64:u8", "-a", "bt=zeros:1024:u8",
                 "-a", "sb=zeros:64:u8", "-a", "c=zeros:256:f32", "--grid", "1,1", "--block", "64"]
    r = subprocess.run(run + ["--timing", "mi355x"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{gx.NAME} on MI355X (modelled)" in r.stdout and "at 2400 MHz" in r.stdout
    bad = subprocess.run(run + ["--timing", "mi300x"], capture_output=True, text=True)
    assert bad.returncode != 0 and "gfx942 device" in bad.stderr and "Traceback" not in bad.stderr
    r = subprocess.run(cli + ["stats", str(co), "--timing", "mi355x"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{gx.NAME} on MI355X" in r.stdout and "MI355X's 2400 MHz" in r.stdout
    bad = subprocess.run(cli + ["stats", str(co), "--timing", "mi300x"], capture_output=True, text=True)
    assert bad.returncode != 0 and "gfx942 device" in bad.stderr and "Traceback" not in bad.stderr


def test_tune_timing_takes_a_device_of_the_familys_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # tune without a CSV writes its code objects under the working directory
    from gcnforge.runtime.tuning import KernelFamily, Variant, tune

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import gemm_mxfp as gx
    finally:
        sys.path.remove(str(ROOT / "examples"))

    class Mxfp4(KernelFamily):
        name = "mxfp4"
        dtype = "fp4"
        target = "gfx950"

        def variants(self):
            return [Variant("mxfp4_16", gx.NAME, {})]

        def build(self, v):
            return gx.code_object(16, 16, 128)

        def make_inputs(self, shape, rng):
            a, sa = gx.quantize_mxfp4(rng.standard_normal((16, 128)))
            return {"a": a, "sa": sa}

        def reference(self, shape, inputs):
            x = gx.dequantize_mxfp4(inputs["a"], inputs["sa"])
            return (x @ x.T).astype(np.float32)

        def call(self, kernel, v, shape, inputs, device):
            c = np.zeros((16, 16), np.float32)
            kernel.results.append(kernel(inputs["a"], inputs["sa"], inputs["a"], inputs["sa"], c, grid=(1, 1),
                                         block=(64, 1, 1), device=device, timing=kernel.timing))
            return c

    rep = tune(Mxfp4(), [(16, 16, 128)], tmp_path / "t.csv", device="emulator", timing="mi355x",
               progress=lambda s: None)
    (t,) = rep.trials
    assert t.status == "ok" and t.time_kind == "modeled", t.message
    for auto in (True, "auto"):
        (t,) = tune(Mxfp4(), [(16, 16, 128)], device="emulator", timing=auto, progress=lambda s: None).trials
        assert t.status == "ok"
    with pytest.raises(Diagnostic, match="MI300X is a gfx942 device, but the code object is for gfx950"):
        tune(Mxfp4(), [(16, 16, 128)], device="emulator", timing="mi300x", progress=lambda s: None)


def test_static_model_without_a_profile_uses_the_active_targets_device():
    """``stats`` without ``--timing`` on a gfx950 input: memory latencies of MI355X (HBM latency
    the same ~350 ns as MI300X's, so more cycles at 2.4 GHz), not of MI300X."""
    from gcnforge.isa.table import use_target

    mi300x, mi355x = profiles.get("mi300x"), profiles.get("mi355x")
    assert cost("vmem_load", "global_load_dword", 1)[2] == mi300x.lat_hbm
    with use_target("gfx950"):
        assert cost("vmem_load", "global_load_dword", 1)[2] == mi355x.lat_hbm
        assert cost("mfma", "v_mfma_f32_16x16x32_f16", 4)[1] == 16
    assert mi355x.lat_hbm == pytest.approx(mi300x.lat_hbm * 2.4 / 2.1, abs=1)

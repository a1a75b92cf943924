"""``gcnforge run`` and ``gcnforge tune``: argument handling, output, diagnostics (exit 1,
no traceback). The happy paths run on the recording double installed as the 'emulator'
device, and on the real emulator once it exists."""

import numpy as np
import pytest

from gcnforge.cli.main import main
from gcnforge.runtime import devices
from gcnforge.testing import require_llvm

from .helpers import RecordingBackend, compile_cl, require_emulator
from .test_launch import saxpy_effect

SAXPY = """
__kernel void saxpy(__global float* out, __global const float* x, uint n, float a) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) out[i] = a * x[i] + out[i];
}
"""


@pytest.fixture(scope="module")
def saxpy_co(tmp_path_factory):
    tools = require_llvm("clang", "ld.lld")
    return compile_cl(tmp_path_factory.mktemp("co"), SAXPY, tools, "saxpy", extra=("-cl-kernel-arg-info",))


@pytest.fixture
def double_as_emulator(monkeypatch):
    # hidden args in the clang layout sit after the 24 explicit bytes; saxpy_effect reads
    # block count at +24 and group size at +36, which is where clang puts them here.
    dev = RecordingBackend(effect=saxpy_effect)
    monkeypatch.setitem(devices._instances, "emulator", dev)
    yield dev


def test_run_with_generated_and_npy_arrays(saxpy_co, tmp_path, capsys, double_as_emulator):
    x = np.arange(8, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    rc = main(["run", str(saxpy_co), "saxpy", "--grid", "1", "--block", "64", "--device", "emulator",
               "-a", "out=ones:8:f32", "-a", f"x={tmp_path / 'x.npy'}", "-a", "n=8", "-a", "a=3", "--save", str(tmp_path / "res")])
    out = capsys.readouterr().out
    assert rc == 0, out
    # one answer to "how long": an emulated run without --timing prints no time at all
    assert "ran saxpy on recording" in out and "cycles" not in out and " us" not in out
    np.testing.assert_array_equal(np.load(tmp_path / "res" / "out.npy"), 3 * x + 1)
    assert "out float32[8]: min 1 max 22 mean 11.5 [1, 4, 7, 10, ...]" in out  # summarised, not dumped


def test_run_for_scripts_expect_save_quiet(saxpy_co, tmp_path, capsys, double_as_emulator):
    x = np.arange(8, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "good.npy", 3 * x + 1)
    bad = 3 * x + 1
    bad[5] += 0.5
    np.save(tmp_path / "bad.npy", bad)
    base = ["run", str(saxpy_co), "saxpy", "--grid", "1", "--block", "64", "--device", "emulator",
            "-a", "out=ones:8:f32", "-a", f"x={tmp_path / 'x.npy'}", "-a", "n=8", "-a", "a=3"]
    rc = main(base + ["--quiet", "--expect", f"out={tmp_path / 'good.npy'}", "--save", f"out={tmp_path / 'o.npy'}"])
    cap = capsys.readouterr()
    assert rc == 0 and cap.out == "" and cap.err == ""
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), 3 * x + 1)
    rc = main(base + ["--quiet", "--expect", f"out={tmp_path / 'bad.npy'}"])
    cap = capsys.readouterr()
    assert rc == 1 and "--expect out: 1 of 8 elements differ" in cap.err and "first at [5]" in cap.err
    assert main(base + ["--expect", f"nope={tmp_path / 'bad.npy'}"]) == 1
    assert "no pointer argument 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("argv,msg", [
    (["--grid", "1", "--block", "64", "-a", "n=1"], "missing argument(s) 'out', 'x', 'a'"),
    (["--grid", "1", "--block", "64", "-a", "out=zeros:8:f32", "-a", "x=zeros:8:f32", "-a", "n=1", "-a", "a=1", "-a", "q=2"], "no argument 'q'"),
    (["--grid", "1", "--block", "64", "-a", "out=7", "-a", "x=zeros:8:f32", "-a", "n=1", "-a", "a=1"], "is not an array"),
    (["--grid", "1", "--block", "64", "-a", "out=zeros:8:f64", "-a", "x=zeros:8:f32", "-a", "n=1", "-a", "a=1"], "argument 'out' points to f32"),
    (["--grid", "1", "--block", "64", "-a", "out=zeros:8:f32", "-a", "x=missing.npy", "-a", "n=1", "-a", "a=1"], "'missing.npy' not found"),
    (["--grid", "1,a", "--block", "64"], "--grid '1,a'"),
    (["--grid", "1", "--block", "64", "-a", "out=zeros:8:f32", "-a", "x=zeros:8:f32", "-a", "n=x", "-a", "a=1"], "'x' is not a number"),
])
def test_run_errors_are_diagnostics(saxpy_co, capsys, argv, msg, double_as_emulator):
    rc = main(["run", str(saxpy_co), "saxpy", "--device", "emulator", *argv])
    err = capsys.readouterr().err
    assert rc == 1 and msg in err and "Traceback" not in err


def test_run_unknown_kernel_and_bad_file(saxpy_co, tmp_path, capsys):
    assert main(["run", str(saxpy_co), "nope", "--grid", "1", "--block", "1"]) == 1
    assert "no kernel 'nope'" in capsys.readouterr().err
    bad = tmp_path / "bad.co"
    bad.write_bytes(b"garbage")
    assert main(["run", str(bad), "k", "--grid", "1", "--block", "1"]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_run_on_the_real_emulator(saxpy_co, tmp_path, capsys):
    require_emulator()
    rc = main(["run", str(saxpy_co), "saxpy", "--grid", "2", "--block", "64", "--device", "emulator",
               "-a", "out=ones:100:f32", "-a", "x=arange:100:f32", "-a", "n=100", "-a", "a=2", "--save", str(tmp_path)])
    assert rc == 0, capsys.readouterr().err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), 2 * np.arange(100, dtype=np.float32) + 1)


FAMILY_FILE = """
from gcnforge.runtime.tuning import KernelFamily, Variant
import numpy as np

class Fam(KernelFamily):
    name = "clitest"
    def variants(self):
        return [Variant("v1", "k", {})]
    def build(self, v):
        return b"not a code object"
    def make_inputs(self, shape, rng):
        return {}
    def reference(self, shape, inputs):
        return np.zeros(1)

family = Fam()
broken = None
"""


def test_tune_cli_reports_failures_without_traceback(tmp_path, capsys, double_as_emulator):
    f = tmp_path / "fam.py"
    f.write_text(FAMILY_FILE)
    # --jobs 1: the double replaces the emulator in this process only
    rc = main(["tune", str(f), "--shapes", "4x4x4", "-o", str(tmp_path / "t.csv"), "--device", "emulator", "--jobs", "1"])
    cap = capsys.readouterr()
    assert rc == 1 and "build-failed" in cap.out and "no variant passed the check for shape(s) 4x4x4" in cap.err
    assert main(["tune", str(f), "--shapes", "4x4", "-o", "t.csv"]) == 1
    assert "shape '4x4' must be MxNxK" in capsys.readouterr().err
    assert main(["tune", str(f), "--family", "nothing", "--shapes", "4x4x4", "-o", "t.csv"]) == 1
    assert "defines no 'nothing'" in capsys.readouterr().err
    g = tmp_path / "err.py"
    g.write_text("x = 1\nraise ValueError('boom')\n")
    assert main(["tune", str(g), "--shapes", "4x4x4", "-o", "t.csv"]) == 1
    err = capsys.readouterr().err
    assert f"{g}:2:1: error: family code raised ValueError: boom" in err and "Traceback" not in err


def test_tune_cli_end_to_end_on_the_double(tmp_path, capsys, double_as_emulator):
    require_llvm("clang", "ld.lld")
    from .test_tuning import gemm_effect

    double_as_emulator.effect = gemm_effect()
    fam = tmp_path / "gemm_fam.py"
    src = (__import__("pathlib").Path(__file__).parent / "gemm_family.py").read_text()
    fam.write_text(src)
    out = tmp_path / "tuned.csv"
    rc = main(["tune", str(fam), "--shapes", "16x16x4", "-o", str(out), "--device", "emulator", "--jobs", "1"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert "tuning results" in cap.out and "best" in cap.out and "wrote 1 tuned row(s)" in cap.out
    from gcnforge.runtime.registry import Registry

    assert Registry.from_csv(out).select("gfx942", "f32", 16, 16, 4).how == "tuned"
    # the table says how to reproduce it
    assert out.read_text().splitlines()[0] == f"# written by: gcnforge tune {fam} --device emulator --shapes 16x16x4 -o {out}"


def test_run_gcnforge_kernel_on_the_emulator(tmp_path, capsys):
    emu = devices._make("emulator")
    assert emu.available(), emu.unavailable_reason  # the project\'s own emulator: never a skip
    from pathlib import Path

    from gcnforge.binary import assemble

    co = tmp_path / "hid.co"
    co.write_bytes(assemble((Path(__file__).parent / "data" / "hidden_copy.s").read_text()))
    rc = main(["run", str(co), "hid", "--grid", "2,1,1", "--block", "64", "-a", "out=zeros:9:u32", "-a", "7",
               "--save", str(tmp_path)])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert "ran hid on emulator" in cap.out and "cycles" not in cap.out and "MHz" not in cap.out
    res = np.load(tmp_path / "out.npy")
    assert list(res[:3]) == [2, 1, 1] and res[8] == 7

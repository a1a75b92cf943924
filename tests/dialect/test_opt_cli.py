"""gcnforge-opt as a program: diagnostics with locations and exit codes, never tracebacks;
-o, --emit-irdl, the pass registry hook."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gcnforge.cli import opt

GOOD = textwrap.dedent(
    """\
    amdgcn.module @m #amdgcn.target<gfx942> {
      amdgcn.kernel @k {
        %v = amdgcn.alloca : !amdgcn.vgpr
        %r = amdgcn.vop2 v_add_f32_e32 %v, %v, %v : !amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr
        amdgcn.end
      }
    }
    """
)


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gcnforge.cli.opt", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_round_trip_and_output_file(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(GOOD)
    out = tmp_path / "out.mlir"
    r = run(str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "amdgcn.vop2 v_add_f32_e32 %v, %v, %v" in out.read_text()


def test_verifier_error_has_location(tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text(GOOD.replace("%v, %v, %v :", "%v, %v, %s :").replace(
        "%v = amdgcn.alloca : !amdgcn.vgpr\n", "%v = amdgcn.alloca : !amdgcn.vgpr\n    %s = amdgcn.alloca : !amdgcn.sgpr\n"
    ).replace("!amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.vgpr\n", "!amdgcn.vgpr, !amdgcn.vgpr, !amdgcn.sgpr\n"))
    r = run(str(src))
    assert r.returncode == 1
    assert f"{src}:5:5: error: v_add_f32_e32: operand vsrc1 must be a VGPR" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "text, message",
    [
        ("amdgcn.module @m #amdgcn.target<gfx942> {\n  amdgcn.kernel @k {\n    %v = amdgcn.vop2 v_nope %v\n", "unknown instruction 'v_nope'"),
        ('"amdgcn.alloca"() : () -> !amdgcn.vgpr<[3 : 5]>\n', "register 3 is not aligned to 2"),
        ("amdgcn.module @m #amdgcn.target<gfx942> {\n", "stdin:2:1"),
    ],
)
def test_syntax_errors_have_locations(text, message):
    r = run(stdin=text)
    assert r.returncode == 1
    assert message in r.stderr and "stdin:" in r.stderr
    assert "Traceback" not in r.stderr


def test_missing_file_and_unknown_pass():
    r = run("/nonexistent/k.mlir")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    r = run("-p", "no-such-pass", stdin=GOOD)
    assert r.returncode != 0 and "Traceback" not in r.stderr and "no-such-pass" in r.stderr
    r = run("-p", "canonicalize{", stdin=GOOD)
    assert r.returncode == 1 and "Traceback" not in r.stderr and "pass-pipeline:1:14" in r.stderr


def test_emit_irdl(tmp_path):
    out = tmp_path / "amdgcn.irdl.mlir"
    assert run("--emit-irdl", "-o", str(out)).returncode == 0
    text = out.read_text()
    assert text.count("irdl.operation @") >= 30
    assert 'irdl.is "v_mfma_f32_32x32x8_f16"' in text


def test_pass_registry_hook(monkeypatch):
    import types

    from xdsl.passes import ModulePass

    class Marker(ModulePass):
        name = "test-marker"

        def apply(self, ctx, op):
            op.attributes["marked"] = op.attributes.get("sym_name") or __import__(
                "xdsl.dialects.builtin", fromlist=["UnitAttr"]
            ).UnitAttr()

    fake = types.ModuleType("gcnforge.passes.registry")
    fake.PASSES = {"test-marker": lambda: Marker}
    monkeypatch.setitem(sys.modules, "gcnforge.passes.registry", fake)
    assert "test-marker" in opt.registered_passes()
    tool = opt.GcnforgeOptMain(args=["-p", "test-marker"])
    assert "test-marker" in tool.available_passes

"""Code objects for the raising tests, built live: every OpenCL C kernel the repo's suites
compile with clang 22 (tests/binary, integration_test/emulator/kernels, tests/asm/kernels),
and gcnforge's own examples compiled by the default pipeline."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from gcnforge.testing import require_llvm

ROOT = Path(__file__).resolve().parents[2]
EMU_KERNELS = ROOT / "integration_test" / "emulator" / "kernels"
ASM_KERNELS = ROOT / "tests" / "asm" / "kernels"
def _compiles_as_is(p: Path) -> bool:
    """An example `gcnforge compile` builds as it is: a top-level build() whose parameters
    all have defaults, or a module-level Module (driver scripts with a main() and tables of
    variants for `gcnforge tune` are not kernels)."""
    import ast

    text = p.read_text()
    if "def main(" in text or "Module" not in text:  # a driver script, or a module of helpers (examples/drivers/ holds the driver scripts)
        return False
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef) and node.name == "build":
            a = node.args
            return len(a.defaults) == len(a.posonlyargs) + len(a.args) and all(d is not None for d in a.kw_defaults)
    return "Module(" in text


EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py") if _compiles_as_is(p))


def _binary_sources() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("_bin_conftest", ROOT / "tests" / "binary" / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return dict(mod.OPENCL_KERNELS)


def clang_sources() -> dict[str, str]:
    out = {f"bin_{n}": s for n, s in _binary_sources().items()}
    out.update({f"emu_{p.stem}": p.read_text() for p in sorted(EMU_KERNELS.glob("*.cl"))})
    out.update({f"asm_{p.stem}": p.read_text() for p in sorted(ASM_KERNELS.glob("*.cl"))})
    return out


CLANG_NAMES = sorted(clang_sources())


@pytest.fixture(scope="session")
def clang_objects(tmp_path_factory) -> dict[str, bytes]:
    """name -> code object (clang -O2 -c, one clang run for all, then ld.lld -shared)."""
    tools = require_llvm("clang", "ld.lld")
    d = tmp_path_factory.mktemp("lift_clang")
    srcs = clang_sources()
    for n, s in srcs.items():
        (d / f"{n}.cl").write_text(s)
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib",
                    "-O2", "-I", str(EMU_KERNELS), "-c", *(f"{n}.cl" for n in srcs)], cwd=d, check=True,
                   capture_output=True)
    out = {}
    for n in srcs:
        subprocess.run([tools["ld.lld"], "-shared", f"{n}.o", "-o", f"{n}.hsaco"], cwd=d, check=True,
                       capture_output=True)
        out[n] = (d / f"{n}.hsaco").read_bytes()
    return out


@pytest.fixture(scope="session")
def clang_asm(tmp_path_factory) -> dict[str, str]:
    """name -> clang -S text for a few kernels (the .s input path)."""
    tools = require_llvm("clang")
    d = tmp_path_factory.mktemp("lift_clang_s")
    srcs = {n: s for n, s in clang_sources().items() if n in ("bin_vadd", "bin_reduce_lds", "bin_loops_atomics")}
    for n, s in srcs.items():
        (d / f"{n}.cl").write_text(s)
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib",
                    "-O2", "-S", *(f"{n}.cl" for n in srcs)], cwd=d, check=True, capture_output=True)
    return {n: (d / f"{n}.s").read_text() for n in srcs}


def compile_example(path: Path) -> bytes:
    from gcnforge.cli.cmd_compile import DEFAULT, compile_file

    out = compile_file(path, DEFAULT, None, "builtin", False)
    assert isinstance(out, bytes)
    return out

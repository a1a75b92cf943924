"""--ssa: raised clang kernels lifted to SSA values / storage, re-allocated by amdgcn-regalloc,
emitted, and run on the emulator: the results equal the original code object's."""

from __future__ import annotations

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.binary import read_code_object
from gcnforge.dialect.structure_ops import KernelOp
from gcnforge.dialect.types import RegisterType
from gcnforge.raising import module_code_object, raise_code_object
from gcnforge.raising.ssa import lift_to_ssa, reallocate
from gcnforge.raising.verify import verify_module


def _args_control(name, rng):
    if name == "collatz":
        return [np.zeros(256, np.int32), rng.integers(1, 5000, 256).astype(np.uint32), np.int32(256)], (2,), (128,)
    if name == "nested_loops":
        return [np.zeros(150, np.float32), rng.uniform(-1, 1, 150).astype(np.float32), np.int32(150),
                np.int32(6)], (3,), (64,)
    return [np.zeros(200, np.int32), rng.integers(-500, 500, 200).astype(np.int32), np.int32(200)], (4,), (64,)


CASES = [
    ("emu_control", "collatz", _args_control),
    ("emu_control", "nested_loops", _args_control),
    ("emu_control", "divergent", _args_control),
    ("bin_int_math", "int_math", lambda n, rng: ([rng.integers(-1000, 1000, 64).astype(np.int32),
                                                  rng.integers(0, 1 << 30, 64).astype(np.uint32),
                                                  rng.integers(-1 << 40, 1 << 40, 64).astype(np.int64),
                                                  np.int32(13)], (1,), (64,))),
    ("emu_lanes", "dpp_scan", lambda n, rng: ([np.zeros(128, np.int32), rng.integers(-100, 100, 128).astype(np.int32)],
                                              (2,), (64,))),
    ("emu_lanes", "readlanes", lambda n, rng: ([np.zeros(128, np.int32),
                                                rng.integers(-1000, 1000, 128).astype(np.int32)], (1,), (128,))),
    ("emu_lanes", "ballot_mbcnt", lambda n, rng: ([np.zeros(128, np.uint32),
                                                   rng.integers(-5, 5, 128).astype(np.int32)], (2,), (64,))),
    ("emu_lds", "transpose", lambda n, rng: ([np.zeros(32 * 32, np.float32),
                                              rng.standard_normal(32 * 32).astype(np.float32), np.int32(32)],
                                             (2, 2, 1), (16, 16, 1))),
    ("bin_half_math", "half_math", lambda n, rng: ([rng.uniform(-2, 2, 128).astype(np.float16),
                                                    rng.uniform(0, 2, 128).astype(np.float32),
                                                    rng.uniform(0, 4, 128).astype(np.float64)], (2,), (64,))),
]


def _run(blob, name, make, seed):
    args, grid, block = make(name, np.random.default_rng(seed))
    rt.load(blob, device="emulator")[name](*args, grid=grid, block=block)
    return [a for a in args if isinstance(a, np.ndarray)]


@pytest.fixture(scope="module")
def reallocated(clang_objects):
    out = {}
    for obj in {c[0] for c in CASES}:
        m = raise_code_object(read_code_object(clang_objects[obj]))
        lines = reallocate(m)
        out[obj] = (module_code_object(m), lines, m)
    return out


@pytest.mark.parametrize("obj,name,make", CASES, ids=[c[1] for c in CASES])
def test_same_results_after_reallocation(obj, name, make, clang_objects, reallocated):
    blob2, lines, m = reallocated[obj]
    assert any(ln.startswith(f"@{name}:") for ln in lines)
    before = _run(clang_objects[obj], name, make, 7)
    after = _run(blob2, name, make, 7)
    for x, y in zip(before, after, strict=True):
        np.testing.assert_array_equal(x, y)
    assert verify_module(m) == []  # re-allocation kept every wait and wait state sufficient


def test_reallocation_changes_code(clang_objects, reallocated):
    """Not a no-op: some kernel's registers moved (so the emulator comparison means something)."""
    changed = [o for o, (blob2, _, _) in reallocated.items()
               if read_code_object(blob2).text != read_code_object(clang_objects[o]).text]
    assert changed


def test_lifted_form_has_values_and_storage(clang_objects):
    m = raise_code_object(read_code_object(clang_objects["emu_control"]))
    stats = lift_to_ssa(m)
    assert stats["collatz"]["ssa"] > 0 and stats["collatz"]["storage"] > 0
    k = next(op for op in m.walk() if isinstance(op, KernelOp) and op.sym_name.data == "collatz")
    states = {("value" if t.is_value else "storage" if not t.is_allocated else "pinned")
              for op in k.walk() for r in op.results if isinstance(t := r.type, RegisterType)}
    assert states == {"value", "storage", "pinned"}
    m.verify()


EXAMPLE_CASES = {
    "row_softmax": ("row_softmax_f32", lambda rng: ([(3 * rng.standard_normal((2, 517))).astype(np.float32),
                                                     np.full((2, 517), np.nan, np.float32), np.uint32(517)],
                                                    (2, 1, 1), (256, 1, 1))),
    "topk_softmax": ("topk_softmax_e128_k8", lambda rng: ([(2 * rng.standard_normal((5, 128))).astype(np.float32),
                                                           np.full((5, 8), np.nan, np.float32),
                                                           np.full((5, 8), -1, np.int32)], (5, 1, 1), (64, 1, 1))),
}


@pytest.mark.parametrize("example", sorted(EXAMPLE_CASES))
def test_examples_same_results_after_reallocation(example):
    """gcnforge's own kernels, raised from their code objects and re-allocated."""
    from .conftest import ROOT, compile_example

    name, make = EXAMPLE_CASES[example]
    blob = compile_example(ROOT / "examples" / f"{example}.py")
    m = raise_code_object(read_code_object(blob))
    lines = reallocate(m)
    assert any(ln.startswith(f"@{name}: webs") for ln in lines), lines
    blob2 = module_code_object(m)
    # (gcnforge's allocator made these registers in the first place, so it may well choose
    # the same ones again; test_reallocation_changes_code covers moved registers)
    outs = []
    for b in (blob, blob2):
        args, grid, block = make(np.random.default_rng(3))
        rt.load(b, device="emulator")[name](*args, grid=grid, block=block)
        outs.append([a for a in args if isinstance(a, np.ndarray)])
    for x, y in zip(*outs, strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.slow  # the whole clang emulator suite again, ~20 s: CI's full pass
def test_emulator_suite_on_reallocated_code():
    """The whole clang emulator suite (43 kernels checked against NumPy) on re-allocated code."""
    import subprocess
    import sys

    from gcnforge.testing import require_llvm

    from .conftest import ROOT

    require_llvm("clang", "ld.lld")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                        "tests.raising.realloc_plugin", "integration_test/emulator/test_kernels.py"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " passed" in r.stdout and "failed" not in r.stdout
    import re

    m = re.search(r"lift: (\d+) code object\(s\) re-allocated", r.stdout)
    assert m and int(m.group(1)) >= 5, r.stdout[-2000:]

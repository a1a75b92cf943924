"""The fuzzing harness (``fuzz/``) in CI: a fixed seed, a bounded number of mutated inputs
per entry point (well under a minute here), and the assembler against llvm-mc. The bound per
input (``bound=20.0``) is CPU seconds, with a wall-clock backstop: a loaded machine does not
turn a slow input into a hang."""

from __future__ import annotations

import io

import pytest

from fuzz import harness


@pytest.mark.slow  # ~1 min: CI's full pass
def test_mutated_corpus_gives_only_located_diagnostics():
    harness.LAUNCH = True  # obj: reader, dis, info, raise -> compile and an emulator launch
    out = io.StringIO()
    counts = harness.fuzz(["ir", "asm", "obj"], inputs=250, seed=0, bound=20.0, out=out)
    bad = {k: v for k, v in counts.items() if k[1] not in ("ok", "reached output")}
    assert not bad, out.getvalue()[:3000]
    assert sum(v for k, v in counts.items() if k[1] == "ok") == 750
    assert counts[("ir", "reached output")] > 10  # mutants that still compile to a code object


@pytest.mark.slow  # ~6 min on 2 cores: CI's full pass
def test_mutated_objects_launch_on_the_emulator():
    """1,000 more mutated code objects launched (seed 1 found 29 emulator crashes and a hang
    before issue 16's fixes: tests/emulator/test_mutated_objects.py), and 1,000 whose
    instructions and descriptors alone are mutated (``emu``: most of them reach the emulator);
    about 20 s here."""
    out = io.StringIO()
    counts = harness.fuzz(["obj", "emu"], inputs=1000, seed=1, bound=20.0, out=out)
    assert counts[("obj", "ok")] == counts[("emu", "ok")] == 1000, out.getvalue()[:3000]
    assert counts[("obj", "reached output")] > 20  # mutants that still launch and run to the end
    assert counts[("emu", "reached output")] > 100


def test_issue28_shapes_give_only_located_diagnostics():
    """The generated shapes of issue 28 (``fuzz/shapes.py``): loops naming values out of scope,
    doubled suffixes, wrong directive operands, YAML white space and Unicode; 150 each (the
    10^5-input runs are in fuzz/README.md). Each generator reaches both outcomes."""
    out = io.StringIO()
    counts = harness.fuzz(["loop", "asmshape"], inputs=150, seed=0, bound=20.0, out=out)
    assert counts[("loop", "ok")] == counts[("asmshape", "ok")] == 150, out.getvalue()[:3000]
    assert 20 < counts[("loop", "reached output")] < 150  # compiled to assembly / refused, located
    assert 0 < counts[("asmshape", "reached output")] < 150


def test_mutators_are_deterministic():
    import random

    ir = harness.ir_corpus()[0]
    a = harness.mutate_text(ir, random.Random(5), harness.IR_TOKENS)
    b = harness.mutate_text(ir, random.Random(5), harness.IR_TOKENS)
    assert a == b


def test_assembler_agrees_with_llvm_mc(llvm):
    """Random instructions of every encoding: where llvm-mc and gcnforge both accept, the
    bytes are the same (acceptance differences are counted and listed in fuzz/README.md)."""
    from fuzz import asm_diff

    lines = asm_diff.random_lines(1500, seed=1)
    counts, examples = asm_diff.compare(lines)
    assert counts["different bytes"] == 0, examples
    assert counts["LLVM rejects, gcnforge accepts"] == 0, examples
    assert counts["same bytes"] > 1000


@pytest.mark.slow  # 300 fuzz inputs, ~16 s: CI's full pass
def test_gfx950_slice():
    """``--mcpu gfx950``: the gfx950 corpus (lit IR, retargeted corpus, gfx950_kernels.s, the MFMA
    seed, the gfx950 examples) mutated and run through every entry point and the command lines
    with ``--target gfx950``, emulator launches with random buffer contents (a few seconds here;
    the long runs are in fuzz/README.md)."""
    out = io.StringIO()
    counts = harness.fuzz(["ir", "asm", "obj", "emu", "cli"], inputs=60, seed=0, bound=20.0, out=out, mcpu="gfx950")
    bad = {k: v for k, v in counts.items() if k[1] not in ("ok", "reached output")}
    assert not bad, out.getvalue()[:3000]
    assert sum(v for k, v in counts.items() if k[1] == "ok") == 300
    assert counts[("asm", "reached output")] > 10 and counts[("emu", "reached output")] > 3


def test_gfx950_corpus_reaches_the_new_paths():
    """The unmutated gfx950 corpus assembles for gfx950 and its MFMA seed runs on random data:
    an empty or gfx942-only corpus would make the slice above test nothing new."""
    from gcnforge.binary.reader import read_code_object

    harness.MCPU = "gfx950"
    try:
        objs = harness.obj_corpus(harness.asm_corpus())
    finally:
        harness.MCPU = "gfx942"
    cos = [read_code_object(o) for o in objs]
    assert all(co.target.startswith("gfx950") for co in cos)
    names = {n for co in cos for n in co.kernels}
    assert {"mx", "valu", "mem", "tr_bad", "gemm_mxfp4_16x16x128"} <= names
    mx = next(o for o, co in zip(objs, cos) if "mx" in co.kernels)
    harness.launch(mx, ["mx"])  # v_mfma_scale_*, SMFMAC, LDS DMA x3/x4, transposing reads


def _spin(inp):
    while True:
        pass


def test_non_terminating_input_is_a_hang(monkeypatch, capsys):
    """An input that computes forever is a hang, located by target and input number, with the
    CPU time it used; the command line exits non-zero."""
    monkeypatch.setattr(harness, "run_loop", _spin)
    out = io.StringIO()
    counts = harness.fuzz(["loop"], inputs=2, seed=0, bound=0.3, out=out)
    assert counts[("loop", "hang")] == 2 and counts[("loop", "ok")] == 0
    assert "[loop #0] hang" in out.getvalue() and "of CPU time (bound 0.3 s" in out.getvalue()
    assert harness.main(["--targets", "loop", "--inputs", "1", "--time-bound", "0.3"]) == 1
    assert "loop: ok 0, crash 0, hang 1" in capsys.readouterr().out


def test_blocked_input_is_a_hang_by_the_wall_backstop(monkeypatch):
    """An input that blocks without computing (here: a sleep) never spends the CPU bound; the
    wall-clock backstop reports it."""
    import time

    monkeypatch.setattr(harness, "run_loop", lambda inp: time.sleep(60))
    out = io.StringIO()
    t0 = time.perf_counter()
    counts = harness.fuzz(["loop"], inputs=1, seed=0, bound=20.0, wall=0.5, out=out)
    assert counts[("loop", "hang")] == 1 and "no end after" in out.getvalue() and "backstop 0.5 s" in out.getvalue()
    assert time.perf_counter() - t0 < 30


def test_input_waiting_for_a_core_is_not_a_hang(monkeypatch):
    """An input that takes longer on the wall clock than the bound but little CPU time (as one
    does while a loaded machine runs other processes; here it sleeps 1 s with a 0.2 s bound)
    finishes and counts as ok: the bound is CPU time. Both signal handlers are put back."""
    import signal
    import time

    before = signal.getsignal(signal.SIGPROF), signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(harness, "run_loop", lambda inp: time.sleep(1.0) or True)
    out = io.StringIO()
    counts = harness.fuzz(["loop"], inputs=1, seed=0, bound=0.2, out=out)
    assert counts[("loop", "ok")] == 1 and counts[("loop", "reached output")] == 1, out.getvalue()
    assert (signal.getsignal(signal.SIGPROF), signal.getsignal(signal.SIGALRM)) == before


@pytest.mark.parametrize("flag,value", [("--time-bound", "0"), ("--time-bound", "soon"), ("--wall-bound", "-3")])
def test_bad_bounds_are_usage_errors(flag, value, capsys):
    with pytest.raises(SystemExit) as e:
        harness.main(["--targets", "loop", "--inputs", "1", flag, value])
    assert e.value.code == 2 and "expected a number of seconds > 0" in capsys.readouterr().err

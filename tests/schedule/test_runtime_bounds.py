"""Loops with run-time bounds (issue 24 item 2): ``k.loop(lb, ub, step)`` over SGPR values,
lowered with a guarded entry, so ragged sizes and zero trips run correctly. The kernels of
``examples/runtime_bounds.py`` (a saxpy with a run-time ``n`` and an f32 ``alpha`` given on
the command line, a row sum with a run-time column count) against NumPy on the emulator."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.builder import Arg, Module
from gcnforge.cli.main import main
from gcnforge.diagnostics import Diagnostic
from gcnforge.passes import pipeline as pl
from gcnforge.translate import to_code_object

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def co(tmp_path_factory) -> Path:
    spec = importlib.util.spec_from_file_location("runtime_bounds", ROOT / "examples" / "runtime_bounds.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = mod.build()
    pl.run(m.top, pl.parse(pl.DEFAULT))
    p = tmp_path_factory.mktemp("rb") / "rb.hsaco"
    p.write_bytes(to_code_object(m.top))
    return p


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 200])
def test_saxpy_runtime_n_matches_numpy(co, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(256).astype(np.float32)
    y = rng.standard_normal(256).astype(np.float32)
    want = y.copy()
    want[:n] = (1.5 * x[:n].astype(np.float64) + y[:n]).astype(np.float32)  # v_fma_f32: one rounding
    rt.load(co)["saxpy"](y, x, 1.5, n, grid=1, block=64, device="emulator", sanitize=True)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(y[n:], want[n:])  # elements past n untouched


@pytest.mark.parametrize("n", [0, 37, 130])
def test_saxpy_cli_alpha_and_runtime_n(co, tmp_path, n):
    x = np.arange(200, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    rc = main(["run", str(co), "saxpy", "--grid", "1", "--block", "64", "--device", "emulator", "-a", "y=ones:200:f32",
               "-a", f"x={tmp_path / 'x.npy'}", "-a", "alpha=2.0", "-a", f"n={n}", "--save", str(tmp_path)])
    assert rc == 0
    want = np.ones(200, np.float32)
    want[:n] += 2.0 * x[:n]
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), want)


@pytest.mark.parametrize("cols", [0, 1, 64, 100, 129])
def test_row_sum_runtime_cols_matches_numpy(co, cols):
    rows = 3
    a = np.random.default_rng(cols).standard_normal((rows, max(cols, 1))).astype(np.float32)[:, :cols].copy()
    out = np.full(rows, np.nan, np.float32)
    rt.load(co)["row_sum"](out, a if cols else np.zeros(1, np.float32), cols, grid=rows, block=64,
                           device="emulator", sanitize=True)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cols", [0, 1, 64, 65, 128, 129, 64 * 5, 64 * 5 + 1, 64 * 37 + 5])
def test_row_sum_pipelined_runtime_cols_matches_numpy(co, cols):
    """examples/runtime_bounds.py's software-pipelined row sum (largest stage 1 x nest 2: the
    pipeline needs 2 chunks of 64 columns; a steady-state iteration takes 4): chunk counts 0, 1,
    2, 3, 5, 6 and 38, ragged tails."""
    rows = 3
    a = np.random.default_rng(cols).standard_normal((rows, max(cols, 1))).astype(np.float32)[:, :cols].copy()
    out = np.full(rows, np.nan, np.float32)
    rt.load(co)["row_sum_pipelined"](out, a if cols else np.zeros(1, np.float32), cols, grid=rows, block=64,
                                     device="emulator", sanitize=True)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_row_sum_pipelined_readme_command(co, tmp_path):
    """The README's command for the pipelined row sum, through gcnforge run."""
    rc = main(["run", str(co), "row_sum_pipelined", "--grid", "3", "--block", "64", "--device", "emulator",
               "-a", "out=zeros:3:f32", "-a", "a=arange:3000:f32", "-a", "cols=1000", "--save", str(tmp_path)])
    assert rc == 0
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"),
                                  np.arange(3000, dtype=np.float64).reshape(3, 1000).sum(axis=1).astype(np.float32))


def test_runtime_loop_lowering_has_a_guarded_entry():
    m = Module("g")
    with m.kernel("g", [Arg.ptr("p", np.float32), Arg.value("n", np.int32)], workgroup_size=(64, 1, 1)) as k:
        p, n = k.args()
        with k.loop(3, n, 2) as body:
            k.global_store_dword(k.v_mov_b32(0), k.v_mov_b32(body.iv), p)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    from gcnforge.translate import to_assembly

    text = [ln.strip() for ln in to_assembly(m.top).splitlines()]
    i = text.index("s_cbranch_scc0 .LBB0_2")
    assert text[i - 1].startswith("s_cmp_lt_i32") and text[i - 2].startswith("s_mov_b32")
    assert text[i - 2].endswith(", 3")  # iv = lb
    j = text.index("s_cbranch_scc1 .LBB0_1")
    assert text[j - 2].startswith("s_add_i32") and text[j - 2].endswith(", 2")  # iv += step


def test_wrong_loop_arity_at_authors_line():
    m = Module("a")
    with m.kernel("a", [Arg.value("n", np.int32)], workgroup_size=(64, 1, 1)) as k:
        (n,) = k.args()
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(Diagnostic, match=r"loop takes a count, \(ub\), \(lb, ub\) or \(lb, ub, step\).*got 4") as e:
            with k.loop(0, n, 1, 2):
                pass
    assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


def test_bad_step_and_bound_kinds_at_authors_line():
    m = Module("b")
    with m.kernel("b", [Arg.value("n", np.int32)], workgroup_size=(64, 1, 1)) as k:
        (n,) = k.args()
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(Diagnostic, match="loop step 0 must be positive") as e:
            with k.loop(0, n, 0):
                pass
        assert (e.value.loc.file, e.value.loc.line) == (__file__, line)
        with pytest.raises(Diagnostic, match="loop ub must be an int or a 32-bit SGPR value"):
            with k.loop(0, k.v_mov_b32(1)):
                pass


def _row_sum_scheduled(dims, delays: bool, stage: int = 0) -> Module:
    """row_sum's loop unrolled by ``dims`` (and with ``delays``: every load of the unrolled
    nest issued before the first add, the adds one nest step later), run-time column count."""
    from gcnforge.builder.scheduled import sched_for
    from gcnforge.lib import buffer_load, make_buffer_rsrc, wave_reduce

    m = Module("rs")
    args = [Arg.ptr("out", np.float32), Arg.ptr("a", np.float32, access="read_only"), Arg.value("cols", np.int32)]
    with m.kernel("row_sum", args, workgroup_size=(64, 1, 1)) as k:
        out, a, cols = k.args()
        row_bytes = k.s_lshl_b32(cols, 2)
        lo, hi = a.split()
        start = k.s_mul_i32(k.block_id("x"), row_bytes)
        rsrc = make_buffer_rsrc(k, k.concat(k.s_add_u32(lo, start), k.s_addc_u32(hi, 0)), row_bytes)
        lane = k.v_lshlrev_b32(2, k.thread_id("x"))
        for L in sched_for(k, (0, cols, 64), dims=dims, iter=[k.v_mov_b32(0)]):
            (acc,) = L.values
            with L.at(delay=0):
                v, t = buffer_load(k, rsrc, k.v_add_u32(k.s_lshl_b32(L.iv, 2), lane))
            with L.at(delay=1 if delays else 0), L.stage(stage):
                k.wait(t)
                acc = k.v_add_f32(acc, v)
            L.yield_(acc)
        k.global_store_dword(k.v_mov_b32(k.s_lshl_b32(k.block_id("x"), 2)), wave_reduce(k, L.results[0]), out)
    return m


@pytest.mark.parametrize("dims,delays", [([4], False), ([4], True), ([3], True), ([2, 2], True), ([1], True)])
def test_scheduled_runtime_loop_matches_numpy(dims, delays):
    """Unrolled (and interleaved) main loop over whole periods, the remainder at run time:
    every column count, zero included, sums each row exactly once."""
    m = _row_sum_scheduled(dims, delays)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    k = rt.load(to_code_object(m.top))["row_sum"]
    for cols in (0, 1, 63, 64, 100, 192, 257, 64 * 7 + 5, 64 * 12):
        a = np.random.default_rng(cols).standard_normal((2, max(cols, 1))).astype(np.float32)[:, :cols].copy()
        out = np.full(2, np.nan, np.float32)
        k(out, a if cols else np.zeros(1, np.float32), cols, grid=2, block=64, device="emulator", sanitize=True)
        np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5, atol=1e-5, err_msg=f"{dims} {cols}")


def test_interleaved_runtime_loop_follows_the_delays():
    from gcnforge.translate import to_assembly

    m = _row_sum_scheduled([4], True)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    body = text[text.index(".LBB0_1:"):text.index("s_cbranch_scc1 .LBB0_1")]
    ops = [ln.split()[0] for ln in body.splitlines()[1:] if ln.strip() and not ln.strip().startswith(".")]
    # delay 1: the add of iteration j is issued at nest step j + 1, after the load of j + 1
    # (schedule/README.md: op emitted at step i iff i >= delay; ops of one step in body order)
    seq = ["L" if o == "buffer_load_dword" else "A" for o in ops if o in ("buffer_load_dword", "v_add_f32_e32")]
    assert "".join(seq) == "LLALALAA"


def test_pipelined_runtime_row_sum_matches_numpy():
    """The row sum with its add one stage after the load (software pipelining on run-time
    bounds, ``expand_pipelined``; refused with a diagnostic before): every column count."""
    m = _row_sum_scheduled([2], True, stage=1)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    k = rt.load(to_code_object(m.top))["row_sum"]
    for cols in (0, 1, 64, 65, 128, 129, 64 * 4 + 1, 64 * 9):
        a = np.random.default_rng(cols).standard_normal((2, max(cols, 1))).astype(np.float32)[:, :cols].copy()
        out = np.full(2, np.nan, np.float32)
        k(out, a if cols else np.zeros(1, np.float32), cols, grid=2, block=64, device="emulator", sanitize=True)
        np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-5, atol=1e-5, err_msg=f"{cols}")

"""``amdgcn.if`` (``gcnforge.dialect.cond_ops``): a structured conditional with merged values,
built with ``k.if_``, lowered by ``amdgcn-lower-loops`` to ``s_cmp_*`` + ``s_cbranch_scc0``,
register-allocated (each merged value one register written by both branches), waited and
run on the emulator against NumPy on both paths."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.passes import pipeline as pl
from gcnforge.translate import to_assembly, to_code_object


def _kernel() -> Module:
    """out[tid] = (x[tid] + 100 if n >= 4 else x[tid] * 2) + (n if n >= 4 else 7): a load before
    the if waited in one branch, a merged VGPR produced in each branch, a merged SGPR taken
    from outside the branch (a copy), then a nested if without results."""
    m = Module("cond")
    args = [Arg.ptr("out", np.int32), Arg.ptr("x", np.int32, access="read_only"), Arg.value("n", np.int32)]
    with m.kernel("cond", args, workgroup_size=(64, 1, 1)) as k:
        out, x, n = k.args()
        off = k.v_lshlrev_b32(2, k.thread_id("x"))
        v, t = k.global_load_dword(off, x)
        seven = k.s_mov_b32(7)
        with k.if_("s_cmp_ge_i32", n, 4) as br:
            k.wait(t)
            br.next(k.v_add_u32(v, k.v_mov_b32(100)), n)
        with br.else_():
            k.wait(t)
            br.next(k.v_lshlrev_b32(1, v), seven)
        r, s = br.results
        res = k.v_add_u32(r, s)
        with k.if_(k.s_and_b32(n, 1)):  # odd n: store the negation instead
            k.global_store_dword(off, k.v_sub_u32(0, res), out)
        with k.if_("s_cmp_eq_u32", k.s_and_b32(n, 1), 0):
            k.global_store_dword(off, res, out)
    return m


@pytest.fixture(scope="module")
def cond():
    m = _kernel()
    pl.run(m.top, pl.parse(pl.DEFAULT))
    return rt.load(to_code_object(m.top))["cond"], to_assembly(m.top)


@pytest.mark.parametrize("n", [-5, 0, 3, 4, 5, 1000])
def test_both_paths_match_numpy(cond, n):
    kern, _ = cond
    x = np.random.default_rng(n % 97).integers(-1000, 1000, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    kern(out, x, n, grid=1, block=64, device="emulator", sanitize=True)
    want = (x + 100 + n) if n >= 4 else (x * 2 + 7)
    if n % 2:
        want = -want
    np.testing.assert_array_equal(out, want.astype(np.int32))


def test_lowered_to_a_compare_and_scc_branches(cond):
    _, text = cond
    lines = [ln.strip() for ln in text.splitlines()]
    i = next(k for k, ln in enumerate(lines) if ln.startswith("s_cmp_ge_i32"))
    assert lines[i + 1].startswith("s_cbranch_scc0")
    assert any(ln.startswith("s_cmp_lg_u32") for ln in lines) and any(ln.startswith("s_cmp_eq_u32") for ln in lines)


def test_merged_value_gets_one_register():
    """Both branches write the merged VGPR: the v_add_u32 of the then branch and the
    v_lshlrev_b32 of the else branch have the same destination register."""
    m = _kernel()
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    add = next(ln for ln in text.splitlines() if "v_add_u32" in ln and "v_add_u32" in ln.split()[0])
    shl = next(ln for ln in text.splitlines() if ln.split() and ln.split()[0].startswith("v_lshlrev_b32")
               and ", 1," in ln)
    assert add.split()[1] == shl.split()[1]


def test_else_values_must_match_at_authors_line():
    m = Module("bad")
    with m.kernel("bad", [Arg.value("n", np.int32)], workgroup_size=(64, 1, 1)) as k:
        (n,) = k.args()
        a = k.v_mov_b32(1)
        with k.if_("s_cmp_lt_i32", n, 3) as br:
            br.next(a)
        with pytest.raises(Diagnostic, match=r"the else region yields \(!amdgcn.sgpr\) but the results are "
                                             r"\(!amdgcn.vgpr\)") as e:
            with br.else_():
                line = inspect.currentframe().f_lineno + 1
                br.next(n)
        assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


def test_bad_condition_and_token_result_at_authors_line():
    m = Module("bad2")
    with m.kernel("bad2", [Arg.ptr("x", np.int32), Arg.value("n", np.int32)], workgroup_size=(64, 1, 1)) as k:
        x, n = k.args()
        line = inspect.currentframe().f_lineno + 2
        with pytest.raises(Diagnostic, match=r"if_ takes an SGPR, or a compare") as e:
            with k.if_("v_cmp_lt_i32", n, 3):
                pass
        assert (e.value.loc.file, e.value.loc.line) == (__file__, line)
        with pytest.raises(Diagnostic, match=r"if_ compares 32-bit SGPR values or ints"):
            with k.if_("s_cmp_lt_i32", k.v_mov_b32(0), 3):
                pass
        with pytest.raises(Diagnostic, match=r"a memory token cannot be a result"):
            with k.if_("s_cmp_lt_i32", n, 3) as br:
                _, t = k.global_load_dword(k.v_mov_b32(0), x)
                br.next(t)
            with br.else_():
                br.next(t)


def test_if_inside_a_runtime_loop_and_a_loop_inside_an_if():
    """sum over i < n of (i if i < m else 3 i), plus 1000 when n > 4 computed by a loop of
    n - 4 iterations inside a then branch: both nestings lowered (outer first) and run."""
    m = Module("nest")
    args = [Arg.ptr("out", np.int32), Arg.value("n", np.int32), Arg.value("m", np.int32)]
    with m.kernel("nest", args, workgroup_size=(64, 1, 1)) as k:
        out, n, mm = k.args()
        with k.loop(0, n, 1, [k.v_mov_b32(0)]) as body:
            (acc,) = body.args
            with k.if_("s_cmp_lt_i32", body.iv, mm) as br:
                br.next(k.v_add_u32(body.iv, acc))
            with br.else_():
                br.next(k.v_add_u32(k.s_mul_i32(body.iv, 3), acc))
            body.next(br.results[0])
        with k.if_("s_cmp_gt_i32", n, 4) as br2:
            with k.loop(4, n, 1, [body.results[0]]) as inner:
                inner.next(k.v_add_u32(1000, inner.args[0]))
            br2.next(inner.results[0])
        with br2.else_():
            br2.next(body.results[0])
        k.global_store_dword(k.v_lshlrev_b32(2, k.thread_id("x")), br2.results[0], out)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    kern = rt.load(to_code_object(m.top))["nest"]
    for n, mm in ((0, 3), (1, 0), (5, 3), (9, 20), (12, -1)):
        o = np.zeros(64, np.int32)
        kern(o, n, mm, grid=1, block=64, device="emulator", sanitize=True)
        want = sum(i if i < mm else 3 * i for i in range(n)) + 1000 * max(0, n - 4)
        np.testing.assert_array_equal(o, np.full(64, want, np.int32), err_msg=f"n={n} m={mm}")


def test_waits_follow_both_paths():
    """A load issued before the if, waited for in the then branch only, read after the join
    with no k.wait of its own: the wait pass (passes.dataflow's merge over both paths) waits on
    the else path's outstanding load before the read, so both paths store the loaded value."""
    m = Module("w2")
    args = [Arg.ptr("out", np.int32), Arg.ptr("x", np.int32, access="read_only"), Arg.value("n", np.int32)]
    with m.kernel("w2", args, workgroup_size=(64, 1, 1)) as k:
        out, x, n = k.args()
        off = k.v_lshlrev_b32(2, k.thread_id("x"))
        v, t = k.global_load_dword(off, x)
        with k.if_("s_cmp_gt_i32", n, 0) as br:
            k.wait(t)
            br.next(k.v_add_u32(v, k.v_mov_b32(1)))
        with br.else_():
            br.next(k.v_mov_b32(5))
        k.global_store_dword(off, k.v_add_u32(br.results[0], v), out)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    join = text[text.index(".LBB0_3:"):]
    assert "s_waitcnt vmcnt(0)" in join.split("v_add_u32")[0]  # the else path's load, waited at the join
    kern = rt.load(to_code_object(m.top))["w2"]
    x = np.arange(64, dtype=np.int32) * 7
    for n in (1, 0):
        o = np.zeros(64, np.int32)
        kern(o, x, n, grid=1, block=64, device="emulator", sanitize=True)
        np.testing.assert_array_equal(o, (2 * x + 1) if n > 0 else (x + 5))


def test_if_inside_a_pipelined_runtime_loop():
    """An amdgcn.if in a scheduled loop body is cloned by the expansion like any op (per
    iteration, per stage) and lowered afterwards: acc += (i odd ? x[i] : 2 x[i])."""
    from gcnforge.builder.scheduled import sched_for

    m = Module("ip")
    args = [Arg.ptr("out", np.int32), Arg.ptr("x", np.int32, access="read_only"), Arg.value("n", np.int32)]
    with m.kernel("ip", args, workgroup_size=(64, 1, 1)) as k:
        out, x, n = k.args()
        lane4 = k.v_lshlrev_b32(2, k.thread_id("x"))
        for L in sched_for(k, (0, n, 1), dims=[2], iter=[k.v_mov_b32(0)]):
            (acc,) = L.values
            with L.stage(0):
                v, t = k.global_load_dword(k.v_add_u32(k.s_lshl_b32(L.iv, 8), lane4), x)
            with L.stage(1):
                k.wait(t)
                with k.if_(k.s_and_b32(L.iv, 1)) as br:
                    br.next(v)
                with br.else_():
                    br.next(k.v_lshlrev_b32(1, v))
                acc = k.v_add_u32(acc, br.results[0])
            L.yield_(acc)
        k.global_store_dword(lane4, L.results[0], out)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    kern = rt.load(to_code_object(m.top))["ip"]
    for n in (0, 1, 2, 3, 4, 11):
        x = np.random.default_rng(n).integers(-1000, 1000, (max(n, 1), 64)).astype(np.int32)
        o = np.zeros(64, np.int32)
        kern(o, x, n, grid=1, block=64, device="emulator", sanitize=True)
        want = sum((x[i] if i % 2 else 2 * x[i]) for i in range(n)) if n else np.zeros(64, np.int32)
        np.testing.assert_array_equal(o, want, err_msg=f"n={n}")


def test_value_of_a_branch_used_after_the_if_at_authors_line():
    """A value defined in a branch is not visible after the if (MLIR's dominance rule): the
    pipeline refuses it at the reading line (it compiled to a register read on both paths)."""
    m = Module("dom")
    with m.kernel("dom", [Arg.ptr("out", np.int32), Arg.value("n", np.int32)], workgroup_size=(64, 1, 1)) as k:
        out, n = k.args()
        with k.if_("s_cmp_gt_i32", n, 0):
            inner = k.v_mov_b32(3)
        line = inspect.currentframe().f_lineno + 1
        k.global_store_dword(k.v_mov_b32(0), inner, out)
    for check in (m.verify, lambda: pl.run(m.top, pl.parse(pl.DEFAULT))):
        with pytest.raises(Diagnostic, match="defined in a region that does not enclose this use") as e:
            check()
        assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


def test_hazard_wait_states_across_the_join():
    """A VALU write at the end of each branch read by DPP right after the join (2 wait states
    on gfx942, isa's hazard table): the hazard pass pads on the path that needs it, and the
    sanitizer (it checks every hazard of the table as the code runs) passes on both paths."""
    m = Module("hz")
    args = [Arg.ptr("out", np.float32), Arg.value("n", np.int32)]
    with m.kernel("hz", args, workgroup_size=(64, 1, 1)) as k:
        out, n = k.args()
        tid = k.v_cvt_f32_u32(k.thread_id("x"))
        with k.if_("s_cmp_gt_i32", n, 0) as br:
            br.next(k.v_add_f32(tid, k.v_mov_b32(1.0)))
        with br.else_():
            br.next(k.v_mul_f32(tid, k.v_mov_b32(2.0)))
        r = k.v_add_f32(br.results[0], br.results[0], quad_perm=[1, 0, 3, 2])
        k.global_store_dword(k.v_lshlrev_b32(2, k.thread_id("x")), r, out)
    pl.run(m.top, pl.parse(pl.DEFAULT))
    text = to_assembly(m.top)
    assert "s_nop" in text
    kern = rt.load(to_code_object(m.top))["hz"]
    t = np.arange(64, dtype=np.float32)
    swap = t.reshape(-1, 4)[:, [1, 0, 3, 2]].reshape(-1)
    for n, f in ((1, lambda x: x + 1), (0, lambda x: x * 2)):
        o = np.zeros(64, np.float32)
        kern(o, n, grid=1, block=64, device="emulator", sanitize=True)
        np.testing.assert_array_equal(o, f(swap) + f(t))

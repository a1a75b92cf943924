"""Expansion against an independent symbolic run of the loop as written (``symbolic``)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from xdsl.parser import Parser

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.loop_ops import LoopOp
from gcnforge.schedule.dialect import context
from gcnforge.schedule.passes import schedule_loops

sys.path.insert(0, str(Path(__file__).parent))
from symbolic import run_kernel  # noqa: E402

V = "!amdgcn.vgpr"


def loop_text(n, dims, perm, scheds, swap=False, pipe=False, kernel_unroll=1) -> str:
    """Two iteration values; a chain of adds reading indices, the iteration values and
    earlier results; the yield swaps the iteration values when ``swap``."""
    idx = [f"%i{k}" for k in range(len(dims))]
    lines = []
    prev = ["%a", "%b"]
    for n_op, s in enumerate(scheds):
        src0 = idx[n_op % len(idx)] if idx else "%c7"
        src1 = prev[-1] if n_op % 3 else prev[-2]
        attr = f" {{sched = array<i64: {', '.join(map(str, s))}>}}" if s is not None else ""
        lines.append(f"%d{n_op} = amdgcn.alloca : {V}")
        lines.append(f"%v{n_op} = amdgcn.vop2 v_add_u32_e32 %d{n_op}, {src0}, {src1}{attr} : {V}, i32, {V}")
        prev.append(f"%v{n_op}")
    y = [prev[-1], prev[-2]] if swap else [prev[-1], "%b"]
    if pipe:  # the recurrence stays in stage 0; the last stage's value leaves the loop
        y = [prev[2], prev[-1]]
    dims_t = f" dims [{', '.join(map(str, dims))}]" if dims else ""
    perm_t = f" perm [{', '.join(map(str, perm))}]" if perm else ""
    ku_t = f" attributes {{kernel_unroll = {kernel_unroll} : i64}}" if kernel_unroll != 1 else ""
    args = ", ".join([f"{i} : i32" for i in idx] + [f"%a : {V}", f"%b : {V}"])
    body = "\n        ".join(lines)
    return f"""builtin.module {{
  amdgcn.module @m #amdgcn.target<gfx942> {{
    amdgcn.kernel @k {{
      %c7 = arith.constant 7 : i32
      %x0 = amdgcn.alloca : {V}
      %x = amdgcn.vop1 v_mov_b32_e32 %x0, %c7 : {V}, i32
      %y0 = amdgcn.alloca : {V}
      %y = amdgcn.vop1 v_mov_b32_e32 %y0, %c7 : {V}, i32
      %r:2 = amdgcn.loop {n}{dims_t}{perm_t} iter(%x, %y : {V}, {V}){ku_t} {{
      ^bb0({args}):
        {body}
        amdgcn.yield {y[0]}, {y[1]} : {V}, {V}
      }}
      %f0 = amdgcn.alloca : {V}
      %final = amdgcn.vop2 v_add_u32_e32 %f0, %r#0, %r#1 : {V}, {V}, {V}
      amdgcn.end
    }}
  }}
}}"""


def final_term(module):
    env, _ = run_kernel(module)
    for v, t in env.items():
        if getattr(v, "name_hint", None) == "final":
            return t
    raise AssertionError("no %final")


def expand(text):
    m = Parser(context(), text).parse_module()
    m.verify()
    want = final_term(m)
    schedule_loops(m)
    m.verify()
    assert not any(isinstance(o, LoopOp) and o.dims is not None for o in m.walk())
    return m, want, final_term(m)


def test_random_schedules_match_sequential_semantics():
    rng = random.Random(8)
    legal = illegal = kernels = 0
    for _ in range(150):
        nd = rng.randint(0, 3)
        dims = [rng.randint(1, 3) for _ in range(nd)]
        perm = rng.sample(range(nd), nd) if nd and rng.random() < 0.5 else None
        p = 1
        for d in dims:
            p *= d
        n = rng.randint(0, 4 * p + 3)
        scheds = []
        for _ in range(rng.randint(1, 5)):
            r = rng.random()
            if r < 0.3:
                scheds.append(None)
            else:
                scheds.append((rng.randint(0, 2), rng.choice([1, 1, 2, 3]), rng.randint(0, 2)))
        text = loop_text(n, dims, perm, scheds, swap=rng.random() < 0.5, kernel_unroll=rng.choice([1, 1, 2, 3]))
        try:
            m, want, got = expand(text)
        except Diagnostic as d:
            assert "before its definition" in d.message, d.message
            illegal += 1
            continue
        legal += 1
        kernels += any(isinstance(o, LoopOp) for o in m.walk())
        assert got == want, text
    assert legal >= 40 and illegal >= 5 and kernels >= 10, (legal, illegal, kernels)


@pytest.mark.parametrize("stages,n", [(1, 7), (2, 9), (3, 10), (2, 16), (4, 5), (1, 1), (2, 0)])
def test_pipelined_kernel_loop(stages, n):
    """One op per stage, chained: prologue, kernel loop, epilogue; exact for any n."""
    scheds = [(0, 1, s) for s in range(stages + 1)]
    m, want, got = expand(loop_text(n, [], None, scheds, pipe=True))
    assert got == want
    kern = [o for o in m.walk() if isinstance(o, LoopOp)]
    if n - stages >= 2:
        assert len(kern) == 1 and kern[0].trip_count == n - stages
    else:
        assert not kern

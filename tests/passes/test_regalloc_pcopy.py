"""Parallel copies (compaction's copies at one point) put in a safe order once registers
are known (``regalloc.pcopy.order``), and the move instructions they use (``isa.moves``).

Oracles: a parallel assignment evaluated directly (every source read, then every
destination written) for the ordering; llvm-mc for the instructions."""

from __future__ import annotations

import random
import subprocess

import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.moves import MOVES, SWAPS
from gcnforge.passes.regalloc.pcopy import order
from gcnforge.testing import require_llvm


def run(steps, regs: dict) -> dict:
    """Execute the steps one after another on a register file (dict)."""
    regs = dict(regs)
    for kind, (a, b) in steps:
        if kind == "swap":
            regs[a], regs[b] = regs[b], regs[a]
        else:
            regs[a] = regs[b]
    return regs


def parallel(pending: dict, regs: dict) -> dict:
    read = {d: regs[s] for d, s in pending.items()}
    return {**regs, **read}


@pytest.mark.parametrize("seed", range(200))
def test_order_equals_the_parallel_copy(seed):
    rnd = random.Random(seed)
    file = rnd.choice("vas")
    n = rnd.randrange(2, 10)
    regs = {(f, r): f"{f}{r}" for f in "vas" for r in range(n + 3)}
    # a random parallel copy: distinct destinations, sources anywhere (cycles, chains, fan-out)
    dsts = rnd.sample(range(n), rnd.randrange(1, n + 1))
    pending = {(file, d): (file, rnd.randrange(n)) for d in dsts}
    if rnd.random() < 0.5:  # a pure permutation: nothing but cycles
        perm = list(range(n))
        rnd.shuffle(perm)
        pending = {(file, d): (file, perm[d]) for d in range(n)}
    free = {f: ([n, n + 1] if rnd.random() < 0.5 else []) for f in "vas"}
    want = parallel(pending, regs)
    try:
        steps = order(pending, {f: list(r) for f, r in free.items()}, None)
    except Diagnostic as e:
        # only an SGPR / AGPR cycle with no temporary may fail (no exchange instruction)
        assert file not in SWAPS and not free[file] and not (file == "a" and free["v"]), e.message
        assert "s_xor" in e.message or "no free register" in e.message
        return
    got = run(steps, regs)
    temps = {(f, r) for f in "vas" for r in free[f]}
    assert {k: v for k, v in got.items() if k not in temps} == {k: v for k, v in want.items() if k not in temps}
    if not free[file] and file == "v":
        assert all(k == "move" or a[0] == "v" for k, (a, _b) in steps)


def test_cycle_uses_the_free_register_first():
    pending = {("v", 0): ("v", 1), ("v", 1): ("v", 0)}
    steps = order(pending, {"v": [7], "a": [], "s": []}, None)
    assert [k for k, _ in steps] == ["move"] * 3 and ("v", 7) in {r for _, regs in steps for r in regs}
    assert order(pending, {"v": [], "a": [], "s": []}, None) == [("swap", (("v", 0), ("v", 1)))]


def test_vgpr_cycle_prefers_a_swap_to_a_new_register():
    pending = {("v", 0): ("v", 1), ("v", 1): ("v", 0)}
    assert order(pending, {"v": [9]}, None, {"v": 4}) == [("swap", (("v", 0), ("v", 1)))]
    assert order(pending, {"v": [3]}, None, {"v": 4})[0] == ("move", (("v", 3), ("v", 0)))


def test_agpr_cycle_is_saved_in_a_vgpr():
    pending = {("a", 0): ("a", 1), ("a", 1): ("a", 0)}
    steps = order(pending, {"v": [3], "a": [], "s": []}, None)
    assert steps[0] == ("move", (("v", 3), ("a", 0)))  # v_accvgpr_read_b32 v3, a0
    assert run(steps, {("a", 0): "x", ("a", 1): "y", ("v", 3): "?"})[("a", 0)] == "y"


def test_sgpr_cycle_without_a_free_sgpr_is_an_error():
    with pytest.raises(Diagnostic) as e:
        order({("s", 0): ("s", 1), ("s", 1): ("s", 0)}, {"v": [1], "a": [], "s": []}, None)
    assert "SCC" in e.value.message


def test_moves_and_swaps_assemble_for_gfx942(tmp_path):
    """Every move / exchange the allocator may emit is a gfx942 instruction (llvm-mc)."""
    mc = require_llvm("llvm-mc")["llvm-mc"]
    regs = {("v", 1): "v1", ("v", 2): "v[2:3]", ("s", 1): "s1", ("s", 2): "s[2:3]", ("a", 1): "a1"}
    srcs = {("v", 1): "v4", ("v", 2): "v[4:5]", ("s", 1): "s4", ("s", 2): "s[4:5]", ("a", 1): "a4"}
    lines = [f"{m} {regs[(d, w)]}, {srcs[(s, w)]}" for (d, s, w), m in MOVES.items()]
    lines += [f"{m} v1, v4" for m in SWAPS.values()]
    out = subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True)
    assert out.returncode == 0 and "error" not in out.stderr, out.stderr
    assert out.stdout.count("encoding:") == len(lines)

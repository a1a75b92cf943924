"""Legality checks against brute force: every pair of memory-op instances compared."""

from __future__ import annotations

import random

from xdsl.parser import Parser

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.loop_ops import LoopOp
from gcnforge.schedule import legality
from gcnforge.schedule.dialect import context
from gcnforge.schedule.expand import LoopSchedule

V = "!amdgcn.vgpr"


def mem_loop(n, dims, ops) -> str:
    """ops: (kind 'w'|'r', (delay, rate, stage), bufs or None); no data dependences."""
    lines = []
    for x, (kind, s, bufs) in enumerate(ops):
        attrs = [f"sched = array<i64: {s[0]}, {s[1]}, {s[2]}>"]
        if bufs:
            attrs.insert(0, f"bufs = array<i64: {bufs[0]}, {bufs[1]}>")
        a = "{" + ", ".join(attrs) + "}"
        if kind == "w":
            lines.append(f"%w{x} = amdgcn.ds ds_write_b32 %addr, %val offset = 0 {a} : {V}, {V}")
        else:
            lines.append(f"%d{x} = amdgcn.alloca : {V}")
            lines.append(f"%r{x}, %t{x} = amdgcn.ds ds_read_b32 %d{x}, %addr offset = 0 {a} : {V}, {V}")
    idx = ", ".join(f"%i{k} : i32" for k in range(len(dims)))
    dims_t = f" dims [{', '.join(map(str, dims))}]" if dims else ""
    body = "\n      ".join(lines)
    return f"""amdgcn.module @m #amdgcn.target<gfx942> {{
  amdgcn.kernel @k {{
    %addr = amdgcn.alloca : {V}
    %val = amdgcn.alloca : {V}
    amdgcn.loop {n}{dims_t} {{
    ^bb0({idx}):
      {body}
      amdgcn.yield
    }}
    amdgcn.end
  }}
}}"""


def brute_force_illegal(ls: LoopSchedule) -> bool:
    p = ls.plan
    mem = []
    for op in ls.ops:
        if op.name != "amdgcn.ds":
            continue
        s = ls.sched[op]
        writes = op.mnemonic.startswith("ds_write")
        b = op.attributes.get("bufs")
        bufs = tuple(int(x) for x in b.get_values()) if b is not None else None
        for j in range(0, p.count, s.rate):
            mem.append((op, j, writes, bufs, (j, ls.pos[op]), p.emit_key(s, ls.pos[op], j)))
    for x in mem:
        for y in mem:
            if x[0] is y[0] or not (x[2] or y[2]):
                continue
            if x[3] and y[3] and x[3][0] == y[3][0] and (x[1] + x[3][1]) % x[3][0] != (y[1] + y[3][1]) % y[3][0]:
                continue  # different buffers
            if (x[4] < y[4]) != (x[5] < y[5]):
                return True
    return False


def test_memory_order_check_matches_brute_force():
    rng = random.Random(42)
    seen = {True: 0, False: 0}
    for _ in range(150):
        dims = [rng.randint(1, 3)] if rng.random() < 0.7 else []
        n = rng.randint(1, 9)
        ops = []
        for _ in range(rng.randint(2, 4)):
            s = (rng.randint(0, 2), rng.choice([1, 1, 2]), rng.randint(0, 1))
            bufs = (2, rng.randint(0, 1)) if rng.random() < 0.4 else None
            ops.append((rng.choice("wr"), s, bufs))
        m = Parser(context(), mem_loop(n, dims, ops)).parse_module()
        ls = LoopSchedule(next(o for o in m.walk() if isinstance(o, LoopOp)))
        want = brute_force_illegal(ls)
        try:
            legality.check_memory(ls)
            got = False
        except Diagnostic as d:
            got = True
            assert "may alias" in d.message and len(d.notes) == 2
        assert got == want, mem_loop(n, dims, ops)
        seen[want] += 1
    assert seen[True] >= 20 and seen[False] >= 20, seen

"""Random memory/ALU sequences through ``amdgcn-insert-waits{mode=deps}``, judged by an
independent worst-case model of the gfx942 counters (ISA guide 4.4): after
``s_waitcnt X(n)`` at most n operations of counter X are outstanding - for vmcnt, and for
lgkmcnt while only LDS is pending, those are the n youngest; with SMEM pending any n may
still be. Every read must find its producer certainly complete (safety), and each inserted
wait must be the weakest safe one: one more on that counter would not be (minimality)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gcnforge.builder import Module
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import KernelOp
from gcnforge.passes import pipeline as pl
from gcnforge.isa import waitcnt

KINDS = ("global", "ds", "smem", "valu")
LIMIT = {"vmcnt": 63, "lgkmcnt": 15}


def build(seq):
    """seq: (kind, reg) items. Loads write v[reg]/s[reg + 8]; 'valu' reads v[reg]."""
    m = Module("w")
    with m.kernel("w") as k:
        base = k.sgpr(0, 2)
        addr = k.vgpr(0)
        for kind, r in seq:
            if kind == "global":
                k.global_load_dword(k.vgpr(1 + r), addr, base)
            elif kind == "ds":
                k.ds_read_b32(k.vgpr(1 + r), addr)
            elif kind == "smem":
                k.s_load_dword(k.sgpr(8 + r), base, 0)
            else:
                k.v_add_u32(k.vgpr(20), k.sgpr(8 + r) if r % 2 else k.vgpr(1 + r), k.vgpr(1 + r))
        k.s_endpgm()
    return m


def simulate(ops, override=None):
    """Worst-case check of the instruction list; returns the first unsafe read or None.
    ``override`` = (index of an s_waitcnt, counter, count) replaces one wait's count."""
    pending = {"vmcnt": [], "lgkmcnt": []}  # oldest first: (writes, is_smem)
    for i, op in enumerate(ops):
        if op.mnemonic == "s_waitcnt":
            vm, _exp, lgkm = waitcnt.unpack(op.imm_values[0]).values()
            n = {"vmcnt": vm, "lgkmcnt": lgkm}
            if override and override[0] == i:
                n[override[1]] = override[2]
            for c, q in pending.items():
                if n[c] >= LIMIT[c]:
                    continue
                if c == "lgkmcnt" and any(s for _, s in q):
                    # out of order: only if none may remain do we know anything
                    if n[c] == 0:
                        q.clear()
                else:
                    del q[: max(0, len(q) - n[c])]
            continue
        regs = set()
        for a in op.args:
            t = a.type
            if hasattr(t, "is_allocated") and t.is_allocated:
                regs |= {(t.FILE, t.begin.data + j) for j in range(t.width)}
        writes = set(_writes(op))
        reads = regs - writes
        inf = op.info.inst
        own = {str(c) for c in inf.counter}
        for c, q in pending.items():
            for w, _ in q:
                if w & reads:
                    return i
                # a write racing an older load's return (WAW), except VMEM after VMEM,
                # which return in order
                if w & writes and not (c == "vmcnt" and own == {"vmcnt"}):
                    return i
        for c in inf.counter:
            pending[str(c)].append((set(_writes(op)), inf.sem == "smem"))
    return None


def _writes(op):
    out = []
    inf = op.info
    present = list(inf.ssa_slots)
    for s, a in zip(present, op.args):
        if s.is_def and hasattr(a.type, "is_allocated"):
            out += [(a.type.FILE, a.type.begin.data + j) for j in range(a.type.width)]
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 5)), min_size=1, max_size=30))
def test_waits_are_safe_and_minimal(seq):
    m = build(seq)
    pl.run(m.top, pl.parse("amdgcn-insert-waits{mode=deps}"))
    k = next(op for op in m.top.walk() if isinstance(op, KernelOp))
    ops = [op for op in k.walk() if isinstance(op, InstOp)]
    assert simulate(ops) is None
    for i, op in enumerate(ops):
        if op.mnemonic != "s_waitcnt":
            continue
        vm, _exp, lgkm = waitcnt.unpack(op.imm_values[0]).values()
        for c, n in (("vmcnt", vm), ("lgkmcnt", lgkm)):
            if n < LIMIT[c] - 1:
                assert simulate(ops, (i, c, n + 1)) is not None, f"{c}({n}) at {i} is stronger than needed"

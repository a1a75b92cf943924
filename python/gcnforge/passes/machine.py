"""What an allocated instruction op reads and writes, in physical register units.

The wait and hazard passes reason about registers after allocation. For each ``InstOp``
this gives, per ISA-table operand slot, the ``(file, index)`` units it names (``('v', 5)``,
``('s', 3)``, ``('a', 0)``; special registers as ``('x', 'vcc_lo')`` ...), plus the
table's implicit uses and definitions (exec, vcc, scc, m0).

Pre: register operands allocated (unallocated ones are ignored: nothing to say yet).
"""

from __future__ import annotations

from xdsl.ir import Operation

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.types import RegisterType, SpecialRegType
from gcnforge.isa import counters as isa_counters

_HALVES = {"vcc": ("vcc_lo", "vcc_hi"), "exec": ("exec_lo", "exec_hi")}
Unit = tuple[str, object]


def special_units(name: str) -> tuple[Unit, ...]:
    return tuple(("x", h) for h in _HALVES.get(name, (name,)))


def value_units(t) -> tuple[Unit, ...]:
    if isinstance(t, RegisterType) and t.is_allocated:
        return tuple((t.FILE, t.begin.data + k) for k in range(t.width))
    if isinstance(t, SpecialRegType):
        return special_units(t.reg.data)
    return ()


class MInst:
    """One instruction's machine view (a plain slotted class: ``@dataclass`` generated and
    compiled code for it at import, issue 15; nothing compares two of them)."""

    __slots__ = ("op", "mnemonic", "sem", "reads", "writes", "counters", "all_reads", "all_writes")

    def __init__(self, op: InstOp, mnemonic: str, sem: str, reads: dict[str, tuple[Unit, ...]] | None = None,
                 writes: dict[str, tuple[Unit, ...]] | None = None, counters: tuple[str, ...] = (),
                 all_reads: frozenset = frozenset(), all_writes: frozenset = frozenset()):
        self.op = op
        self.mnemonic = mnemonic
        self.sem = sem
        self.reads = {} if reads is None else reads  # slot name -> units
        self.writes = {} if writes is None else writes
        self.counters = counters
        self.all_reads = all_reads  # every unit read / written (set once by ``minst``)
        self.all_writes = all_writes

    def __repr__(self) -> str:
        return f"MInst({self.mnemonic}, reads={self.reads!r}, writes={self.writes!r})"


# (mnemonic, 'off' slots, operand types) -> the MInst fields that depend only on them. Ops
# with the same signature (most of an unrolled kernel) share one set of read-only tuples and
# dicts. Bounded: cleared when it grows past _SHAPES_MAX.
_SHAPES: dict[tuple, tuple] = {}
_SHAPES_MAX = 1 << 16


def minst(op: Operation) -> MInst | None:
    """The op's register units. ``reads``/``writes`` may be shared with other ops of the same
    signature: treat them as read-only."""
    if not isinstance(op, InstOp):
        return None
    attrs = op.attributes
    key = (attrs["inst"], attrs.get("off"), tuple([v.type for v in op.operands]))
    shape = _SHAPES.get(key)
    if shape is None:
        m = _minst(op)
        if m is None:
            return None
        if len(_SHAPES) >= _SHAPES_MAX:
            _SHAPES.clear()
        _SHAPES[key] = (m.mnemonic, m.sem, m.reads, m.writes, m.counters, m.all_reads, m.all_writes)
        return m
    mn, sem, reads, writes, counters, all_reads, all_writes = shape
    return MInst(op, mn, sem, reads, writes, counters, all_reads, all_writes)


def _minst(op: InstOp) -> MInst | None:
    inf = op.info
    if inf is None:
        return None
    inst = inf.inst
    m = MInst(op, inst.mnemonic, inst.sem, counters=isa_counters.raised(inst))
    offs = set(op.off_slots)
    present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs]
    for slot, arg in zip(present, op.args):
        units = value_units(arg.type)
        if not units:
            continue
        if slot.is_def:
            m.writes[slot.name] = units
            if slot.operand.role == "defuse":
                m.reads[slot.name] = units
        else:
            m.reads[slot.name] = units
    for o in inst.operands:
        if o.kind == "special" and o.text:
            (m.writes if o.role in ("def", "defuse") else m.reads)[o.name] = special_units(o.text)
    if inst.implicit_uses:
        m.reads["<implicit>"] = tuple(u for n in inst.implicit_uses for u in special_units(n))
    if inst.implicit_defs:
        m.writes["<implicit>"] = tuple(u for n in inst.implicit_defs for u in special_units(n))
    m.all_reads = frozenset(u for us in m.reads.values() for u in us)
    m.all_writes = frozenset(u for us in m.writes.values() for u in us)
    return m


_MISSING = object()


class MInstCache:
    """``minst`` computed once per op for one pass run: the waits and hazards passes walk
    blocks to a fixed point and revisit the same ops many times."""

    def __init__(self) -> None:
        self._cache: dict[int, MInst | None] = {}

    def _minst(self, op: Operation) -> MInst | None:
        k = id(op)
        m = self._cache.get(k, _MISSING)
        if m is _MISSING:
            m = self._cache[k] = minst(op)
        return m  # type: ignore[return-value]

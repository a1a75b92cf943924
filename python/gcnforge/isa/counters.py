"""The gfx942 wait-counter model: which counters an instruction raises, which event it is on
each, and when a counter's count can be trusted to retire operations in issue order.

Rules (AMD Instinct MI300 ISA Reference Guide 4.4 "Data Dependency Resolution"; LLVM 22
SIInsertWaitcnts for gfx9/gfx940, whose waits clang emits):

* vmcnt counts vector memory (MUBUF/MTBUF/GLOBAL/SCRATCH, loads, stores and atomics alike on
  gfx9: one VMEM event) and FLAT; lgkmcnt counts LDS, GDS, scalar memory (SMEM), messages
  (``s_sendmsg``) and FLAT; expcnt counts exports and GDS (gfx942 has no exports). The counters
  an instruction raises are the ISA table's ``Instruction.counter``.
* A counter retires in issue order while all its outstanding operations are of one event
  kind. SMEM completes out of order (a pending SMEM allows only ``lgkmcnt(0)``); a FLAT
  operation may go to LDS or memory, so while one is pending neither vmcnt nor lgkmcnt
  counts in order (``hasPendingFlat`` -> wait 0 on gfx9); two different events pending on one
  counter (LDS and a message, say) complete in no known order (``counterOutOfOrder`` /
  ``hasMixedPendingEvents``). Out of order, only a count of 0 proves an operation done.
* An ``s_barrier`` does not wait for memory: LDS writes must be waited for with
  ``lgkmcnt(0)`` before it for other waves to see them (ISA guide 4.4 / 9.x; LLVM's memory
  model emits ``s_waitcnt lgkmcnt(0)`` before a workgroup barrier that releases LDS).
"""

from __future__ import annotations

from collections.abc import Iterable

from gcnforge.isa.schema import Instruction

COUNTERS = ("vmcnt", "lgkmcnt", "expcnt")

# semantic class -> the event it is on every counter it raises
_EVENT = {
    "vmem_load": "vmem", "vmem_store": "vmem", "vmem_atomic": "vmem",
    "flat_load": "flat", "flat_store": "flat", "flat_atomic": "flat",
    "lds": "lds", "gds": "gds", "smem": "smem", "message": "message",
}
# What a work-group-scope release before ``s_barrier`` must see completed, per counter: the
# events of the operations to wait for. LLVM AMDGPUUsage, "Memory Model GFX942" code
# sequences, fence release / workgroup: ``s_waitcnt lgkm/vmcnt(0)``, "must happen after any
# preceding local/generic load/store/atomic"; vmcnt(0) omitted unless in tgsplit mode (the
# work-group's waves then share no vL1D). Measured: clang 22 -mcpu=gfx942 emits
# ``s_waitcnt lgkmcnt(0)`` between a ds_write_b32 and the s_barrier of
# fence(release, "workgroup") + s_barrier, nothing for a global store; with +tgsplit also
# ``s_waitcnt vmcnt(0)``. ``lds`` is the default release, ``global`` adds global memory (what
# an author asks for when other waves read its global stores after the barrier).
BARRIER_RELEASE: dict[str, dict[str, frozenset[str]]] = {
    "none": {},
    "lds": {"lgkmcnt": frozenset({"lds", "gds", "flat"})},
    "global": {"lgkmcnt": frozenset({"lds", "gds", "flat"}), "vmcnt": frozenset({"vmem", "flat"})},
}

# events that never complete in order on a counter
_UNORDERED = {"lgkmcnt": frozenset({"smem", "flat"}), "vmcnt": frozenset({"flat"})}


def raised(inst: Instruction) -> tuple[str, ...]:
    """The counters ``inst`` increments when it issues."""
    return tuple(str(c) for c in inst.counter)


def event(sem: str) -> str:
    """The event kind of an instruction of semantic class ``sem`` on its counters."""
    return _EVENT.get(sem, sem)


def always_unordered(counter: str, ev: str) -> bool:
    """Whether an ``ev`` operation completes out of order on ``counter`` whatever else is pending."""
    return ev in _UNORDERED.get(counter, ())


def in_order(counter: str, pending: Iterable[str]) -> bool:
    """Whether ``counter`` retires operations in issue order while the events ``pending`` are
    outstanding on it (so ``counter(N)`` proves all but the newest N done)."""
    evs = set(pending)
    return len(evs) <= 1 and not evs & _UNORDERED.get(counter, frozenset())

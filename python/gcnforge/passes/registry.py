"""The gcnforge passes by name, for ``gcnforge-opt -p`` and ``gcnforge compile``
(factories, so importing this stays cheap)."""

from __future__ import annotations


def _regalloc():
    from gcnforge.passes.regalloc_pass import RegAllocPass

    return RegAllocPass


def _lower_abi():
    from gcnforge.passes.lower_abi import LowerAbiPass

    return LowerAbiPass


def _waits():
    from gcnforge.passes.waits import InsertWaitsPass

    return InsertWaitsPass


def _hazards():
    from gcnforge.passes.hazards import HazardsPass

    return HazardsPass


def _inline():
    from gcnforge.passes.inline import InlinePass

    return InlinePass


def _check_alloc():
    from gcnforge.passes.check_alloc_pass import CheckAllocationPass

    return CheckAllocationPass


def _scheduling(name: str):
    """The scheduling passes live in ``gcnforge.schedule`` (loop expansion and lowering);
    they are registered here too so one name space serves gcnforge-opt and compile."""

    def factory():
        from gcnforge.schedule.passes import PASSES as SCHEDULE

        return SCHEDULE[name]()

    return factory


PASSES = {
    "amdgcn-schedule": _scheduling("amdgcn-schedule"),
    "amdgcn-lower-loops": _scheduling("amdgcn-lower-loops"),
    "amdgcn-check-allocation": _check_alloc,
    "amdgcn-inline": _inline,
    "amdgcn-hazards": _hazards,
    "amdgcn-insert-waits": _waits,
    "amdgcn-lower-abi": _lower_abi,
    "amdgcn-regalloc": _regalloc,
}

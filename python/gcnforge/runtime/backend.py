"""The backend protocol: what the launch API needs from a device.

Two implementations ship: ``hip`` (``gcnforge.runtime.hip_backend``, an AMD GPU through
hip-python) and ``emulator`` (``gcnforge.runtime.emulator_backend``, gcnforge's wave64
emulator). Device memory is addressed by plain integers (device virtual addresses), so the
packer can write them into the kernarg segment without knowing the backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class LaunchResult:
    """What one launch reports.

    ``seconds`` is the kernel's time: measured (HIP events) when ``modeled`` is False, or the
    timing model's prediction for a device (``perfmodel.timing``: an emulator launch with
    ``timing=``; ``timing`` holds its report, ``cycles`` its device cycles at ``clock_hz``).
    An emulator launch without ``timing=`` has no time: ``seconds`` and ``clock_hz`` are None
    and ``cycles`` is the emulator's issue-model count (instructions issued, one slot each, plus
    the waits it models; it ranks variants of one kernel, it is not a device time).
    ``stats`` is backend-specific detail (the emulator's RunStats); ``timing`` the
    ``perfmodel.timing.TimingReport`` of a launch under the emulator's timing mode;
    ``partial`` is True when that launch ran only a sample of the work-groups, so the
    outputs of the others were not written."""

    backend: str
    seconds: float | None = None
    cycles: int | None = None
    clock_hz: float | None = None
    modeled: bool = False
    stats: Any = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    timing: Any = None
    partial: bool = False


@runtime_checkable
class Backend(Protocol):
    """A device that can hold memory and run code objects.

    ``available()`` must be cheap and must not raise: it answers whether this backend can
    run here at all (hip-python importable and a GPU present, for HIP). ``arch`` is the
    device's target id (``gfx942:sramecc+:xnack-``) and is checked against every code
    object before a launch."""

    name: str

    def available(self) -> bool: ...

    @property
    def arch(self) -> str: ...

    def alloc(self, nbytes: int) -> int: ...

    def free(self, addr: int) -> None: ...

    def copy_to(self, addr: int, data: bytes) -> None: ...

    def copy_from(self, addr: int, n: int) -> bytes: ...

    def launch(self, code_object: Any, kernel_name: str, kernarg: bytes, grid: tuple[int, int, int],
               block: tuple[int, int, int], dynamic_lds: int = 0, sanitize: bool = False,
               stream: Any = None, trace: Any = None, sanitize_mode: str = "stop") -> LaunchResult: ...


def hidden_pointer(backend: Backend, kind: str) -> int:
    """Address of a runtime object for a hidden argument (printf buffer, hostcall buffer...)
    if the backend provides one (optional method ``hidden_pointer``), else 0 (null)."""
    fn = getattr(backend, "hidden_pointer", None)
    return int(fn(kind)) if fn is not None else 0

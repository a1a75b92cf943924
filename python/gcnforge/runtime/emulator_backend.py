"""The emulator as a runtime backend: ``gcnforge.emulator.Device`` behind the Backend
protocol.

A launch reports no time unless asked: its ``LaunchResult.seconds`` is None and ``cycles`` the
issue model's count (it ranks variants; it is not a device time). For a prediction of a
device's time pass ``timing="mi300x"`` (or ``"mi355x"``, or ``True`` for the default device of
the code object's target, ``perfmodel.profiles.for_target``) to a launch (``perfmodel.timing``):
``seconds`` is then that model's, marked ``modeled``; ``bench`` and ``tune`` on the emulator
use the target's default device unless given one.
"""

from __future__ import annotations

import inspect
from typing import Any

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.target import TARGETS
from gcnforge.perfmodel import profiles
from gcnforge.runtime.backend import LaunchResult

EMULATED_TARGET = "gfx942"  # the default; no sramecc/xnack setting: code objects built either way run
EMULATED_TARGETS = tuple(TARGETS)  # every target isa.target describes (gfx942, gfx950)


class EmulatorBackend:
    name = "emulator"

    def __init__(self, max_instructions: int | None = None):
        self._device: Any = None
        self.unavailable_reason: str | None = None
        self.max_instructions = max_instructions

    # The emulator package is imported lazily so that the runtime loads (and the HIP path
    # works) even when the emulator cannot be imported.
    def _dev(self) -> Any:
        if self._device is None:
            try:
                from gcnforge.emulator import Device
            except ImportError as e:
                raise Diagnostic(f"the emulator is not available: {e}") from None
            self._device = Device()
        return self._device

    def available(self) -> bool:
        try:
            import gcnforge.emulator as emu
        except ImportError as e:  # pragma: no cover - the package is part of gcnforge
            self.unavailable_reason = f"cannot import gcnforge.emulator: {e}"
            return False
        if not hasattr(emu, "Device"):
            self.unavailable_reason = "gcnforge.emulator has no Device (emulator not built yet)"
            return False
        return True

    @property
    def arch(self) -> str:
        return EMULATED_TARGET

    def arch_for(self, code_object_target: str | None) -> str:
        """The target this device runs a code object for: the code object's own processor
        when the emulator knows it (a launch emulates that target), else ``arch``."""
        from gcnforge.binary.target_id import parse_target_id

        if code_object_target:
            try:
                proc = parse_target_id(code_object_target).processor
            except Diagnostic:
                return EMULATED_TARGET
            if proc in EMULATED_TARGETS:
                return proc
        return EMULATED_TARGET

    @property
    def cu_count(self) -> int:
        """CUs of the default target's device (MI300X); ``profile_for`` gives a code object's."""
        return profiles.for_target(EMULATED_TARGET).cus

    def profile_for(self, code_object_target: str | None):
        """The device profile a code object's launches are timed with: its target's default
        device (gfx942 -> MI300X, gfx950 -> MI355X: ``cus``, ``clock_hz``)."""
        return profiles.for_target(self.arch_for(code_object_target))

    def alloc(self, nbytes: int) -> int:
        return int(self._dev().memory.alloc(int(nbytes), align=256))

    def label(self, addr: int, name: str) -> None:
        """Name an allocation (a kernel argument's name): diagnostics name the array."""
        self._dev().memory.label(addr, name)

    def free(self, addr: int) -> None:
        mem = self._dev().memory if self._device is not None else None
        if mem is not None and hasattr(mem, "free"):
            mem.free(addr)

    def copy_to(self, addr: int, data: bytes) -> None:
        self._dev().memory.write(addr, bytes(data))

    def copy_from(self, addr: int, n: int) -> bytes:
        return bytes(self._dev().memory.read(addr, n))

    def launch(self, code_object: Any, kernel_name: str, kernarg: bytes, grid: tuple[int, int, int],
               block: tuple[int, int, int], dynamic_lds: int = 0, sanitize: bool = False,
               stream: Any = None, trace: Any = None, sanitize_mode: str = "stop", timing: Any = None,
               flops: float | None = None, trace_out: Any = None, timing_complete: bool = False,
               sanitize_suppress: Any = None, progress: Any = None, timing_sample: int | None = None,
               timing_restore: tuple[int, ...] = ()) -> LaunchResult:
        """Run to completion (the emulator is synchronous; ``stream`` is accepted and ignored
        so code written for the HIP backend runs unchanged). ``trace(event)`` is called before
        every executed instruction and ``sanitize_mode`` is 'stop' (raise the first report) or
        'continue' (collect them in ``result.stats.reports``, counts per site in
        ``result.stats.report_counts``); ``sanitize_suppress`` (a suppression file's path or a
        ``Suppressions``) silences what its rules match: see ``Device.run``. Under ``timing``:
        ``timing_sample`` caps the work-groups emulated (``timing_mode.run_timed``'s
        ``max_sample``), ``timing_restore`` lists addresses whose allocations are put back as
        they were once a sampled launch is done (its outputs would be partial)."""
        if sanitize_mode not in ("stop", "continue"):
            raise Diagnostic(f"sanitize_mode must be 'stop' or 'continue', got {sanitize_mode!r}")
        dev = self._dev()
        kw: dict[str, Any] = {"sanitize": sanitize, "sanitize_mode": sanitize_mode}
        if sanitize_suppress is not None:
            from gcnforge.emulator.suppressions import Suppressions

            if not sanitize:
                raise Diagnostic("sanitize_suppress= silences sanitizer reports: pass sanitize=True too")
            kw["sanitize_suppress"] = (sanitize_suppress if isinstance(sanitize_suppress, Suppressions)
                                       else Suppressions.load(str(sanitize_suppress)))
        if trace is not None:
            kw["trace"] = trace
        if progress is not None:  # progress(done, total) per batch of work-groups (a timed run: the sample's)
            kw["progress"] = progress
        params = inspect.signature(dev.run).parameters
        if self.max_instructions is not None and "max_instructions" in params:
            kw["max_instructions"] = self.max_instructions
        if dynamic_lds:
            if "dynamic_lds" not in params:
                raise Diagnostic("the emulator cannot launch with dynamic LDS yet "
                                 f"({dynamic_lds} bytes requested)")
            kw["dynamic_lds"] = dynamic_lds
        # Compiled code reads the kernarg segment with wide scalar loads that may run past its
        # declared end (clang 22 emits s_load_dwordx4 at offset 24 of a 36-byte segment); GPU
        # runtimes hand out kernarg memory in larger aligned blocks, so pad with zeros to 64.
        padded = bytes(kernarg).ljust(max(64, -(-len(kernarg) // 64) * 64), b"\0")
        if timing is not None:
            return self._launch_timed(dev, code_object, kernel_name, padded, grid, block, timing, flops,
                                      trace_out, kw, timing_complete, timing_sample, timing_restore)
        try:
            stats = dev.run(code_object, kernel_name, padded, tuple(grid), tuple(block), **kw)
        except ImportError as e:  # a part of the emulator (e.g. the sanitizer) not present
            raise Diagnostic(f"the emulator cannot run this launch: {e}") from None
        return LaunchResult(backend=self.name, seconds=None, cycles=getattr(stats, "cycles", None), clock_hz=None,
                            modeled=True, stats=stats,
                            notes=("no time: cycles are the emulator's issue-model count (pass timing= for a "
                                   "device's modeled time)",))

    def _launch_timed(self, dev, code_object, kernel_name, kernarg, grid, block, timing, flops, trace_out, kw,
                      complete=False, sample=None, restore=()):
        from gcnforge.emulator.timing_mode import MAX_SAMPLE, run_timed

        if "trace" in kw:
            raise Diagnostic("trace= and timing= cannot be combined (the timing mode uses the trace hook)")
        saved = _snapshot(dev.memory, restore)
        stats, rep = run_timed(dev, code_object, kernel_name, kernarg, grid, block, timing, flops=flops,
                               keep_slices=trace_out is not None, complete=complete,
                               max_sample=MAX_SAMPLE if sample is None else sample, **kw)
        if trace_out is not None:
            from gcnforge.perfmodel.trace_json import write_trace

            write_trace(rep, trace_out)
        sampled = rep.sampled < rep.workgroups and not complete
        notes = (f"modeled: {rep.device} timing model (perfmodel.timing)",)
        if sampled and saved:
            for addr, data in saved:
                dev.memory.write(addr, data)
            notes += (f"outputs RESTORED: {rep.sampled} of {rep.workgroups} work-groups ran; every buffer the "
                      "kernel may write is back as it was before the launch",)
        elif sampled:
            notes += (f"outputs PARTIAL: only {rep.sampled} of {rep.workgroups} work-groups ran "
                      f"(timing_complete=True runs the rest untimed; timing_restore=True leaves the buffers as "
                      "they were)",)
        return LaunchResult(backend=self.name, seconds=rep.seconds, cycles=round(rep.cycles), clock_hz=rep.clock_hz,
                            modeled=True, stats=stats, timing=rep, notes=notes, partial=sampled and not saved)

    def __repr__(self) -> str:
        return f"EmulatorBackend({', '.join(EMULATED_TARGETS)})"


def _snapshot(memory, addrs) -> list[tuple[int, bytes]]:
    """The contents of the allocations holding ``addrs`` (each once)."""
    out, seen = [], set()
    for a in addrs:
        al = memory.find(a)
        if al is not None and al.addr not in seen:
            seen.add(al.addr)
            out.append((al.addr, bytes(memory.read(al.addr, al.size))))
    return out

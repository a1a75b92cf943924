"""``bench(kernel, *args, ...)``: per-launch kernel times.

On a GPU the times are measured with HIP events around each launch. On the emulator they
are the timing model's predictions (``perfmodel.timing``) for the device ``timing=`` names,
by default the code object's target's default device (MI300X for gfx942, MI355X for gfx950),
marked ``modeled``; the emulator is deterministic, so one launch is enough there unless asked
otherwise.

NumPy arrays passed for pointers are copied to the device once, before the first launch,
and copied back once after the last, so copies are not timed.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.api import Kernel
from gcnforge.runtime.buffers import DeviceBuffer, to_device


@dataclass(frozen=True)
class BenchResult:
    kernel: str
    backend: str
    seconds: tuple[float, ...]  # one per timed launch
    modeled: bool
    clock_hz: float | None = None
    cycles: int | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def label(self) -> str:
        if self.modeled:
            clk = f" at {self.clock_hz / 1e6:.0f} MHz" if self.clock_hz else ""
            return f"modeled (timing model{clk})"
        return "measured (HIP events)"

    def __str__(self) -> str:
        return f"{self.kernel} on {self.backend}: median {self.median * 1e6:.3f} us over {len(self.seconds)} launch(es), {self.label}"


def bench(kernel: Kernel, *args: object, grid: object, block: object = None, warmup: int | None = None,
          repeat: int | None = None, device: object = None, **kwargs: object) -> BenchResult:
    backend = kernel.resolve_device(device, [*args, *kwargs.values()])  # type: ignore[arg-type]
    modeled_backend = backend.name == "emulator"
    if modeled_backend:  # an untimed emulator launch has no time (LaunchResult): predict one
        kwargs.setdefault("timing", True)
    warmup = (0 if modeled_backend else 2) if warmup is None else warmup
    repeat = (1 if modeled_backend else 20) if repeat is None else repeat
    if repeat < 1 or warmup < 0:
        raise Diagnostic(f"bench: repeat must be >= 1 and warmup >= 0 (got {repeat}, {warmup})")

    staged: list[tuple[DeviceBuffer, np.ndarray]] = []

    def stage(v: object) -> object:
        if isinstance(v, np.ndarray):
            buf = to_device(v, backend)
            if v.flags.writeable:
                staged.append((buf, v))
            return buf
        return v

    dargs = [stage(a) for a in args]
    dkw = {k: stage(v) for k, v in kwargs.items()}
    times: list[float] = []
    cycles = clock = None
    modeled = False
    for i in range(warmup + repeat):
        r = kernel(*dargs, grid=grid, block=block, device=backend, **dkw)
        if r.seconds is None:
            raise Diagnostic(f"the {backend.name} backend reported no time for '{kernel.name}'")
        if i >= warmup:
            times.append(r.seconds)
            cycles, clock, modeled = r.cycles, r.clock_hz, r.modeled
    for buf, arr in staged:
        arr[...] = buf.numpy().reshape(arr.shape)
        buf.free()
    return BenchResult(kernel.name, backend.name, tuple(times), modeled, clock, cycles)


def wall_time(fn: Callable[[], object], repeat: int = 3) -> float:
    """Median host wall time of ``fn()`` (end-to-end tuning: pre/post-processing included)."""
    import time

    ts = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)

"""The data of ``gcnforge tune``: a family's ``Variant``, the ``KernelFamily`` defaults, one
``Trial``'s outcome, and running one trial (``run_trial``: the family's launches, the check
against its reference, the time). ``gcnforge.runtime.tuning`` documents the family protocol;
this module is what a worker process needs, without the sweep's orchestration."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.api import Kernel


@dataclass(frozen=True)
class Variant:
    name: str
    kernel: str
    params: dict[str, Any] = field(default_factory=dict)


class KernelFamily:
    """Defaults for families; override what your family needs."""

    name = "family"
    dtype = "f32"
    target = "gfx942"
    rtol = 1e-5
    atol = 1e-5
    timing_check = "whole"  # or "sampled": see the module docstring
    # e2e on a modeled device adds the measured host time outside launches; an operation that
    # is all device work (its host side is only the emulator's array bookkeeping, e.g. the fused
    # MoE layer) sets False: its e2e time is the predicted total of its launches (deterministic)
    host_time = True
    op = "gemm"
    out_dtype = ""

    def constraints(self, variant: Variant) -> str:
        return ""

    def rates(self, shape: tuple[int, ...], us: float) -> tuple[float, float] | None:
        return None

    def variants(self) -> Iterable[Variant]:
        raise NotImplementedError

    def build(self, variant: Variant) -> bytes | str:
        raise NotImplementedError

    def make_inputs(self, shape: tuple[int, ...], rng: np.random.Generator) -> dict[str, Any]:
        raise NotImplementedError

    def reference(self, shape: tuple[int, ...], inputs: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def call(self, kernel: Kernel, variant: Variant, shape: tuple[int, ...], inputs: dict[str, Any],
             device: Any) -> np.ndarray:
        raise NotImplementedError

    def supports(self, variant: Variant, shape: tuple[int, ...]) -> bool:
        return True

    def features(self, variant: Variant) -> dict[str, bool]:
        return {}

    def layout(self, variant: Variant) -> str:
        return ""

    def e2e(self, kernel: Kernel, variant: Variant, shape: tuple[int, ...], inputs: dict[str, Any],
            device: Any) -> np.ndarray:
        return self.call(kernel, variant, shape, inputs, device)


@dataclass
class Trial:
    shape: tuple[int, ...]
    variant: Variant
    status: str  # "ok" | "build-failed" | "launch-failed" | "mismatch" | "unsupported" | "pruned"
    seconds: float | None = None
    max_error: float | None = None
    message: str = ""
    time_kind: str = ""


class TimedKernel:
    """Forwards launches to a Kernel and keeps their LaunchResults, so a family's ``call``
    can launch however it likes while the engine sees the kernel times."""

    def __init__(self, kernel: Kernel, timing: Any = None):
        self._k = kernel
        self.timing = timing  # a device profile: launches run the emulator's timing mode
        self.results: list = []
        self.launch_walls: list[float] = []  # host time spent inside each launch

    def __call__(self, *a, **kw):
        if self.timing is not None:
            kw.setdefault("timing", self.timing)
        t0 = time.perf_counter()
        r = self._k(*a, **kw)
        self.launch_walls.append(time.perf_counter() - t0)
        self.results.append(r)
        return r

    @property
    def untimed(self) -> Kernel:
        """The kernel itself: its launches are neither timed nor recorded (a family's own checks
        beside the timed launch, e.g. a whole grid at a reduced shape)."""
        return self._k

    def track(self, kernel: Kernel) -> TimedKernel:
        """Another kernel (e.g. ``self.module[name]``, a sibling in the same code object) whose
        launches are timed and recorded here too: an operation of several kernels (a fused MoE
        layer) is one trial whose time is the sum of all its launches."""
        t = TimedKernel(kernel, self.timing)
        t.results, t.launch_walls = self.results, self.launch_walls  # shared: one trial's record
        return t

    def __getattr__(self, name):
        return getattr(self._k, name)


def _copy_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}


def run_trial(family, kernel, v, shape, inputs0, expect, backend, e2e, repeat, timing=None) -> Trial:
    """Launch ``v`` on ``shape`` through the family's ``call`` (or ``e2e``), check the first run's
    result against ``expect``, and time ``repeat`` runs (their median)."""
    times = []
    err = None
    modeled = False
    note = ""
    for i in range(repeat):
        tk = TimedKernel(kernel, timing)
        inputs = _copy_inputs(inputs0)
        try:
            t0 = time.perf_counter()
            out = (family.e2e if e2e else family.call)(tk, v, shape, inputs, backend)
            wall = time.perf_counter() - t0
        except Diagnostic as d:
            return Trial(shape, v, "launch-failed", message=str(d).splitlines()[0])
        if not tk.results:
            return Trial(shape, v, "launch-failed", message="call() launched no kernel")
        if i == 0:
            sampled = [r.timing for r in tk.results
                       if getattr(r, "timing", None) is not None and r.timing.sampled < r.timing.workgroups]
            if sampled and getattr(family, "timing_check", "whole") == "sampled":
                note = "checked the sampled work-groups only"
            elif sampled:  # partial outputs: check a whole-grid launch without the timing mode
                try:
                    out = family.call(TimedKernel(kernel), v, shape, _copy_inputs(inputs0), backend)
                except Diagnostic as d:
                    return Trial(shape, v, "launch-failed", message=str(d).splitlines()[0])
            got = np.asarray(out)
            if got.shape != expect.shape:
                return Trial(shape, v, "mismatch", message=f"result shape {got.shape}, expected {expect.shape}")
            diff = np.abs(got.astype(np.float64) - expect.astype(np.float64))
            err = float(diff.max()) if diff.size else 0.0
            if not np.allclose(got, expect, rtol=family.rtol, atol=family.atol, equal_nan=True):
                return Trial(shape, v, "mismatch", max_error=err,
                             message=f"max |error| {err:.3g} > rtol {family.rtol} / atol {family.atol}")
        ksec = [r.seconds for r in tk.results if r.seconds is not None]
        if len(ksec) != len(tk.results):
            return Trial(shape, v, "launch-failed", message="the backend reported no kernel time")
        modeled = any(r.modeled for r in tk.results)
        if e2e and modeled:
            # device work modeled, host work (wall time outside the launches) measured
            host = max(0.0, wall - sum(tk.launch_walls)) if getattr(family, "host_time", True) else 0.0
            times.append(sum(ksec) + host)
        elif e2e:
            times.append(wall)
        else:
            times.append(sum(ksec))
    return Trial(shape, v, "ok", seconds=float(np.median(times)), max_error=err, message=note,
                 time_kind=("e2e-" if e2e else "") + ("modeled" if modeled else "measured"))



"""Measured GPU times next to the timing model's predictions: the model's calibration data.

``record_measured(path)`` is a context manager: while it is active, every launch that runs on
a GPU (a ``LaunchResult`` with a measured time) is replayed on the emulator in timing mode,
on copies of the inputs taken before the GPU ran, under the device profile that describes
that GPU (``perfmodel.profiles.match``); one CSV row per launch gives both times. The
integration tests write it with ``pytest integration_test --device hip`` (README, "On a
GPU"); the file is what a user sends back to calibrate the model on real hardware.
"""

from __future__ import annotations

import contextlib
import csv
import logging
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from gcnforge.diagnostics import Diagnostic

log = logging.getLogger("gcnforge.runtime")

COLUMNS = ("kernel", "code_object", "device", "arch", "grid", "block", "measured_us", "profile",
           "predicted_us", "ratio", "limiter", "note")

_active: list[MeasuredLog] = []


class MeasuredLog:
    """Rows of (measured, predicted) written to ``path`` as launches happen."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.rows = 0
        self._fh = self.path.open("w", newline="")
        self._csv = csv.writer(self._fh)
        self._csv.writerow(COLUMNS)

    def snapshot(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Copies of the array arguments before the GPU writes them (inputs for the replay)."""
        cp = lambda v: v.copy() if isinstance(v, np.ndarray) else v  # noqa: E731
        return tuple(cp(a) for a in args), {k: cp(v) for k, v in kwargs.items()}

    def add(self, kernel: Any, snap: tuple[tuple, dict], grid, block, dynamic_lds: int, result: Any,
            backend: Any) -> None:
        from gcnforge.perfmodel import profiles

        args, kwargs = snap
        measured = result.seconds * 1e6 if result.seconds is not None else None
        prof, why = profiles.match(backend.arch, backend.cu_count, getattr(backend, "product_name", ""))
        predicted, limiter, note = None, "", why
        if prof is None:
            note = f"no timing profile: {why}"
        else:
            try:
                r = kernel(*args, grid=grid, block=block, dynamic_lds=dynamic_lds, device="emulator",
                           timing=prof, **kwargs)
                predicted, limiter = r.timing.us, r.timing.limiter
            except Diagnostic as d:  # the replay's failure is recorded, the GPU run stands
                note = f"replay failed: {d.message}"
        ratio = f"{predicted / measured:.3f}" if predicted and measured else ""
        self._csv.writerow((kernel.name, kernel.module.name, backend.name, backend.arch, "x".join(map(str, grid)),
                            "x".join(map(str, block)), f"{measured:.3f}" if measured is not None else "",
                            prof.name if prof else "", f"{predicted:.3f}" if predicted is not None else "", ratio,
                            limiter, note))
        self._fh.flush()
        self.rows += 1

    def close(self) -> None:
        self._fh.close()


@contextlib.contextmanager
def record_measured(path: str | Path) -> Iterator[MeasuredLog]:
    """Record every GPU launch's measured time and its prediction into the CSV at ``path``."""
    m = MeasuredLog(path)
    _active.append(m)
    try:
        yield m
    finally:
        _active.remove(m)
        m.close()


def active() -> MeasuredLog | None:
    return _active[-1] if _active else None

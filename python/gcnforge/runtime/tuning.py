"""The tuning engine behind ``gcnforge tune``: for a kernel family, build every variant,
check each against the family's reference on each problem shape, time the ones that pass,
and write the fastest per shape as tuned rows of a registry CSV.

A family is any object with this shape (subclass ``KernelFamily`` for the defaults):

* ``name``, ``dtype``, ``target`` (``gfx942``), ``rtol``/``atol`` for the check;
* ``variants() -> iterable of Variant`` (name, kernel symbol, params such as tile_m/tile_n/
  tile_k/splitk/block; params become CSV columns);
* ``build(variant) -> bytes | str``: code-object bytes, or assembly text that
  ``gcnforge.binary.assemble`` turns into a code object (so variants can come from the
  compiler, from hand-written ``.s`` templates, or from any other toolchain);
* ``make_inputs(shape, rng) -> dict`` and ``reference(shape, inputs) -> ndarray``;
* ``call(kernel, variant, shape, inputs, device) -> ndarray``: launch (as many times and
  kernels as the operation needs) and return the result;
* optional ``supports(variant, shape) -> bool``, ``features(variant) -> dict`` (bias,
  preshuffle), ``layout(variant) -> str`` (slots16 spec for the CSV), and ``e2e(kernel,
  variant, shape, inputs, device)`` — the whole operation including its pre- and
  post-processing, timed in end-to-end mode;
* optional registry columns: ``op`` (default ``gemm``), ``out_dtype``, ``constraints(variant)
  -> str`` (the shapes a code object accepts, e.g. ``"N=256;K=5120"`` for compile-time sizes),
  ``rates(shape, us) -> (tflops, GB/s)`` (aiter's ``tflops``/``bw`` columns).

Timing mode (``timing=`` a device profile): a launch of a large grid emulates only a sample of
work-groups, so its outputs are partial. The check then comes from a second, untimed launch
of the whole grid (``timing_check = "whole"``, the default); a family whose grids are too
large to emulate whole sets ``timing_check = "sampled"``, and its ``call`` / ``reference``
compare only what the sampled work-groups compute (the trial's message says so).

Times: kernel mode sums the LaunchResults of the launches ``call`` makes (HIP events on a
GPU; modeled emulator cycles otherwise). End-to-end mode measures host wall time of
``e2e``; on the emulator, where wall time says nothing about a GPU, it is the modeled
kernel time plus the measured host time outside launches.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.api import Kernel, load
from gcnforge.runtime.devices import get_device
from gcnforge.runtime.registry import Entry, write_csv


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
    status: str  # "ok" | "build-failed" | "launch-failed" | "mismatch" | "unsupported"
    seconds: float | None = None
    max_error: float | None = None
    message: str = ""
    time_kind: str = ""


class _TimedKernel:
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

    def __getattr__(self, name):
        return getattr(self._k, name)


@dataclass
class TuneReport:
    trials: list[Trial]
    winners: dict[tuple[int, ...], Trial]
    csv_path: Path | None
    time_kind: str


def _stage_code_object(family: Any, v: Variant, co_dir: Path) -> Path:
    built = family.build(v)
    if isinstance(built, str):
        from gcnforge.binary import assemble

        built = assemble(built, target=family.target, filename=f"<{v.name}.s>")
    if not isinstance(built, (bytes, bytearray)):
        raise Diagnostic(f"variant '{v.name}': build() must return code-object bytes or assembly text, "
                         f"got {type(built).__name__}")
    path = co_dir / f"{v.name}.co"
    path.write_bytes(bytes(built))
    return path


def tune(family: Any, shapes: Sequence[tuple[int, ...]], out_csv: str | Path | None = None, *,
         device: Any = None, e2e: bool = False, repeat: int | None = None, seed: int = 0,
         progress: Callable[[str], None] | None = None, console: Any = None, timing: Any = None,
         comments: Sequence[str] = ()) -> TuneReport:
    """Run the search; write winners (one tuned row per shape) to ``out_csv`` if given.
    ``timing``: a device profile name (``mi300x``...) -- on the emulator, rank variants by the
    timing model's predicted time on that device instead of the emulator's issue cycles (the rows'
    ``cu_num`` is then the profile's CU count). ``comments``: lines for the CSV's comment header."""
    variants = list(family.variants())
    if not variants:
        raise Diagnostic(f"family '{family.name}' has no variants")
    names = [v.name for v in variants]
    if len(set(names)) != len(names):
        raise Diagnostic(f"family '{family.name}': variant names must be unique")
    backend = get_device(device, family.target)
    if timing is not None:
        if backend.name != "emulator":
            raise Diagnostic(f"timing={timing!r} predicts with the emulator's timing mode; the trials run on "
                             f"{backend.name} (pass device='emulator')")
        from gcnforge.perfmodel import profiles

        from gcnforge.binary.target_id import parse_target_id

        # a device of the family's target (True / 'auto': its default; another target's: a Diagnostic)
        timing = profiles.resolve(timing, parse_target_id(family.target).processor)
    # the emulator is deterministic: one timed run per trial unless asked otherwise
    repeat = (1 if backend.name == "emulator" else 5) if repeat is None else max(1, repeat)
    co_dir = (Path(out_csv).parent if out_csv else Path.cwd()) / f"{family.name}_co"
    co_dir.mkdir(parents=True, exist_ok=True)

    kernels: dict[str, Kernel | Trial] = {}
    trials: list[Trial] = []
    total = len(variants) * (1 + len(shapes))  # one build per variant, one trial per shape
    bar = _Progress(total, console) if progress is None else None
    say = progress or (bar.advance if bar else (lambda s: None))
    try:
        for v in variants:
            say(f"{family.name}: build {v.name}")
            try:
                path = _stage_code_object(family, v, co_dir)
                kernels[v.name] = load(path).kernel(v.kernel)
            except Diagnostic as d:
                kernels[v.name] = Trial((), v, "build-failed", message=str(d).splitlines()[0])
        for shape in shapes:
            rng = np.random.default_rng(seed)
            inputs0 = family.make_inputs(tuple(shape), rng)
            expect = np.asarray(family.reference(tuple(shape), inputs0))
            for v in variants:
                say(f"{family.name} {'x'.join(map(str, shape))} {v.name}")
                k = kernels[v.name]
                if isinstance(k, Trial):
                    trials.append(Trial(tuple(shape), v, k.status, message=k.message))
                    continue
                if not family.supports(v, tuple(shape)):
                    trials.append(Trial(tuple(shape), v, "unsupported"))
                    continue
                trials.append(_trial(family, k, v, tuple(shape), inputs0, expect, backend, e2e, repeat, timing))
    finally:
        if bar:
            bar.close()

    winners: dict[tuple[int, ...], Trial] = {}
    for t in trials:
        if t.status == "ok" and (t.shape not in winners or t.seconds < winners[t.shape].seconds):  # type: ignore[operator]
            winners[t.shape] = t
    kinds = sorted({t.time_kind for t in trials if t.status == "ok"})
    kind = "/".join(kinds) or ("e2e" if e2e else "none")
    if out_csv is not None:
        cus = getattr(timing, "cus", None)
        write_csv(out_csv, [_entry(family, t, co_dir, cus) for t in winners.values()], comments=comments)
    return TuneReport(trials, winners, Path(out_csv) if out_csv else None, kind)


def _copy_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}


def _trial(family, kernel, v, shape, inputs0, expect, backend, e2e, repeat, timing=None) -> Trial:
    times = []
    err = None
    modeled = False
    note = ""
    for i in range(repeat):
        tk = _TimedKernel(kernel, timing)
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
                    out = family.call(_TimedKernel(kernel), v, shape, _copy_inputs(inputs0), backend)
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
            times.append(sum(ksec) + max(0.0, wall - sum(tk.launch_walls)))
        elif e2e:
            times.append(wall)
        else:
            times.append(sum(ksec))
    return Trial(shape, v, "ok", seconds=float(np.median(times)), max_error=err, message=note,
                 time_kind=("e2e-" if e2e else "") + ("modeled" if modeled else "measured"))


def _entry(family, t: Trial, co_dir: Path, cu_num: int | None = None) -> Entry:
    p = dict(t.variant.params)
    feats = family.features(t.variant)
    shape = tuple(t.shape) + (1,) * (3 - len(t.shape))
    known = {"tile_m", "tile_n", "tile_k", "splitk", "block"}
    us = t.seconds * 1e6  # type: ignore[operator]
    rates = getattr(family, "rates", lambda s, u: None)(tuple(t.shape), us)
    cons = getattr(family, "constraints", lambda v: "")(t.variant)
    return Entry(
        kernel=t.variant.kernel, code_object=co_dir / f"{t.variant.name}.co", target=family.target,
        dtype=family.dtype, tile_m=int(p.get("tile_m", 1)), tile_n=int(p.get("tile_n", 1)),
        tile_k=int(p.get("tile_k", 1)), splitk=int(p.get("splitk", 1)), bias=bool(feats.get("bias", False)),
        preshuffle=bool(feats.get("preshuffle", False)), block=int(p.get("block", 256)),
        layout=family.layout(t.variant), shape=(int(shape[0]), int(shape[1]), int(shape[2])),
        us=us, time_kind=t.time_kind, op=getattr(family, "op", "gemm"), out_dtype=getattr(family, "out_dtype", ""),
        cu_num=cu_num, tflops=rates[0] if rates else None, bw=rates[1] if rates else None, constraints=cons,
        extra={"variant": t.variant.name, **{k: str(v) for k, v in p.items() if k not in known}})


class _Progress:
    """A rich progress bar (to stderr), silent when not attached to a terminal."""

    def __init__(self, total: int, console: Any = None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TimeElapsedColumn(), console=console or Console(stderr=True), transient=True)
        self._p.start()
        self._t = self._p.add_task("tuning", total=total)
        self._started = False

    def advance(self, label: str) -> None:
        if self._started:
            self._p.advance(self._t)
        self._started = True
        self._p.update(self._t, description=label)

    def close(self) -> None:
        if self._started:
            self._p.advance(self._t)
        self._p.stop()


def results_table(report: TuneReport):
    """A rich Table of every trial, winners marked."""
    from rich.table import Table

    tab = Table(title=f"tuning results ({report.time_kind} times)")
    for col in ("shape", "variant", "status", "time (us)", "max |err|", ""):
        tab.add_column(col)
    for t in report.trials:
        win = report.winners.get(t.shape) is t
        tab.add_row("x".join(map(str, t.shape)), t.variant.name, t.status if not t.message else f"{t.status}: {t.message}",
                    "" if t.seconds is None else f"{t.seconds * 1e6:.3f}",
                    "" if t.max_error is None else f"{t.max_error:.2e}", "best" if win else "")
    return tab

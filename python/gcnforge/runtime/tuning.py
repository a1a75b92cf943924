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
  ``rates(shape, us) -> (tflops, GB/s)`` (aiter's ``tflops``/``bw`` columns);
* optional ``work(variant, shape) -> tune_search.Work`` (executed FLOPs, fewest bytes, the MFMA):
  with a timing profile, a trial whose roofline lower bound already loses to the best time
  found for its shape is pruned (never run).

At scale (``gcnforge tune --jobs N``, ``--cluster``, ``--db``/``--resume``, ``--budget``): each
variant is built once, as a task; its code-object bytes travel with every trial of it; trials
run as tasks in this process, on a process pool or on Dask workers (``tune_exec``); every
finished trial is committed to a SQLite database (``tune_store``) so a killed sweep resumes
where it stopped; the candidates and their order come from ``tune_search``. The trials' inputs
come from ``default_rng(seed)`` per shape and the winner of a shape is the fastest ``ok`` trial,
ties to the family's first variant, so the written CSV does not depend on ``jobs``, the
cluster, the order trials finish in, or an interruption. (End-to-end times on the emulator add
measured host time, so ``--e2e`` rankings can differ between runs where host times are close.)

Timing mode (``timing=`` a device profile; on the emulator without one, the default device of
the family's target, since an untimed emulator launch reports no time): a launch of a large
grid emulates only a sample of
work-groups, so its outputs are partial. The check then comes from a second, untimed launch
of the whole grid (``timing_check = "whole"``, the default); a family whose grids are too
large to emulate whole sets ``timing_check = "sampled"``, and its ``call`` / ``reference``
compare only what the sampled work-groups compute (the trial's message says so).

Times: kernel mode sums the LaunchResults of the launches ``call`` makes (HIP events on a
GPU; the timing model's prediction on the emulator). End-to-end mode measures host wall time of
``e2e``; on the emulator, where wall time says nothing about a GPU, it is the modeled
kernel time plus the measured host time outside launches (only the modeled time for a family
with ``host_time = False``, whose host side is bookkeeping, not work). A family whose operation
launches several kernels records them all with ``kernel.track(other)`` (``TimedKernel``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.devices import get_device
from gcnforge.runtime.registry import Entry, write_csv
from gcnforge.runtime.tune_types import KernelFamily, TimedKernel, Trial, Variant, run_trial  # noqa: F401 (API)
from gcnforge.runtime.tune_work import FamilyFile, WorkerSpec, build_task, context, release, trial_task


@dataclass
class TuneReport:
    trials: list[Trial]
    winners: dict[tuple[int, ...], Trial]
    csv_path: Path | None
    time_kind: str
    db_path: Path | None = None
    resumed: int = 0  # trials read back from the database instead of run


@dataclass
class TuneProgress:
    """What a ``progress`` callback receives after each finished build or trial."""

    done: int
    total: int
    trial: Trial | None  # None after a build
    best: dict[tuple[int, ...], Trial]  # the fastest ok trial so far, per shape


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)  # a sweep killed mid-write leaves the old file or the new one, never half


def tune(family: Any, shapes: Sequence[tuple[int, ...]], out_csv: str | Path | None = None, *,
         device: Any = None, e2e: bool = False, repeat: int | None = None, seed: int = 0,
         progress: Callable[[TuneProgress], None] | None = None, timing: Any = None,
         comments: Sequence[str] = (), jobs: int = 1, cluster: str | None = None, db: str | Path | None = None,
         resume: bool = False, prune: bool = True, budget: int | None = None,
         family_file: FamilyFile | None = None) -> TuneReport:
    """Run the search; write winners (one tuned row per shape) to ``out_csv`` if given.
    ``timing``: a device profile name (``mi300x``...) -- on the emulator, rank variants by the
    timing model's predicted time on that device instead of the emulator's issue cycles (the rows'
    ``cu_num`` is then the profile's CU count). ``comments``: lines for the CSV's comment header.
    ``jobs``: worker processes (1: this process); ``cluster``: a Dask scheduler address or
    ``"auto"``; ``db``: the SQLite database every finished trial is committed to; ``resume``:
    take the trials it already holds instead of running them; ``prune``: skip trials whose
    roofline bound loses (families with ``work``, with ``timing``); ``budget``: at most N trials
    per shape, the most promising first; ``family_file``: how worker processes load the family
    (default: the family object, pickled)."""
    sweep = _Sweep(family, shapes, device, e2e, repeat, seed, timing, jobs, cluster, family_file)
    store = None
    if db is not None:
        from gcnforge.runtime.tune_store import TrialStore

        store = TrialStore(db)
    try:
        sweep.run(store, resume, prune, budget, progress, Path(out_csv).parent if out_csv else Path.cwd())
    finally:
        if store is not None:
            store.close()
    winners = sweep.winners()
    kinds = sorted({t.time_kind for t in sweep.trials if t.status == "ok"})
    kind = "/".join(kinds) or ("e2e" if e2e else "none")
    if out_csv is not None:
        out = Path(out_csv)
        cus = getattr(sweep.timing, "cus", None)
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        write_csv(tmp, [_entry(family, t, sweep.co_dir, cus) for t in winners.values()], relative_to=out.parent,
                  comments=comments)
        os.replace(tmp, out)  # the CSV appears whole or not at all
    return TuneReport(sweep.trials, winners, Path(out_csv) if out_csv else None, kind,
                      Path(db) if db is not None else None, sweep.resumed)


class _Sweep:
    """One tuning run: the grid, the tasks still to run, their results."""

    def __init__(self, family, shapes, device, e2e, repeat, seed, timing, jobs, cluster, family_file):
        self.family, self.e2e, self.seed = family, e2e, seed
        self.variants = list(family.variants())
        if not self.variants:
            raise Diagnostic(f"family '{family.name}' has no variants")
        names = [v.name for v in self.variants]
        if len(set(names)) != len(names):
            raise Diagnostic(f"family '{family.name}': variant names must be unique")
        self.shapes = [tuple(s) for s in shapes]
        parallel = jobs > 1 or cluster is not None
        if parallel and not (device is None or isinstance(device, str)):
            raise Diagnostic("tune(jobs > 1 or cluster=...) runs trials in other processes: name the device "
                             f"('emulator'), not a {type(device).__name__} object")
        backend = get_device(device, family.target)
        if parallel and backend.name != "emulator":
            raise Diagnostic(f"--jobs/--cluster run trials side by side, which would distort times measured on "
                             f"{backend.name}: use --jobs 1 on a GPU")
        if timing is None and backend.name == "emulator":
            timing = True  # an untimed emulator launch has no time (LaunchResult): the target's default device
        if timing is not None:
            if backend.name != "emulator":
                raise Diagnostic(f"timing={timing!r} predicts with the emulator's timing mode; the trials run on "
                                 f"{backend.name} (pass device='emulator')")
            from gcnforge.binary.target_id import parse_target_id
            from gcnforge.perfmodel import profiles

            # a device of the family's target (True / 'auto': its default; another target's: a Diagnostic)
            timing = profiles.resolve(timing, parse_target_id(family.target).processor)
        self.timing, self.backend = timing, backend
        fam_ref: FamilyFile | bytes = family_file if family_file is not None else b""
        if parallel and family_file is None:
            import pickle

            try:
                fam_ref = pickle.dumps(family)
            except (pickle.PicklingError, AttributeError, TypeError) as e:
                raise Diagnostic(f"family '{family.name}' cannot be sent to worker processes ({e}): define its "
                                 "class in an importable module, pass family_file=, or use jobs=1") from None
        from gcnforge.isa import table

        self.spec = WorkerSpec(uuid.uuid4().hex, fam_ref, backend.name if parallel else None, timing, e2e, repeat,
                               seed, table.active_target())
        self.jobs, self.cluster, self.parallel = jobs, cluster, parallel
        self.device = device
        self.trials: list[Trial] = []
        self.resumed = 0  # trials read back from the database

    def key(self):
        from gcnforge import __version__
        from gcnforge.runtime.tune_store import SweepKey

        profile = self.timing.name.lower() if self.timing is not None else self.backend.name
        return SweepKey(self.family.name, profile, self.family.target, __version__, "e2e" if self.e2e else "kernel",
                        self.seed)

    def run(self, store, resume: bool, prune: bool, budget: int | None, progress, out_dir: Path) -> None:
        from gcnforge.runtime import tune_exec, tune_search

        self.co_dir = out_dir / f"{self.family.name}_co"
        self.co_dir.mkdir(parents=True, exist_ok=True)
        key = self.key() if store is not None else None
        done_rows = store.finished(key) if store is not None and resume else {}
        supported = {(si, vi) for si, s in enumerate(self.shapes) for vi, v in enumerate(self.variants)
                     if self.family.supports(v, s)}
        need = sorted({vi for _, vi in supported})  # every variant is built: a stored row counts only for its code
        ex = tune_exec.make(self.jobs, self.cluster) if self.parallel else tune_exec.SerialExecutor()
        if not self.parallel:
            context(self.spec, self.family, self.device)
        results: dict[tuple[int, int], Trial] = {}
        state = _Progressing(progress, len(need) + len(supported), results)
        try:
            codes = self._build(ex, need, state)
            record = self._recorder(store, key, results)
            self._resumed(done_rows, supported, codes, results, record)
            lb = tune_search.bounds(self.family, self.variants, self.shapes, self.timing)  # orders; prunes if asked
            plan = [p for p in tune_search.order(len(self.shapes), len(self.variants), lb, self.seed, budget)
                    if p not in results]
            for si, vi in sorted(supported - set(plan) - set(results)):  # outside the budget: not run, not stored
                results[(si, vi)] = Trial(self.shapes[si], self.variants[vi], "skipped", message="outside --budget")
            state.restart(len(need) + len(plan), results)
            self._trials(ex, plan, codes, lb if prune else None, results, record, state)
        finally:
            ex.close()
            release(self.spec)
        self.trials = [results[(si, vi)] for si in range(len(self.shapes)) for vi in range(len(self.variants))]

    def _recorder(self, store, key, results):
        """``record(si, vi, trial, code)``: keep the trial; commit it (with its registry row and
        its code object's digest) to the database."""
        from gcnforge.runtime.tune_store import entry_json

        cus = getattr(self.timing, "cus", None)

        def record(si: int, vi: int, t: Trial, code: bytes | str | None) -> None:
            results[(si, vi)] = t
            if store is not None and t.status != "skipped":
                entry = entry_json(_entry(self.family, t, self.co_dir, cus)) if t.status == "ok" else None
                store.put(key, t.variant.name, t.shape, t.status, t.seconds, t.max_error, t.message, t.time_kind,
                          entry, vi, digest(code))

        return record

    def _resumed(self, done_rows, supported, codes, results, record) -> None:
        """Trials the database holds for the code objects just built (a variant whose code
        changed runs again); unsupported pairs recorded."""
        from gcnforge.runtime.tune_store import shape_text

        for si, shape in enumerate(self.shapes):
            for vi, v in enumerate(self.variants):
                row = done_rows.get((v.name, shape_text(shape)))
                if (si, vi) not in supported:
                    if row is None:
                        record(si, vi, Trial(shape, v, "unsupported"), None)
                    else:
                        results[(si, vi)] = Trial(shape, v, "unsupported")
                elif row is not None and row["code"] == digest(codes[vi]):
                    results[(si, vi)] = Trial(shape, v, row["status"], row["seconds"], row["max_error"],
                                              row["message"], row["time_kind"])
                    self.resumed += 1

    def _build(self, ex, need: list[int], state) -> dict[int, bytes | str]:
        """Each needed variant built once (as tasks); code objects written beside the CSV."""
        codes: dict[int, bytes | str] = {}
        pending = {ex.submit(build_task, self.spec, vi, self.variants[vi]) for vi in need}
        while pending:
            for f in ex.wait(pending):
                pending.discard(f)
                vi, code, msg = f.result()
                v = self.variants[vi]
                if code is None:
                    codes[vi] = msg
                else:
                    _write_atomic(self.co_dir / f"{v.name}.co", code)
                    codes[vi] = code
                state.tick(None)
        return codes

    def _trials(self, ex, plan, codes, lb, results, record, state) -> None:
        """Run ``plan`` with a bounded number in flight, pruning against the best so far."""
        queue = list(plan)
        inflight: set = set()
        limit = max(2, 2 * ex.workers)
        while queue or inflight:
            while queue and len(inflight) < limit:
                si, vi = queue.pop(0)
                shape, v = self.shapes[si], self.variants[vi]
                code = codes[vi]
                best = state.best.get(shape)
                if isinstance(code, str):
                    t = Trial(shape, v, "build-failed", message=code)
                elif lb is not None and best is not None and lb[(si, vi)] > best.seconds:
                    t = Trial(shape, v, "pruned", message=f"roofline bound {lb[(si, vi)] * 1e6:.3f} us > best "
                                                          f"{best.seconds * 1e6:.3f} us")
                else:
                    inflight.add(ex.submit(trial_task, self.spec, si, vi, v, shape, code))
                    continue
                record(si, vi, t, code)
                state.tick(t)
            if inflight:
                for f in ex.wait(inflight):
                    inflight.discard(f)
                    si, vi, t = f.result()
                    record(si, vi, t, codes[vi])
                    state.tick(t)

    def winners(self) -> dict[tuple[int, ...], Trial]:
        """Per shape the fastest ok trial, ties to the first variant (grid order: the same
        whatever order the trials finished in)."""
        out: dict[tuple[int, ...], Trial] = {}
        for t in self.trials:
            if t.status == "ok" and (t.shape not in out or t.seconds < out[t.shape].seconds):  # type: ignore[operator]
                out[t.shape] = t
        return out


class _Progressing:
    """Counts finished tasks, keeps the best ok trial per shape, reports to ``progress``."""

    def __init__(self, progress, total: int, results: dict):
        self.progress, self.total, self.done = progress, total, 0
        self.best: dict[tuple[int, ...], Trial] = {}
        self.restart(total, results)

    def restart(self, total: int, results: dict) -> None:
        """The total once the trials to run are known; the best of those read back."""
        self.total = total
        for _, t in sorted(results.items()):
            self._better(t)

    def _better(self, t: Trial) -> None:
        if t.status == "ok" and (t.shape not in self.best or t.seconds < self.best[t.shape].seconds):  # type: ignore[operator]
            self.best[t.shape] = t

    def tick(self, t: Trial | None) -> None:
        self.done += 1
        if t is not None:
            self._better(t)
        if self.progress is not None:
            self.progress(TuneProgress(self.done, self.total, t, dict(self.best)))


def digest(code: bytes | str | None) -> str:
    """What a stored row's result depends on from the build: the digest of what the loader
    maps from the code object (debug paths left out), or the build's error."""
    if isinstance(code, (bytes, bytearray)):
        from gcnforge.binary.reader import loaded_digest

        return loaded_digest(code)
    return f"build-failed: {code}" if code is not None else ""


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


COLUMNS = ("shape", "variant", "status", "time (us)", "max |err|", "")


def result_rows(report: TuneReport) -> list[tuple[str, ...]]:
    """One row of text per trial (``COLUMNS``), winners marked ``best``: what every output format prints."""
    rows = []
    for t in report.trials:
        win = report.winners.get(t.shape) is t
        rows.append(("x".join(map(str, t.shape)), t.variant.name, t.status if not t.message else f"{t.status}: {t.message}",
                     "" if t.seconds is None else f"{t.seconds * 1e6:.3f}",
                     "" if t.max_error is None else f"{t.max_error:.2e}", "best" if win else ""))
    return rows


def results_table(report: TuneReport):
    """A rich Table of every trial, winners marked (for a terminal)."""
    from rich.table import Table

    tab = Table(title=f"tuning results ({report.time_kind} times)")
    for col in COLUMNS:
        tab.add_column(col)
    for row in result_rows(report):
        tab.add_row(*row)
    return tab

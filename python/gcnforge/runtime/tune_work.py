"""The tasks of a tuning sweep as a worker runs them: build one variant (its code-object bytes
go back to the parent, which ships them with every trial of that variant) and run one trial.

The same functions run in the parent (``--jobs 1``), in a process pool and on Dask workers, so
every path computes the same thing. A worker gets the family once per process from a
``WorkerSpec``: the family file to load (what the CLI passes: a family defined in a user's file
is not importable by name in another process) or the family pickled (the Python API). Inputs
come from ``default_rng(seed)`` per shape, as in the parent, so they do not depend on which
process runs a trial.
"""

from __future__ import annotations

import pickle
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.runtime.tune_types import Trial, Variant, run_trial


@dataclass(frozen=True)
class FamilyFile:
    """A family object named ``attr`` in the Python file ``path`` (``gcnforge tune FILE --family
    ATTR``); ``target`` overrides the family's own (``--target``)."""

    path: str
    attr: str = "family"
    target: str | None = None

    def load(self) -> Any:
        from gcnforge.isa import table

        path = Path(self.path)
        if self.target is None:
            return load_family(path, self.attr)
        with table.use_target(self.target):
            fam = load_family(path, self.attr)
        try:
            fam.target = self.target
        except (AttributeError, TypeError) as e:
            raise Diagnostic(f"--target {self.target}: cannot set the family's target ({e})", str(path)) from None
        return fam


def user_error(e: BaseException, path: Path) -> Diagnostic:
    """A Diagnostic pointing at the deepest frame of the family file in ``e``'s traceback."""
    loc: object = str(path)
    for fr in traceback.extract_tb(e.__traceback__):
        if Path(fr.filename).resolve() == path.resolve():
            loc = SourceLoc(str(path), fr.lineno or 1, 1)
    return Diagnostic(f"family code raised {type(e).__name__}: {e}", loc)


def load_family(path: Path, attr: str) -> Any:
    """Execute the family file and return its object ``attr``; errors are Diagnostics at the
    file's line."""
    import importlib.util

    if not path.is_file():
        raise Diagnostic(f"family file '{path}' not found")
    spec = importlib.util.spec_from_file_location(f"gcnforge_family_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise Diagnostic(f"cannot load '{path}' as Python")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(mod)
    except Diagnostic:
        raise
    except (Exception, SystemExit) as e:  # the user's file: report where it failed, no traceback
        raise user_error(e, path) from None
    finally:
        sys.path.remove(str(path.parent))
    if not hasattr(mod, attr):
        raise Diagnostic(f"'{path}' defines no '{attr}' (the family object; choose another with --family)")
    return getattr(mod, attr)


@dataclass(frozen=True)
class WorkerSpec:
    """Everything a worker needs to run a sweep's tasks; ``token`` names the sweep in the
    per-process cache."""

    token: str
    family: FamilyFile | bytes  # bytes: the pickled family object
    device: str | None
    timing: Any  # a DeviceProfile or None
    e2e: bool
    repeat: int | None
    seed: int
    target: str | None = None  # the Module target the family's build() runs under


class _Context:
    def __init__(self, spec: WorkerSpec, family: Any = None, device: Any = None):
        from gcnforge.runtime.devices import get_device

        if family is None:
            family = spec.family.load() if isinstance(spec.family, FamilyFile) else pickle.loads(spec.family)
        self.spec, self.family = spec, family
        self.backend = get_device(device if device is not None else spec.device, family.target)
        self.repeat = (1 if self.backend.name == "emulator" else 5) if spec.repeat is None else max(1, spec.repeat)
        self.kernels: dict[str, Any] = {}
        self.shapes: dict[tuple[int, ...], tuple[dict, np.ndarray]] = {}

    def expected(self, shape: tuple[int, ...]):
        if shape not in self.shapes:
            rng = np.random.default_rng(self.spec.seed)
            inputs0 = self.family.make_inputs(shape, rng)
            self.shapes[shape] = (inputs0, np.asarray(self.family.reference(shape, inputs0)))
        return self.shapes[shape]


_CONTEXTS: dict[str, _Context] = {}
KEEP = 2  # sweeps a long-lived (cluster) worker keeps loaded


def context(spec: WorkerSpec, family: Any = None, device: Any = None) -> _Context:
    """This process's context for ``spec`` (created once; ``family``/``device``: the parent's own
    objects when it runs the tasks itself)."""
    if spec.token not in _CONTEXTS:
        while len(_CONTEXTS) >= KEEP:
            _CONTEXTS.pop(next(iter(_CONTEXTS)))
        _CONTEXTS[spec.token] = _Context(spec, family, device)
    return _CONTEXTS[spec.token]


def release(spec: WorkerSpec) -> None:
    _CONTEXTS.pop(spec.token, None)


def build_task(spec: WorkerSpec, vi: int, v: Variant) -> tuple[int, bytes | None, str]:
    """Build variant ``v``: (vi, code-object bytes, "") or (vi, None, the first line of the error)."""
    ctx = context(spec)
    try:
        if spec.target is not None:
            from gcnforge.isa import table

            with table.use_target(spec.target):
                built = ctx.family.build(v)
        else:
            built = ctx.family.build(v)
        if isinstance(built, str):
            from gcnforge.binary import assemble

            built = assemble(built, target=ctx.family.target, filename=f"<{v.name}.s>")
        if not isinstance(built, (bytes, bytearray)):
            raise Diagnostic(f"variant '{v.name}': build() must return code-object bytes or assembly text, "
                             f"got {type(built).__name__}")
        from gcnforge.runtime.api import load

        load(bytes(built)).kernel(v.kernel)  # a code object holding the kernel, or a build failure
        return vi, bytes(built), ""
    except Diagnostic as d:
        return vi, None, str(d).splitlines()[0]


def trial_task(spec: WorkerSpec, si: int, vi: int, v: Variant, shape: tuple[int, ...], code: bytes
               ) -> tuple[int, int, Trial]:
    """Check and time ``v`` on ``shape`` from its code-object bytes."""
    ctx = context(spec)
    if v.name not in ctx.kernels:
        from gcnforge.runtime.api import load

        ctx.kernels[v.name] = load(code).kernel(v.kernel)
    inputs0, expect = ctx.expected(shape)
    t = run_trial(ctx.family, ctx.kernels[v.name], v, shape, inputs0, expect, ctx.backend, spec.e2e, ctx.repeat,
                  spec.timing)
    return si, vi, t

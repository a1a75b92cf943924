"""Form census of AMD's aiter code objects: every instruction form (mnemonic + DPP control,
SDWA selects, op_sel, modifiers, operand kinds: ``gcnforge.emulator.forms``) in every code
object of the wheel for gfx942 and gfx950, decoded as a launch decodes it, and how many of
those forms the emulator can execute (its record builds, a handler is bound, and a probe run
in the kernel's launch state raises no ``Unsupported`` and no Python error).

    python benchmarks/bench_form_census.py [--target gfx942|gfx950|all] [--limit N] [--cache DIR]

The wheel (``gcnforge.testing.AITER``, ~40 MB) is downloaded once with ``pip download
--no-deps`` into the cache (default ``~/.cache/gcnforge/aiter``); without network the census
is skipped with the reason. The full walk decodes ~6M instructions per target (tens of
minutes); ``--limit N`` walks the first N objects of each target (sorted by name).
``tests/emulator/test_form_census.py`` runs a fixed sample of this walk in CI. Ends with one
line per target: ``<target>: forms F, executable E, not executable U (I of N instructions; B of
O objects)``.
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile
from pathlib import Path

from gcnforge.emulator.forms import Census, describe
from gcnforge.testing import AITER_CACHE, aiter_wheel

TARGETS = ("gfx942", "gfx950")


def objects(z: zipfile.ZipFile, target: str) -> list[str]:
    """The wheel's code objects of ``target`` (``aiter_meta/hsa/<target>/**.co``), by name."""
    return sorted(n for n in z.namelist() if n.endswith(".co") and n.split("/")[2:3] == [target])


def census(z: zipfile.ZipFile, names: list[str], progress: bool = False) -> Census:
    c = Census()
    t0 = time.perf_counter()
    for i, n in enumerate(names):
        c.add_object(z.read(n), n.split("/", 3)[-1])
        if progress and (i + 1) % 100 == 0:
            print(f"  {i + 1}/{len(names)} objects, {time.perf_counter() - t0:.0f} s: {c.summary()}", flush=True)
    return c


def report(target: str, c: Census, seconds: float) -> str:
    bad = c.unsupported()
    print(f"\n{target}: {c.summary()} ({seconds:.0f} s)")
    for o, why in c.failed_objects:
        print(f"  unreadable object {o}: {why}")
    for key, (n, why, example) in sorted(bad.items(), key=lambda kv: -kv[1][0]):
        line = describe(key)
        print(f"  {n:8d}  {line}" + ("" if why in line else f"\n            {why}") + f"\n            e.g. {example}")
    n_bad = sum(v[0] for v in bad.values())
    return (f"{target}: forms {len(c.forms)}, executable {len(c.forms) - len(bad)}, not executable {len(bad)} "
            f"({n_bad} of {c.instructions} instructions; {c.blocked_objects} of {c.objects} objects)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="all", choices=(*TARGETS, "all"))
    ap.add_argument("--limit", type=int, default=None, help="only the first N objects of each target")
    ap.add_argument("--cache", default=str(AITER_CACHE))
    a = ap.parse_args(argv)
    whl = aiter_wheel(Path(a.cache))
    if isinstance(whl, str):
        print(f"skipping the census: {whl}")
        return 0
    print(f"aiter wheel: {whl.name}")
    z = zipfile.ZipFile(whl)
    lines = []
    for t in TARGETS if a.target == "all" else (a.target,):
        names = objects(z, t)[: a.limit]
        print(f"{t}: {len(names)} code objects", flush=True)
        t0 = time.perf_counter()
        c = census(z, names, progress=True)
        lines.append(report(t, c, time.perf_counter() - t0))
    print()
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

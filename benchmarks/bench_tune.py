"""``gcnforge tune`` at scale: the same sweep with ``--jobs 1`` (the anchor) and ``--jobs 2``,
each a whole ``gcnforge tune`` process (pool start-up, builds, every trial, the CSV), on the
vector-add family of ``examples/drivers/vector_tune.py``: 10 variants x 20 shapes = 200 trials
on the emulator's timing mode (MI300X profile), each checked against NumPy over the whole
grid. Prints wall and CPU seconds of each run (CPU: the process and its workers), the wall
ratio jobs 1 / jobs 2 (goal >= 1.8 on 2 cores), the cores each run kept busy on average and the
load average around it (other jobs on the machine take cores from both: the wall ratio then
measures the scheduler's share), the ratio two idle cores would allow given the pool's CPU
cost, and whether the two CSVs are byte-identical.

    python benchmarks/bench_tune.py [--shapes N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAMILY = ROOT / "examples" / "drivers" / "vector_tune.py"


def shapes(count: int) -> list[str]:
    return [f"{50_000 * i + 37}x1x1" for i in range(1, count + 1)]  # 50k..1M elements, each with a tail


def _adopt_orphans() -> None:
    """Linux: become the child subreaper, so the pool's forkserver (and through it the workers
    it reaped) is reparented to this process when the tune process exits, and its CPU time
    reaches RUSAGE_CHILDREN once reaped (``_reap``)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _reap() -> None:
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def run(jobs: int, work: Path, shape_list: list[str]) -> tuple[float, float, tuple[float, float]]:
    """(wall s, CPU s of the process and its workers, load average before/after)."""
    work.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "gcnforge.cli.main", "tune", str(FAMILY), "--timing", "mi300x", "--device", "emulator",
           "--no-prune", "--format", "csv", "--jobs", str(jobs), "--shapes", *shape_list, "-o", "tuned.csv"]
    load0 = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    _reap()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"jobs {jobs} failed:\n{r.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, (load0, os.getloadavg()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", type=int, default=20, help="shapes (x 10 variants = trials)")
    ap.add_argument("--keep", default=None, help="keep the runs' directories here")
    args = ap.parse_args()
    shape_list = shapes(args.shapes)
    _adopt_orphans()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(args.keep or tmp)
        print(f"sweep: 10 variants x {len(shape_list)} shapes = {10 * len(shape_list)} trials, "
              f"{os.cpu_count()} cores")
        res = {}
        for jobs in (1, 2):
            res[jobs] = run(jobs, base / f"jobs{jobs}", shape_list)
            wall, cpu, (l0, l1) = res[jobs]
            print(f"--jobs {jobs}: {wall:7.1f} s wall, {cpu:7.1f} s CPU, {cpu / wall:.2f} cores busy on average "
                  f"(load average {l0:.1f} before, {l1:.1f} after)")
        same = filecmp.cmp(base / "jobs1" / "tuned.csv", base / "jobs2" / "tuned.csv", shallow=False)
        print(f"wall ratio jobs 1 / jobs 2: {res[1][0] / res[2][0]:.2f} (goal >= 1.8)")
        print(f"CPU ratio jobs 2 / jobs 1: {res[2][1] / res[1][1]:.2f} (the pool's own cost: spawn, imports, transfers)")
        print(f"wall ratio two idle cores would allow (2 x CPU jobs 1 / CPU jobs 2): {2 * res[1][1] / res[2][1]:.2f}; "
              "on a loaded machine the wall ratio follows the cores the scheduler grants (cores busy above)")
        print(f"CSVs identical: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()

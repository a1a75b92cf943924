"""Where a sweep's tasks run: in this process (``jobs=1``), on a local process pool
(``jobs=N``), or on a Dask cluster (``cluster=ADDRESS`` or ``"auto"``: a local cluster on
the loopback interface). All three take ``submit(fn, *args)`` and ``wait(futures)`` (the ones
finished, at least one), so the sweep's scheduler is written once.

The pool never forks the parent: a forked child would inherit the parent's threads (rich's
progress refresher, OpenBLAS's pool, a Dask client) in whatever state they were. Where the
platform has it, workers are forked from a ``forkserver``: a fresh single-threaded process
that has imported gcnforge's runtime and emulator once (``PRELOAD``), so each worker starts
with them; elsewhere ``spawn``. Each worker then loads the family once.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
from typing import Any

from gcnforge.diagnostics import Diagnostic


class SerialExecutor:
    """Runs each task when it is submitted; the futures are already done."""

    workers = 1

    def submit(self, fn, *args) -> cf.Future:
        f: cf.Future = cf.Future()
        try:
            f.set_result(fn(*args))
        except BaseException as e:  # noqa: BLE001 -- handed to whoever reads the result, as a pool does
            f.set_exception(e)
        return f

    def wait(self, futures) -> list:
        return list(futures)

    def close(self) -> None:
        pass


PRELOAD = ["numpy", "gcnforge.runtime.tune_work", "gcnforge.runtime.api", "gcnforge.runtime.emulator_backend"]


def _context():
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return multiprocessing.get_context("spawn")


class PoolExecutor:
    """A ``concurrent.futures`` process pool of ``jobs`` workers (see the module docstring)."""

    def __init__(self, jobs: int):
        self.workers = jobs
        self._pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=_context())

    def submit(self, fn, *args):
        return self._pool.submit(fn, *args)

    def wait(self, futures) -> list:
        done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return list(done)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Tasks on a Dask distributed cluster: ``address`` of its scheduler
    (``tcp://host:8786``), or ``"auto"`` for a ``LocalCluster`` of ``jobs`` single-threaded
    worker processes bound to 127.0.0.1 (no dashboard)."""

    def __init__(self, address: str, jobs: int):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise Diagnostic("--cluster needs Dask distributed: pip install 'gcnforge[cluster]'") from None
        self._cluster = None
        try:
            if address == "auto":
                self._cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                             host="127.0.0.1", dashboard_address=None)
                self._client = Client(self._cluster)
                self._client.wait_for_workers(jobs, timeout=120)
            else:
                self._client = Client(address, timeout="30s")
        except (OSError, TimeoutError) as e:
            if self._cluster is not None:
                self._cluster.close()
            raise Diagnostic(f"--cluster {address}: cannot reach the Dask scheduler ({e})") from None
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))

    def submit(self, fn, *args):
        return self._client.submit(fn, *args, pure=False)

    def wait(self, futures) -> list:
        from distributed import wait

        done, _ = wait(list(futures), return_when="FIRST_COMPLETED")
        return list(done)

    def close(self) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def make(jobs: int, cluster: str | None) -> Any:
    if cluster:
        return DaskExecutor(cluster, jobs)
    return SerialExecutor() if jobs <= 1 else PoolExecutor(jobs)

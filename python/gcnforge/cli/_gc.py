"""Garbage-collector settings for a batch run (a compile, an assembly).

A compile allocates hundreds of thousands of long-lived objects (IR ops, model refs) and
frees few of them, so CPython's default first-generation threshold (700 allocations)
starts a collection that finds nothing every few hundred ops: at 20,000 instructions
that was about a fifth of the compile's CPU time. A larger threshold keeps the collector
on (cycles are still freed) but runs it far less often; at 100,000 a small compile (the
imports and IR of a few-instruction kernel are about 70,000 objects) needs no collection
at all, which saved ~10 ms of its 0.27 s.

At exit CPython runs full collections over every object still alive (the xDSL classes, the
IR, the ISA table): about 40 ms of a 0.3 s compile of a small kernel. ``skip_exit_collection``
freezes them instead (``gc.freeze`` from an ``atexit`` handler), so the process ends
without walking them; output files and streams are flushed as before. The cost is that
cyclic garbage still alive at exit is not finalized, which gcnforge does not rely on.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

THRESHOLD = (100_000, 20, 100)


@contextmanager
def batch_gc(restore: bool = True) -> Iterator[None]:
    """Run the body with ``THRESHOLD``; the previous thresholds come back afterwards unless
    ``restore`` is false: for a process's own command, which ends with it, restoring them
    would start one collection over everything the command allocated (~10 ms of a small
    compile) just before exit."""
    old = gc.get_threshold()
    gc.set_threshold(*THRESHOLD)
    try:
        yield
    finally:
        if restore:
            gc.set_threshold(*old)


_registered = False


def skip_exit_collection() -> None:
    """Leave the objects alive at interpreter exit to the OS (see above); once per process."""
    global _registered
    if not _registered:
        atexit.register(gc.freeze)
        _registered = True

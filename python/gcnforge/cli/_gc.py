"""Garbage-collector settings for a batch run (a compile, an assembly).

A compile allocates hundreds of thousands of long-lived objects (IR ops, model refs) and
frees few of them, so CPython's default first-generation threshold (700 allocations)
starts a collection that finds nothing every few hundred ops: at 20,000 instructions
that was about a fifth of the compile's CPU time. A larger threshold keeps the collector
on (cycles are still freed) but runs it far less often.

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

THRESHOLD = (50_000, 20, 100)


@contextmanager
def batch_gc() -> Iterator[None]:
    """Run the body with ``THRESHOLD``; the previous thresholds come back afterwards."""
    old = gc.get_threshold()
    gc.set_threshold(*THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*old)


_registered = False


def skip_exit_collection() -> None:
    """Leave the objects alive at interpreter exit to the OS (see above); once per process."""
    global _registered
    if not _registered:
        atexit.register(gc.freeze)
        _registered = True

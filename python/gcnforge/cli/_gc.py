"""Garbage-collector settings for a batch run (a compile, an assembly).

A compile allocates hundreds of thousands of long-lived objects (IR ops, model refs) and
frees few of them, so CPython's default first-generation threshold (700 allocations)
starts a collection that finds nothing every few hundred ops: at 20,000 instructions
that was about a fifth of the compile's CPU time. A larger threshold keeps the collector
on (cycles are still freed) but runs it far less often.
"""

from __future__ import annotations

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

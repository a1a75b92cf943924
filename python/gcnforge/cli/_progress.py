"""Progress for commands that can run longer than a couple of seconds (long or sanitized
emulations, tuning): a rich progress bar with ETA on standard error, shown only on a terminal
and only once the work has taken ``DELAY`` seconds (short runs print nothing extra; output
that is piped or logged stays plain)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator

DELAY = 2.0  # seconds before a bar appears


@contextlib.contextmanager
def progress(description: str, unit: str = "work-groups", stream=None) -> Iterator[Callable[..., None]]:
    """Yields ``update(done, total, label=None)`` (a new label replaces the bar's
    label: tune shows the best time so far there). On a terminal a bar with ETA appears after
    ``DELAY`` seconds and is removed at the end; elsewhere nothing is printed."""
    stream = stream if stream is not None else sys.stderr
    if not (hasattr(stream, "isatty") and stream.isatty()):
        yield lambda done, total, label=None: None
        return
    start = time.monotonic()
    state: dict = {}

    def update(done: int, total: int, label: str | None = None) -> None:
        if "bar" not in state:
            if time.monotonic() - start < DELAY:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TextColumn(unit), TimeRemainingColumn(), console=Console(file=stream), transient=True)
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task(label or description, total=total)
        state["bar"].update(state["task"], completed=done, total=total,
                            **({"description": label} if label is not None else {}))

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()

"""Where the kernel author is: the innermost Python frame that is neither gcnforge nor the
standard library, as ``file:line:col`` with the column of the call being executed.

A ``with k.loop(...)`` or ``with m.kernel(...)`` body runs its ``__exit__`` through
``contextlib``; skipping only gcnforge's own frames would stop in ``contextlib.py``. The
column comes from the code object's position table (PEP 657, ``co_positions()``: one
``(line, end_line, col, end_col)`` per 2-byte code unit, col 0-based), found by the frame's
``f_lasti``, so two calls on one line get two columns. Looked up once per call site.
"""

from __future__ import annotations

import itertools
import os
import sys
import sysconfig

from gcnforge.diagnostics import SourceLoc

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIRS = tuple({os.path.abspath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib")})
_SITE = ("site-packages", "dist-packages")  # installed packages live under the stdlib dir: authors' code
_SKIP: dict[str, bool] = {}  # code file name -> not the author's (abspath is slow)


def _skipped(filename: str) -> bool:
    r = _SKIP.get(filename)
    if r is None:
        if filename.startswith("<frozen "):
            r = True
        else:
            p = os.path.abspath(filename)
            r = p.startswith(_PKG_DIR) or (p.startswith(_STDLIB_DIRS) and not any(s in p for s in _SITE))
        _SKIP[filename] = r
    return r


def user_frame(depth: int = 2):
    """The author's innermost frame (``depth``: frames of the caller's own to skip first)."""
    f = sys._getframe(depth)
    while f is not None and _skipped(f.f_code.co_filename):
        f = f.f_back  # type: ignore[assignment]
    return f


_POS: dict[tuple[int, int], tuple[object, tuple[str, int, int]]] = {}  # (id(code), lasti) -> (code, place)


def frame_place(f) -> tuple[str, int, int]:
    """``(file, line, col)`` (1-based) of the instruction ``f`` is executing."""
    code, lasti = f.f_code, f.f_lasti
    hit = _POS.get((id(code), lasti))
    if hit is not None and hit[0] is code:  # the cache holds the code object: its id is not reused
        return hit[1]
    line, col = f.f_lineno, 1
    if lasti >= 0:
        pos = next(itertools.islice(code.co_positions(), lasti // 2, None), None)
        if pos is not None and pos[2] is not None:
            col = pos[2] + 1
            if pos[0] is not None:
                line = pos[0]
    if len(_POS) >= 1 << 16:
        _POS.clear()
    place = (code.co_filename, line or 0, col)
    _POS[(id(code), lasti)] = (code, place)
    return place


def user_location(depth: int = 3) -> SourceLoc:
    """The author's ``file:line:col`` (``<unknown>:0`` when every frame is gcnforge's)."""
    f = user_frame(depth)
    if f is None:
        return SourceLoc("<unknown>", 0)
    return SourceLoc(*frame_place(f))

"""Tuning results that survive: every finished trial of ``gcnforge tune`` in a SQLite database,
keyed by family, variant, shape, device profile, target, gcnforge version, mode (kernel or
e2e) and seed, with the digest of the code object it ran (a resumed sweep builds every variant
again and reuses a row only for the same code).

Each trial is committed as it finishes (SQLite's journal makes a commit atomic), so a sweep
killed at any point, even by SIGKILL, loses at most the trials still running; ``--resume``
reads the finished ones back instead of running them again. A finished ``ok`` trial also
stores its registry row (``Entry``), so ``gcnforge tune --export`` writes the registry CSVs
from the database alone, without the family's code.
"""

from __future__ import annotations

import json
from collections import Counter
import sqlite3
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from gcnforge.diagnostics import Diagnostic

SCHEMA = """
CREATE TABLE IF NOT EXISTS trials (
    family TEXT NOT NULL, variant TEXT NOT NULL, shape TEXT NOT NULL, profile TEXT NOT NULL,
    target TEXT NOT NULL, version TEXT NOT NULL, mode TEXT NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL, seconds REAL, max_error REAL, message TEXT NOT NULL, time_kind TEXT NOT NULL,
    entry TEXT, vindex INTEGER NOT NULL, code TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (family, variant, shape, profile, target, version, mode, seed)
)
"""


@dataclass(frozen=True)
class SweepKey:
    """What a trial's result depends on besides its variant and shape."""

    family: str
    profile: str  # the timing profile's name, or the device ('emulator', 'hip') that measured
    target: str
    version: str
    mode: str  # 'kernel' | 'e2e'
    seed: int


def shape_text(shape: tuple[int, ...]) -> str:
    return "x".join(str(int(d)) for d in shape)


def entry_json(entry: Any) -> str:
    d = {f.name: getattr(entry, f.name) for f in fields(entry) if f.name != "loc"}
    d["code_object"] = None if entry.code_object is None else str(entry.code_object)
    return json.dumps(d, sort_keys=True)


def entry_from_json(text: str):
    from gcnforge.runtime.registry import Entry

    d = json.loads(text)
    d["code_object"] = None if d["code_object"] is None else Path(d["code_object"])
    d["shape"] = None if d["shape"] is None else tuple(d["shape"])
    return Entry(**d)


class TrialStore:
    """The database of one ``--db PATH``; ``put`` commits each trial at once."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path))
            self._db.execute(SCHEMA)
            if "code" not in {r[1] for r in self._db.execute("PRAGMA table_info(trials)")}:  # a first-day database
                self._db.execute("ALTER TABLE trials ADD COLUMN code TEXT NOT NULL DEFAULT ''")
            self._db.commit()
        except (OSError, sqlite3.DatabaseError) as e:
            raise Diagnostic(f"tuning database '{path}': {e}") from None

    def close(self) -> None:
        self._db.close()

    def finished(self, key: SweepKey) -> dict[tuple[str, str], dict]:
        """(variant, shape text) -> the stored row, for every trial of ``key``'s sweep."""
        cur = self._db.execute(
            "SELECT variant, shape, status, seconds, max_error, message, time_kind, entry, vindex, code FROM trials "
            "WHERE "
            "family=? AND profile=? AND target=? AND version=? AND mode=? AND seed=?",
            (key.family, key.profile, key.target, key.version, key.mode, key.seed))
        cols = ("variant", "shape", "status", "seconds", "max_error", "message", "time_kind", "entry", "vindex", "code")
        return {(r[0], r[1]): dict(zip(cols, r)) for r in cur}

    def put(self, key: SweepKey, variant: str, shape: tuple[int, ...], status: str, seconds: float | None,
            max_error: float | None, message: str, time_kind: str, entry: str | None, vindex: int,
            code: str = "") -> None:
        """``code``: what the result depends on from the build (the code object's digest), so a
        resumed sweep reruns a variant whose code changed."""
        self._db.execute("INSERT OR REPLACE INTO trials VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         (key.family, variant, shape_text(shape), key.profile, key.target, key.version, key.mode,
                          key.seed, status, seconds, max_error, message, time_kind, entry, vindex, code))
        self._db.commit()

    def sweeps(self) -> list[SweepKey]:
        cur = self._db.execute("SELECT DISTINCT family, profile, target, version, mode, seed FROM trials "
                               "ORDER BY family, profile, target, version, mode, seed")
        return [SweepKey(*r) for r in cur]


def export(db: str | Path, out_dir: str | Path) -> list[Path]:
    """Write one registry CSV per sweep in ``db`` (``FAMILY_PROFILE_TARGET[_e2e][_sSEED][_vVERSION].csv``
    in ``out_dir``): the fastest ``ok`` trial of each shape, ties to the family's first variant, as
    ``tune`` chooses."""
    from gcnforge.runtime.registry import write_csv

    if not Path(db).is_file():
        raise Diagnostic(f"tuning database '{db}' not found")
    store = TrialStore(db)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        keys = store.sweeps()
        versions = Counter((k.family, k.profile, k.target, k.mode, k.seed) for k in keys)
        for key in keys:
            best: dict[str, dict] = {}
            for (variant, shape), row in sorted(store.finished(key).items(), key=lambda kv: kv[1]["vindex"]):
                if row["status"] == "ok" and row["entry"] and (
                        shape not in best or row["seconds"] < best[shape]["seconds"]):
                    best[shape] = row
            if not best:
                continue
            name = f"{key.family}_{key.profile}_{key.target}" + ("_e2e" if key.mode == "e2e" else "")
            name += f"_s{key.seed}" if key.seed else ""
            group = (key.family, key.profile, key.target, key.mode, key.seed)
            name += f"_v{key.version}" if versions[group] > 1 else ""
            path = out / f"{name}.csv"
            entries = [entry_from_json(best[s]["entry"]) for s in sorted(best, key=_shape_sort)]
            write_csv(path, entries, comments=(f"exported by: gcnforge tune --export --db {db} (gcnforge "
                                               f"{key.version}, {key.mode} times, seed {key.seed})",))
            written.append(path)
    finally:
        store.close()
    return written


def _shape_sort(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("x"))

"""What the emulator recorded for a launch, kept so a benchmark re-runs only the timing model.

Emulating a large kernel under the timing mode takes minutes; predicting its time from what the
emulation recorded takes seconds. Two benchmarks keep the recording:

* ``Recorded`` (a context manager) records what each timed launch hands the timing model
  (``perfmodel.timing.predict``'s inputs: the kernel's static items, the sampled work-groups'
  streams, grid size, occupancy, keywords); ``repredict`` turns the records into reports under
  the current model and a profile. ``bench_timing_model.py --traces FILE`` keeps these per row.
* ``LaunchCache(DIR)`` (a context manager) memoizes every emulator launch made through the
  runtime's ``Kernel.__call__`` while it is active: one file per launch in DIR, keyed by
  everything the emulation depends on (see ``LaunchCache.key``): the code object's loaded sections
  (``code_key``: not its debug line tables, which name the checkout's directory), the
  kernel and its argument layout, every argument's contents (arrays and device buffers by a
  hash of their bytes, scalars by value), grid, block and the other launch options, and the device
  profile's fields the timing mode's emulation reads (``timing_mode.RECORDED_PROFILE_FIELDS``;
  the others only act in the model). The entry holds what the launch wrote (every argument whose
  bytes changed, compressed), for a timed launch the recording, and a fingerprint of the
  emulator's source it ran on: a replay under another emulator source is counted (``stale``) and
  reported, or, with ``strict``, emulated again (the emulator changes often; most changes do not
  touch a given kernel, and re-emulating a whole benchmark after each takes hours). A repeated launch writes those bytes back into the caller's arrays and buffers
  and re-predicts from the recording under the current model, so checks against NumPy still run
  on the outputs of the identical binary and inputs. Entries are written as each launch ends
  (an interrupted run resumes where it stopped) with an atomic rename (two processes can share
  a directory). ``bench_kernels.py --traces DIR`` uses it for all its families.

The directory is bounded by ``prune`` (``bench_kernels.py --traces-max-gb``, after a run): each
entry has a last-use stamp beside it (``KEY.used``: the time and the entry's emulator
fingerprint, written when the entry is recorded and each time it is replayed; not the file
system's access time, which many mounts do not keep), and entries are evicted until the
directory fits: those recorded under another emulator source first, then the current source's,
each least recently used first. An evicted launch is emulated again when it recurs. By hand:

    python benchmarks/trace_cache.py --stats DIR
    python benchmarks/trace_cache.py --prune DIR [--max-gb G] [--dry-run]

The emulation is deterministic (same binary, same inputs, same streams); what a replay cannot
reproduce is the device memory's absolute addresses, so a launch replayed in a run that
allocated differently keeps the addresses (cache lines) of the run that recorded it.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import pickle
import re
import shutil
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

VERSION = 1  # of the entry format; part of every key


class Recorded:
    """Records what each timed launch hands the timing model (``perfmodel.timing.predict``'s
    inputs), so a launch can be re-predicted under a changed model without emulating it again.
    ``calls``: per predict call (static, sample, n_wg, occ, paths, kw); ``reports``: per call the
    report predict returned and how many notes it had then (the timing mode adds more after)."""

    def __init__(self):
        self.calls: list[tuple] = []
        self.reports: list[tuple] = []

    def __enter__(self):
        from gcnforge.emulator import timing_mode

        self.mod, self.real = timing_mode, timing_mode.predict

        def rec(static, sample, n_wg, occ, prof, **kw):
            path_of = kw.pop("path_of", None)
            q = -(-n_wg // prof.cus)
            paths = None if path_of is None else {k * prof.cus: path_of(k * prof.cus) for k in range(q)}
            kw.pop("keep_slices", None)
            self.calls.append((static, sample, n_wg, occ, paths, kw))
            rep = self.real(static, sample, n_wg, occ, prof, path_of=path_of, **kw)
            self.reports.append((rep, len(rep.notes)))
            return rep

        timing_mode.predict = rec
        return self

    def __exit__(self, *exc):
        self.mod.predict = self.real


def repredict(calls, prof, static: dict | None = None) -> list:
    """The reports of recorded launches (``Recorded.calls``) under ``prof`` and the current model;
    ``static``: the kernel's static items re-derived now (``timing_mode.static_items``) instead of
    the recorded ones (an instruction-classification change then applies too)."""
    from gcnforge.perfmodel.timing import predict

    return [predict(static if static is not None else st, sample, n_wg, occ, prof,
                    path_of=None if paths is None else paths.__getitem__, **kw)
            for st, sample, n_wg, occ, paths, kw in calls]


def _emulator_fingerprint() -> str:
    """A hash of the emulator's source (the sanitizer apart: launches here run unsanitized)."""
    import gcnforge.emulator as emu

    h = hashlib.blake2b(digest_size=16)
    for p in sorted(Path(emu.__file__).parent.glob("*.py")):
        if not p.name.startswith(("sanitizer", "suppressions")):
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def code_key(co) -> bytes:
    """What of a code object the emulator loads: the bytes of every section with an address (code,
    descriptors, dynamic symbols, metadata) and the relocations; not the debug sections, whose
    line tables name the source's absolute directory (the same kernel built in another checkout
    is the same launch)."""
    h = hashlib.blake2b(digest_size=20)
    for name, (addr, off, size) in sorted(co.sections.items()):
        if addr:
            h.update(f"{name}@{addr:x}\0".encode() + co.data[off:off + size])
    h.update(repr(co.relocations).encode())
    return h.digest()


def _arg_key(v) -> tuple:
    from gcnforge.runtime.buffers import DeviceBuffer

    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, hashlib.blake2b(np.ascontiguousarray(v).data, digest_size=16).digest())
    if isinstance(v, DeviceBuffer):
        return ("buffer", v.dtype.str, v.shape, hashlib.blake2b(v.numpy().data, digest_size=16).digest())
    return (type(v).__name__, repr(v))


def _contents(v) -> bytes | None:
    from gcnforge.runtime.buffers import DeviceBuffer

    if isinstance(v, np.ndarray):
        return np.ascontiguousarray(v).tobytes()
    if isinstance(v, DeviceBuffer):
        return v.numpy().tobytes()
    return None


def _restore(v, data: bytes) -> None:
    from gcnforge.runtime.buffers import DeviceBuffer

    if isinstance(v, DeviceBuffer):
        v.write(np.frombuffer(data, v.dtype).reshape(v.shape))
    elif v.flags.c_contiguous:
        v.reshape(-1).view(np.uint8)[:] = np.frombuffer(data, np.uint8)
    else:
        v[...] = np.frombuffer(data, v.dtype).reshape(v.shape)


BYPASS = ("sanitize", "trace", "trace_out", "progress", "sanitize_suppress")  # launches not memoized


class LaunchCache:
    """Memoizes emulator launches in ``directory`` while active (see the module docstring).
    ``hits`` / ``misses`` count the launches replayed and emulated, ``stale`` the replays recorded
    under another emulator source (``strict``: those are emulated again), ``failed`` the entries
    that could not be replayed (unreadable, or the model refused the recording): emulated again."""

    def __init__(self, directory: str | Path, strict: bool = False):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.strict = strict
        self.hits = self.misses = self.stale = self.failed = 0
        self.fingerprint = _emulator_fingerprint()

    def __enter__(self):
        from gcnforge.runtime import api

        self.cls, self.real = api.Kernel, api.Kernel.__call__
        cache = self

        def call(kern, *args, grid, block=None, device=None, **kw):
            if any(kw.get(b) for b in BYPASS):
                return cache.real(kern, *args, grid=grid, block=block, device=device, **kw)
            backend = kern.resolve_device(device, [*args, *kw.values()])
            if backend.name != "emulator":
                return cache.real(kern, *args, grid=grid, block=block, device=device, **kw)
            return cache.launch(kern, backend, args, dict(grid=grid, block=block, device=device, **kw))

        api.Kernel.__call__ = call
        return self

    def __exit__(self, *exc):
        self.cls.__call__ = self.real

    def key(self, kern, backend, args: tuple, kw: dict, legacy: bool = False) -> str:
        """The hex key of a launch: everything its emulation depends on (``legacy``: the first
        format's, which hashed the whole code object, debug sections included)."""
        from gcnforge.emulator import timing_mode
        from gcnforge.perfmodel import profiles

        named = {k: _arg_key(v) for k, v in kw.items() if k not in ("device", "stream", "timing")}
        prof = None
        if kw.get("timing") is not None:
            p = profiles.resolve(kw["timing"], backend.arch_for(kern.module.target))
            prof = tuple(getattr(p, f) for f in timing_mode.RECORDED_PROFILE_FIELDS) + (timing_mode.MAX_SAMPLE,)
        h = hashlib.blake2b(digest_size=20)
        for part in (VERSION, kern.name, repr(kern.layout.fields), prof, [_arg_key(a) for a in args],
                     sorted(named.items())):
            h.update(repr(part).encode() + b"\0")
        h.update(kern.module.code_object.data if legacy else b"loaded\0" + code_key(kern.module.code_object))
        return h.hexdigest()

    def counts(self) -> dict[str, int]:
        return dict(hits=self.hits, misses=self.misses, stale=self.stale, failed=self.failed)

    def launch(self, kern, backend, args: tuple, kw: dict):
        given = {k: v for k, v in kw.items() if v is not None}
        key = self.key(kern, backend, args, given)
        path = self.dir / key[:2] / f"{key}.pkl"
        outs = [a for a in args] + [v for v in kw.values()]
        if not path.exists():  # an entry of the first key format: filed under this key from now on
            old = self.key(kern, backend, args, given, legacy=True)
            old_path = self.dir / old[:2] / f"{old}.pkl"
            if old_path.exists():
                path.parent.mkdir(exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
                os.close(fd)
                shutil.copyfile(old_path, tmp)
                os.replace(tmp, path)
        if path.exists():
            res = self._lookup(path, kern, backend, outs, kw)
            if res is not None:
                return res
        before = [_arg_key(a) if _contents(a) is not None else None for a in outs]
        with Recorded() as rec:
            res = self.real(kern, *args, **kw)
        wrote = {i: zlib.compress(_contents(a), 1) for i, a in enumerate(outs)
                 if before[i] is not None and _arg_key(a) != before[i]}
        post = res.timing.notes[rec.reports[-1][1]:] if res.timing is not None and rec.reports else []
        calls = [(None,) + c[1:] for c in rec.calls]  # static items: re-derived at replay
        entry = dict(emulator=self.fingerprint, wrote=wrote, calls=calls if res.timing is not None else None,
                     post_notes=list(post), cycles=res.cycles, notes=tuple(res.notes), partial=res.partial)
        path.parent.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(entry, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        stamp(path, self.fingerprint)
        self.misses += 1
        return res

    def _lookup(self, path: Path, kern, backend, outs: list, kw: dict):
        """The replayed LaunchResult, or None when the entry is to be emulated again."""
        import warnings

        try:
            entry = pickle.loads(path.read_bytes())
            stale = entry["emulator"] != self.fingerprint
            if stale and self.strict:
                return None
            res = self._replay(kern, backend, outs, kw, entry)
        except Exception as e:  # noqa: BLE001 -- a damaged entry or a model that changed its inputs
            warnings.warn(f"trace cache: {path.name} not replayed ({type(e).__name__}: {e}); emulating")
            self.failed += 1
            return None
        stamp(path, entry["emulator"])
        self.hits += 1
        self.stale += stale
        return res

    def _replay(self, kern, backend, outs: list, kw: dict, entry: dict):
        """Re-predicts a timed launch from its recording, then (nothing failed) writes back what the
        launch wrote."""
        from gcnforge.emulator.launch import kernel_image
        from gcnforge.emulator.timing_mode import static_items
        from gcnforge.perfmodel import profiles
        from gcnforge.runtime.backend import LaunchResult

        if entry["calls"] is None:
            res = LaunchResult(backend=backend.name, seconds=None, cycles=entry["cycles"], modeled=True,
                               notes=entry["notes"])
        else:
            prof = profiles.resolve(kw["timing"], backend.arch_for(kern.module.target))
            static = static_items(kernel_image(kern.module.code_object, kern.name))
            rep = repredict(entry["calls"], prof, static)[-1]
            rep.notes.extend(entry["post_notes"])
            res = LaunchResult(backend=backend.name, seconds=rep.seconds, cycles=round(rep.cycles),
                               clock_hz=rep.clock_hz, modeled=True, timing=rep, notes=entry["notes"],
                               partial=entry["partial"])
        data = {i: zlib.decompress(d) for i, d in entry["wrote"].items()}
        for i, d in data.items():
            _restore(outs[i], d)
        return res


# -- bounding the directory ------------------------------------------------------------------
DEFAULT_MAX_GB = 2.0  # bench_kernels.py --traces-max-gb: ~6x what two sessions of whole runs recorded
_ENTRY = re.compile(r"[0-9a-f]{40}\.pkl")  # a key's file (blake2b, 20 bytes); nothing else is ever deleted
_LEFTOVER_S = 3600  # a temporary file this old is an interrupted write (a live one is renamed in seconds)


def stamp(path: Path, emulator: str) -> None:
    """Writes ``path``'s last-use stamp (``KEY.used``: nanoseconds since the epoch and the
    emulator fingerprint the entry was recorded under), atomically: two processes may replay
    the same entry."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(f"{time.time_ns()} {emulator}\n")
    os.replace(tmp, path.with_suffix(".used"))


@dataclass
class Entry:
    path: Path
    size: int  # bytes of the entry and its stamp
    used_ns: int  # the stamp's time; an entry without one (recorded before stamps): its file's mtime
    emulator: str | None  # the fingerprint it was recorded under; None: unreadable
    stamped: bool


def _read_entry(path: Path) -> Entry:
    used = path.with_suffix(".used")
    st = path.stat()
    try:
        t, emulator = used.read_text().rstrip("\n").split(" ", 1)
        return Entry(path, st.st_size + used.stat().st_size, int(t), emulator, True)
    except (OSError, ValueError):  # no stamp (or a damaged one): the entry's own record
        try:
            emulator = pickle.loads(path.read_bytes())["emulator"]
        except Exception:  # noqa: BLE001 -- a damaged entry: evicted first, as LaunchCache would not replay it
            emulator = None
        return Entry(path, st.st_size, st.st_mtime_ns, emulator, False)


def scan(directory: Path) -> tuple[list[Entry], list[Path]]:
    """The cache's entries, and its leftovers: stamps without an entry and temporary files of
    interrupted writes older than an hour."""
    entries, leftovers = [], []
    for sub in sorted(directory.iterdir()):
        if not (sub.is_dir() and re.fullmatch(r"[0-9a-f]{2}", sub.name)):
            continue
        for f in sorted(sub.iterdir()):
            try:
                if _ENTRY.fullmatch(f.name):
                    entries.append(_read_entry(f))
                elif f.suffix == ".used" and _ENTRY.fullmatch(f.stem + ".pkl") and not f.with_suffix(".pkl").exists():
                    leftovers.append(f)
                elif f.name.startswith("tmp") and f.suffix == ".tmp" and time.time() - f.stat().st_mtime > _LEFTOVER_S:
                    leftovers.append(f)
            except FileNotFoundError:  # removed meanwhile by a process sharing the directory
                continue
    return entries, leftovers


def eviction_order(entries: list[Entry], fingerprint: str) -> list[Entry]:
    """Entries of other emulator sources (and unreadable ones) first, then the current source's;
    least recently used first within each."""
    return sorted(entries, key=lambda e: (e.emulator == fingerprint, e.used_ns, e.path.name))


@dataclass
class Pruned:
    evicted: list[Entry]
    kept: list[Entry]
    leftovers: list[Path]

    @property
    def freed(self) -> int:
        return sum(e.size for e in self.evicted)


def prune(directory: str | Path, max_bytes: float, fingerprint: str | None = None,
          dry_run: bool = False) -> Pruned:
    """Evicts entries (``eviction_order``) until ``directory`` holds at most ``max_bytes`` of
    them; removes the leftovers. ``fingerprint``: the current emulator source's (by default
    this checkout's)."""
    fingerprint = fingerprint or _emulator_fingerprint()
    entries, leftovers = scan(Path(directory))
    total = sum(e.size for e in entries)
    evicted = []
    for e in eviction_order(entries, fingerprint):
        if total <= max_bytes:
            break
        evicted.append(e)
        total -= e.size
    if not dry_run:
        for e in evicted:  # the entry first: a stamp alone is a leftover, never a replay
            e.path.unlink(missing_ok=True)
            e.path.with_suffix(".used").unlink(missing_ok=True)
        for f in leftovers:
            f.unlink(missing_ok=True)
    gone = {id(e) for e in evicted}
    return Pruned(evicted, [e for e in entries if id(e) not in gone], leftovers)


def enforce_cap(directory: str | Path, max_gb: float, since_ns: int) -> str | None:
    """``prune`` to ``max_gb`` after a benchmark run that started at ``since_ns``: a line to print
    when anything was evicted (saying how many of the run's own launches went), else None."""
    if math.isinf(max_gb):
        return None
    done = prune(directory, max_gb * 1e9)
    if not done.evicted:
        return None
    own = sum(e.used_ns >= since_ns for e in done.evicted)
    return (f"(trace cache {directory} over {max_gb:g} GB: {len(done.evicted)} least recently used entries "
            f"evicted, {done.freed / 1e9:.2f} GB" + (f"; {own} of them used by this run: their launches will "
                                                     f"be emulated again, raise --traces-max-gb" if own else "") + ")")


def size_gb(text: str) -> float:
    """An argparse type: a size in GB (10^9 bytes), >= 0; 'inf' for no bound."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if math.isnan(v) or v < 0:
        raise argparse.ArgumentTypeError(f"expected a size in GB (a number >= 0, or 'inf' for no bound), got {text!r}")
    return v


def _when(ns: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ns / 1e9))


def stats_lines(directory: Path, fingerprint: str) -> list[str]:
    entries, leftovers = scan(directory)
    gb = lambda es: sum(e.size for e in es) / 1e9  # noqa: E731
    lines = [f"{directory}: {len(entries)} entries, {gb(entries):.3f} GB"]
    for label, es in (("current emulator source", [e for e in entries if e.emulator == fingerprint]),
                      ("other emulator sources", [e for e in entries if e.emulator != fingerprint])):
        span = f", last used {_when(min(e.used_ns for e in es))} .. {_when(max(e.used_ns for e in es))}" if es else ""
        lines.append(f"  {label}: {len(es)} entries, {gb(es):.3f} GB{span}")
    unstamped = [e for e in entries if not e.stamped]
    if unstamped:
        lines.append(f"  {len(unstamped)} entries without a last-use stamp (recorded before stamps): ordered by "
                     "their file's modification time")
    if leftovers:
        lines.append(f"  {len(leftovers)} leftover files (stamps without an entry, interrupted writes): removed by --prune")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/trace_cache.py",
                                 description="See or bound a LaunchCache directory (bench_kernels.py --traces).")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--stats", metavar="DIR", type=Path, help="entries, sizes and last uses, by emulator source")
    what.add_argument("--prune", metavar="DIR", type=Path, help="evict entries until DIR fits --max-gb")
    ap.add_argument("--max-gb", type=size_gb, default=DEFAULT_MAX_GB,
                    help=f"--prune: the bound in GB, 10^9 bytes (default {DEFAULT_MAX_GB:g}; 0 empties the cache)")
    ap.add_argument("--dry-run", action="store_true", help="--prune: list what would be evicted, remove nothing")
    a = ap.parse_args(argv)
    directory = a.stats or a.prune
    if not directory.is_dir():
        print(f"{ap.prog}: error: {directory}: " + ("not a directory" if directory.exists() else "no such directory"),
              file=sys.stderr)
        return 2
    fingerprint = _emulator_fingerprint()
    if a.stats:
        print("\n".join(stats_lines(directory, fingerprint)))
        return 0
    done = prune(directory, a.max_gb * 1e9, fingerprint, a.dry_run)
    verb = "would evict" if a.dry_run else "evicted"
    for e in done.evicted:
        src = "current source" if e.emulator == fingerprint else "other source"
        print(f"{verb} {e.path.relative_to(directory)} ({e.size / 1e6:.1f} MB, {src}, last used {_when(e.used_ns)})")
    print(f"{directory}: {verb} {len(done.evicted)} entries ({done.freed / 1e9:.3f} GB); {len(done.kept)} kept "
          f"({sum(e.size for e in done.kept) / 1e9:.3f} GB, bound {a.max_gb:g} GB); "
          f"{len(done.leftovers)} leftover files" + (" to remove" if a.dry_run else " removed"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

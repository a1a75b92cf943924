"""Kernel registry: configuration tables of precompiled kernel variants, dispatch by problem.

CSV schema (one header row, then one row per kernel variant; lines starting with ``#`` are
comments; the ``csv`` module's quoting rules):

=============  ========  ==============================================================
column         required  meaning
=============  ========  ==============================================================
kernel         yes       kernel symbol in the code object
code_object    yes       path of the ``.co`` file, relative to the CSV's directory
target         yes       processor (``gfx942``; a full target id is accepted)
dtype          yes       element type of the problem (``f32``, ``f16``, ``bf16``, ``fp8``,
                         ``i8``...; ``fp32``/``fp16`` are accepted and normalised)
tile_m         yes       rows of C per workgroup
tile_n         yes       columns of C per workgroup
tile_k         yes       K per main-loop iteration
splitk         no        config rows: largest split-K factor supported (0/1 = none);
                         tuned rows: the factor the tuner chose (1 = none)
bias           no        1 if the kernel fuses a bias add (a problem feature), else 0
preshuffle     no        1 if B must be pre-shuffled (a problem feature), else 0
block          no        work-items per workgroup (default 256)
layout         no        argument layout for ``ArgLayout.slots16``, specs joined by ``;``
m, n, k        no        problem shape of a *tuned* row (all three, or none)
us             no        tuned kernel time in microseconds
time_kind      no        ``measured`` (GPU) or ``modeled`` (emulator)
(others)       no        kept as strings in ``Entry.extra``
=============  ========  ==============================================================

Rows are keyed by (target, dtype, features) where features are (bias, preshuffle).

Dispatch (``select``): first an exact tuned hit (a row of the key with the problem's m, n, k;
the fastest if several); otherwise a heuristic over the key's config rows that scores, for
each kernel and each split-K factor it allows,

* tile utilization: useful / computed elements of C and of K (padding waste),
* work per CU: workgroups / (waves x CUs), how fully the last wave of workgroups fills the
  target's CUs (304 on MI300X),
* data reuse: 2*tile_m*tile_n / (tile_m + tile_n), relative to a 256 x 256 tile,

score = utilization x work-per-CU x reuse; ties go to the larger tile. ``explain`` prints
the whole decision.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gcnforge.diagnostics import Diagnostic, SourceLoc

REQUIRED = ("kernel", "code_object", "target", "dtype", "tile_m", "tile_n", "tile_k")
INT_COLUMNS = ("tile_m", "tile_n", "tile_k", "splitk", "bias", "preshuffle", "block", "m", "n", "k")
KNOWN = (*REQUIRED, "splitk", "bias", "preshuffle", "block", "layout", "m", "n", "k", "us", "time_kind")
_DTYPE_ALIASES = {"fp32": "f32", "float32": "f32", "float": "f32", "fp16": "f16", "float16": "f16",
                  "half": "f16", "bfloat16": "bf16", "fp64": "f64", "double": "f64", "int8": "i8",
                  "fp8": "fp8", "f8": "fp8", "int32": "i32"}
MAX_ROWS = 1_000_000  # bound what an input file can make us hold


def normalize_dtype(s: str) -> str:
    s = s.strip().lower()
    return _DTYPE_ALIASES.get(s, s)


def _processor(target: str) -> str:
    t = target.strip()
    if "--" in t:
        t = t.split("--", 1)[1]
    return t.split(":", 1)[0]


@dataclass(frozen=True)
class Entry:
    kernel: str
    code_object: Path
    target: str
    dtype: str
    tile_m: int
    tile_n: int
    tile_k: int
    splitk: int = 0
    bias: bool = False
    preshuffle: bool = False
    block: int = 256
    layout: str = ""
    shape: tuple[int, int, int] | None = None  # tuned rows only
    us: float | None = None
    time_kind: str = ""
    extra: dict[str, str] = field(default_factory=dict, compare=False)
    loc: SourceLoc | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[str, str, tuple[bool, bool]]:
        return (self.target, self.dtype, (self.bias, self.preshuffle))

    @property
    def tuned(self) -> bool:
        return self.shape is not None

    def grid(self, m: int, n: int, splitk: int = 1) -> tuple[int, int, int]:
        """Workgroups for problem m x n: x over N tiles, y over M tiles, z over split-K
        (the convention of the vendor GEMM kernels)."""
        return (math.ceil(n / self.tile_n), math.ceil(m / self.tile_m), max(1, splitk))

    def load(self):
        """The runtime Kernel for this entry (with its slots16 layout if the row has one)."""
        from gcnforge.runtime.api import load
        from gcnforge.runtime.kernargs import ArgLayout

        mod = load(self.code_object)
        lay = ArgLayout.slots16([s for s in self.layout.split(";") if s.strip()]) if self.layout else None
        return mod.kernel(self.kernel, layout=lay)


@dataclass(frozen=True)
class Candidate:
    entry: Entry
    splitk: int
    score: float
    utilization: float
    work_per_cu: float
    reuse: float
    workgroups: int


@dataclass(frozen=True)
class Choice:
    entry: Entry
    splitk: int
    how: str  # "tuned" | "heuristic"
    grid: tuple[int, int, int]
    candidates: tuple[Candidate, ...] = ()


def _field_starts(line: str, dialect: type[csv.Dialect] = csv.excel) -> list[int]:
    """1-based column where each CSV field of ``line`` starts (quotes respected), so
    diagnostics can point at the offending field; the csv module does the parsing."""
    starts, inq, i = [1], False, 0
    q, d = dialect.quotechar, dialect.delimiter
    while i < len(line):
        c = line[i]
        if c == q:
            if inq and i + 1 < len(line) and line[i + 1] == q:
                i += 1
            else:
                inq = not inq
        elif c == d and not inq:
            starts.append(i + 2)
        i += 1
    return starts


class Registry:
    def __init__(self, entries: Iterable[Entry] = (), cu_count: int | None = None):
        self.entries: list[Entry] = list(entries)
        self._cu_count = cu_count

    @classmethod
    def from_csv(cls, *paths: str | Path, cu_count: int | None = None) -> Registry:
        r = cls(cu_count=cu_count)
        for p in paths:
            r.add_csv(p)
        return r

    def cu_count(self, target: str) -> int:
        if self._cu_count:
            return self._cu_count
        try:
            from gcnforge.isa.target import TARGETS

            return int(TARGETS[_processor(target)].cu_count)
        except (ImportError, KeyError):
            return 304

    # -- loading ---------------------------------------------------------------------------
    def add_csv(self, path: str | Path) -> None:
        path = Path(path)
        fname = str(path)
        try:
            text = path.read_text(encoding="utf-8-sig")  # tolerate the BOM spreadsheets write
        except (OSError, UnicodeDecodeError) as e:
            raise Diagnostic(f"cannot read kernel table: {e}", SourceLoc(fname, 1, 1)) from None
        lines = text.splitlines()
        header: list[str] | None = None
        seen_tuned: dict[tuple, int] = {}
        for lineno, line in enumerate(lines, 1):
            if lineno > MAX_ROWS:
                raise Diagnostic(f"kernel table has more than {MAX_ROWS} lines", SourceLoc(fname, lineno, 1))
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                row = next(csv.reader([line], strict=True))
            except csv.Error as e:
                raise Diagnostic(f"malformed CSV: {e}", SourceLoc(fname, lineno, 1)) from None
            starts = _field_starts(line)
            if header is None:
                header = [h.strip() for h in row]
                for i, h in enumerate(header):
                    if not h:
                        raise Diagnostic("empty column name in header", SourceLoc(fname, lineno, starts[i]))
                    if header.index(h) != i:
                        raise Diagnostic(f"column '{h}' appears twice", SourceLoc(fname, lineno, starts[i]))
                missing = [c for c in REQUIRED if c not in header]
                if missing:
                    raise Diagnostic(f"header lacks required column(s) {', '.join(missing)}",
                                     SourceLoc(fname, lineno, len(line) + 1),
                                     (f"required: {', '.join(REQUIRED)}",))
                continue
            if len(row) != len(header):
                col = starts[len(header)] if len(row) > len(header) else len(line) + 1
                raise Diagnostic(f"row has {len(row)} fields, the header has {len(header)}",
                                 SourceLoc(fname, lineno, col))
            e = self._entry(dict(zip(header, row)), {h: starts[i] for i, h in enumerate(header)},
                            path, lineno)
            if e.tuned:
                k = (e.key, e.shape, e.kernel)
                if k in seen_tuned:
                    raise Diagnostic(f"duplicate tuned row for {e.kernel} at shape {e.shape} "
                                     f"(first at line {seen_tuned[k]})", SourceLoc(fname, lineno, 1))
                seen_tuned[k] = lineno
            self.entries.append(e)
        if header is None:
            raise Diagnostic("kernel table is empty (no header row)", SourceLoc(fname, 1, 1))

    @staticmethod
    def _entry(row: dict[str, str], cols: dict[str, int], path: Path, lineno: int) -> Entry:
        fname = str(path)

        def loc(c: str) -> SourceLoc:
            return SourceLoc(fname, lineno, cols.get(c, 1))

        ints: dict[str, int | None] = {}
        for c in INT_COLUMNS:
            raw = row.get(c, "").strip()
            if raw == "":
                ints[c] = None
                continue
            try:
                v = int(raw, 0)
            except ValueError:
                raise Diagnostic(f"column '{c}': '{raw}' is not an integer", loc(c)) from None
            if v < 0 or (c in ("tile_m", "tile_n", "tile_k", "block", "m", "n", "k") and v == 0):
                raise Diagnostic(f"column '{c}': {v} is out of range", loc(c))
            if c in ("bias", "preshuffle") and v not in (0, 1):
                raise Diagnostic(f"column '{c}' must be 0 or 1, got {v}", loc(c))
            ints[c] = v
        for c in REQUIRED:
            if not row[c].strip():
                raise Diagnostic(f"column '{c}' is empty", loc(c))
        shape_cols = [ints[c] for c in ("m", "n", "k")]
        if any(v is not None for v in shape_cols) and any(v is None for v in shape_cols):
            raise Diagnostic("a tuned row needs all of m, n, k (or none)",
                             loc(next(c for c in ("m", "n", "k") if ints[c] is None)))
        us = None
        if row.get("us", "").strip():
            try:
                us = float(row["us"])
            except ValueError:
                raise Diagnostic(f"column 'us': '{row['us']}' is not a number", loc("us")) from None
            if not math.isfinite(us) or us < 0:
                raise Diagnostic(f"column 'us': {us} is not a valid time", loc("us"))
        target = row["target"].strip()
        if not _processor(target).startswith("gfx"):
            raise Diagnostic(f"column 'target': '{target}' is not an AMDGPU processor", loc("target"))
        shape = None if shape_cols[0] is None else (shape_cols[0], shape_cols[1], shape_cols[2])
        return Entry(
            kernel=row["kernel"].strip(), code_object=(path.parent / row["code_object"].strip()),
            target=_processor(target), dtype=normalize_dtype(row["dtype"]),
            tile_m=ints["tile_m"], tile_n=ints["tile_n"], tile_k=ints["tile_k"],  # type: ignore[arg-type]
            splitk=ints["splitk"] or 0, bias=bool(ints["bias"]), preshuffle=bool(ints["preshuffle"]),
            block=ints["block"] or 256, layout=row.get("layout", "").strip(), shape=shape, us=us,
            time_kind=row.get("time_kind", "").strip(),
            extra={k: v for k, v in row.items() if k not in KNOWN}, loc=SourceLoc(fname, lineno, 1))

    # -- dispatch ----------------------------------------------------------------------------
    def _key(self, target: str, dtype: str, bias: bool, preshuffle: bool):
        return (_processor(target), normalize_dtype(dtype), (bool(bias), bool(preshuffle)))

    def candidates(self, target: str, dtype: str, m: int, n: int, k: int, bias: bool = False,
                   preshuffle: bool = False) -> list[Candidate]:
        key = self._key(target, dtype, bias, preshuffle)
        configs = [e for e in self.entries if e.key == key and not e.tuned]
        if not configs:  # a table of tuned rows only: its kernels are the candidates
            uniq: dict[str, Entry] = {}
            for e in self.entries:
                if e.key == key:
                    uniq.setdefault(e.kernel, replace(e, shape=None, us=None))
            configs = list(uniq.values())
        cu = self.cu_count(target)
        out = []
        for e in configs:
            splits = [1]
            s = 2
            while s <= e.splitk and e.tile_k * s <= k:
                splits.append(s)
                s *= 2
            for s in splits:
                tiles = math.ceil(m / e.tile_m) * math.ceil(n / e.tile_n)
                kpad = math.ceil(k / (e.tile_k * s)) * e.tile_k * s
                util = (m * n) / (tiles * e.tile_m * e.tile_n) * (k / kpad)
                wgs = tiles * s
                waves = math.ceil(wgs / cu)
                wpc = wgs / (waves * cu)
                reuse = min(1.0, (2 * e.tile_m * e.tile_n / (e.tile_m + e.tile_n)) / 256)
                out.append(Candidate(e, s, util * wpc * reuse, util, wpc, reuse, wgs))
        out.sort(key=lambda c: (-c.score, -(c.entry.tile_m * c.entry.tile_n), c.splitk, c.entry.kernel))
        return out

    def select(self, target: str, dtype: str, m: int, n: int, k: int, bias: bool = False,
               preshuffle: bool = False) -> Choice:
        for v, nm in ((m, "m"), (n, "n"), (k, "k")):
            if not isinstance(v, int) or v < 1:
                raise Diagnostic(f"problem size {nm}={v!r} must be a positive integer")
        key = self._key(target, dtype, bias, preshuffle)
        hits = [e for e in self.entries if e.key == key and e.shape == (m, n, k)]
        if hits:
            best = min(hits, key=lambda e: (e.us if e.us is not None else math.inf, e.kernel))
            s = max(1, best.splitk)
            return Choice(best, s, "tuned", best.grid(m, n, s))
        cands = self.candidates(target, dtype, m, n, k, bias, preshuffle)
        if not cands:
            have = sorted({f"{e.target}/{e.dtype}/bias={int(e.bias)}/preshuffle={int(e.preshuffle)}"
                           for e in self.entries})
            raise Diagnostic(f"no kernel for {key[0]} {key[1]} bias={int(bias)} preshuffle={int(preshuffle)}",
                             notes=(f"the registry has: {', '.join(have) or 'nothing'}",))
        c = cands[0]
        return Choice(c.entry, c.splitk, "heuristic", c.entry.grid(m, n, c.splitk), tuple(cands))

    def explain(self, target: str, dtype: str, m: int, n: int, k: int, bias: bool = False,
                preshuffle: bool = False, top: int = 10) -> str:
        ch = self.select(target, dtype, m, n, k, bias, preshuffle)
        head = (f"problem {m}x{n}x{k} {normalize_dtype(dtype)} on {_processor(target)} "
                f"(bias={int(bias)}, preshuffle={int(preshuffle)}, {self.cu_count(target)} CUs)")
        lines = [head]
        if ch.how == "tuned":
            t = f"{ch.entry.us:.3f} us {ch.entry.time_kind}".rstrip() if ch.entry.us is not None else "no time"
            lines.append(f"exact tuned hit: {ch.entry.kernel} (split-K {ch.splitk}, {t}) from {ch.entry.loc}")
        else:
            lines.append("no tuned row for this shape; heuristic = utilization x work-per-CU x reuse:")
            lines.append(f"  {'kernel':<36} {'tile':>13} {'splitK':>6} {'WGs':>6} {'util':>6} {'wpc':>6} {'reuse':>6} {'score':>8}")
            for c in ch.candidates[:top]:
                e = c.entry
                mark = "*" if c is ch.candidates[0] else " "
                lines.append(f"{mark} {e.kernel:<36} {f'{e.tile_m}x{e.tile_n}x{e.tile_k}':>13} {c.splitk:>6} "
                             f"{c.workgroups:>6} {c.utilization:6.3f} {c.work_per_cu:6.3f} {c.reuse:6.3f} {c.score:8.5f}")
            if len(ch.candidates) > top:
                lines.append(f"  ... {len(ch.candidates) - top} more")
        lines.append(f"chosen: {ch.entry.kernel} split-K {ch.splitk} grid {ch.grid} block ({ch.entry.block}, 1, 1)")
        return "\n".join(lines)


def write_csv(path: str | Path, entries: Iterable[Entry], relative_to: str | Path | None = None) -> None:
    """Write entries in the schema above (code_object paths relative to the CSV's directory)."""
    path = Path(path)
    base = Path(relative_to) if relative_to else path.parent
    entries = list(entries)
    extra_cols = sorted({k for e in entries for k in e.extra})
    cols = [*REQUIRED, "splitk", "bias", "preshuffle", "block", "layout", "m", "n", "k", "us", "time_kind", *extra_cols]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for e in entries:
            try:
                co = Path(e.code_object).resolve().relative_to(base.resolve())
            except ValueError:
                co = Path(e.code_object).resolve()
            m, n, k = e.shape if e.shape else ("", "", "")
            w.writerow([e.kernel, str(co), e.target, e.dtype, e.tile_m, e.tile_n, e.tile_k, e.splitk,
                        int(e.bias), int(e.preshuffle), e.block, e.layout, m, n, k,
                        "" if e.us is None else f"{e.us:.4f}", e.time_kind,
                        *(e.extra.get(c, "") for c in extra_cols)])

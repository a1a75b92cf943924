"""Kernel registry: configuration tables of precompiled kernel variants, dispatch by problem.

The CSV uses the column spelling of AMD's aiter tuning tables (``aiter/configs/
bf16_tuned_gemm.csv``: ``M,N,K,bias,dtype,outdtype,...,cu_num,...,splitK,us,kernelName,...,
tflops,bw``; ``a8w8_tuned_gemm.csv``: ``cu_num,M,N,K,kernelId,splitK,us,kernelName,tflops,bw,
errRatio``) for the shape, kernel and time columns, followed by gcnforge's own columns (code
object, target, tile parameters). aiter's own tables load as they are (``defaults=`` supplies
the columns they lack, e.g. ``target``); the older gcnforge spelling (``kernel``, ``m``, ``n``,
``k``, ``splitk``) is still read. One header row, then one row per kernel variant; lines
starting with ``#`` are comments; the ``csv`` module's quoting rules. Column names are
case-sensitive except that ``m``/``n``/``k`` equal ``M``/``N``/``K``.

=============  ========  ==============================================================
column         required  meaning
=============  ========  ==============================================================
kernelName     yes       kernel symbol in the code object (old spelling: ``kernel``)
M, N, K        tuned     problem shape of a *tuned* row (all three, or none). For ``op``
                         gemm: C is M x N, K the reduction; rmsnorm/layernorm: M rows of N;
                         topk_softmax: M tokens, N experts, K = k
cu_num         no        CUs of the device a tuned row's ``us`` is for (aiter's key column);
                         a tuned row with a ``cu_num`` is an exact hit only on that many CUs
dtype          yes       element type (``bf16``, ``f16``, ``f32``, ``fp8`` = e4m3fnuz, ``i8``;
                         aiter's ``torch.bfloat16``... spelling is read and written)
outdtype       no        output element type (same spellings)
bias           no        the kernel fuses a bias add (``True``/``False`` or 1/0)
splitK         no        config rows: largest split-K factor supported (0/1 = none);
                         tuned rows: the factor the tuner chose (1 = none), which is also the
                         only factor used when the row serves other shapes
us             no        tuned kernel time in microseconds
tflops, bw     no        TFLOP/s and GB/s at ``us`` (aiter's definitions: 2MNK flops; bytes
                         of the inputs read once and the output written once)
time_kind      no        ``measured`` (GPU) or ``modeled`` (timing model / emulator)
code_object    no        path of the ``.co`` file, relative to the CSV's directory (aiter's
                         rows have none: they can be selected, not loaded)
target         yes       processor (``gfx942``; a full target id is accepted)
op             no        operation (default ``gemm``): part of the dispatch key
tile_m         config    rows of C per workgroup (row kernels: rows per workgroup)
tile_n         config    columns of C per workgroup (row kernels: columns per row handled)
tile_k         config    K per main-loop iteration
preshuffle     no        1 if B must be pre-shuffled (a problem feature), else 0
block          no        work-items per workgroup (default 256)
layout         no        argument layout for ``ArgLayout.slots16``, specs joined by ``;``
constraints    no        shapes the code object accepts, ``;``-joined ``N=256``, ``N<=8192``,
                         ``N%8`` (divisible by 8): compile-time sizes
splitk_grid    no        ``x``: split-K folded into grid x (x = N tile * splitK + split, aiter's
                         ``asm_gemm_a8w8.cu`` layout); default ``z`` (grid z = split)
(others)       no        kept as strings in ``Entry.extra`` (aiter's ``libtype``, ``solidx``...)
=============  ========  ==============================================================

``config`` columns are required on rows without a shape; a header needs either the three
tile columns or the three shape columns. Rows are keyed by (target, op, dtype, features)
where features are (bias, preshuffle).

Dispatch (``select``): only rows whose ``constraints`` admit the problem are considered. First
an exact tuned hit (a row of the key with the problem's M, N, K and, if the row has one, the
registry's CU count as ``cu_num``; the fastest if several); otherwise a heuristic over the
key's config rows that scores, for each kernel and each split-K factor it allows,

* tile utilization: useful / computed elements of C and of K (padding waste),
* work per CU: workgroups / (waves x CUs), how fully the last wave of workgroups fills the
  target's CUs (304 on MI300X),
* data reuse: 2*tile_m*tile_n / (tile_m + tile_n), relative to a 256 x 256 tile,

score = utilization x work-per-CU x reuse; ties go to the larger tile. For row kernels (an
``op`` other than gemm*) the score is the utilization of M and N alone and the grid is x over
M tiles. ``explain`` prints the whole decision.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from gcnforge.diagnostics import Diagnostic, SourceLoc

# header spellings -> the internal column names (aiter's first)
ALIASES = {"kernelName": "kernel", "M": "m", "N": "n", "K": "k", "splitK": "splitk"}
TILES = ("tile_m", "tile_n", "tile_k")
SHAPE = ("m", "n", "k")
INT_COLUMNS = (*TILES, "splitk", "block", *SHAPE, "cu_num")
BOOL_COLUMNS = ("bias", "preshuffle")
FLOAT_COLUMNS = ("us", "tflops", "bw")
KNOWN = ("kernel", "code_object", "target", "dtype", "outdtype", "op", *INT_COLUMNS, *BOOL_COLUMNS,
         *FLOAT_COLUMNS, "layout", "time_kind", "constraints")
_DTYPE_ALIASES = {"fp32": "f32", "float32": "f32", "float": "f32", "fp16": "f16", "float16": "f16",
                  "half": "f16", "bfloat16": "bf16", "fp64": "f64", "double": "f64", "int8": "i8",
                  "fp8": "fp8", "f8": "fp8", "float8_e4m3fnuz": "fp8", "int32": "i32"}
# how aiter's tables spell them (PyTorch dtype names; gfx942's fp8 is the fnuz variant)
_TORCH = {"f32": "torch.float32", "f16": "torch.float16", "bf16": "torch.bfloat16", "f64": "torch.float64",
          "i8": "torch.int8", "i32": "torch.int32", "fp8": "torch.float8_e4m3fnuz"}
MAX_ROWS = 1_000_000  # bound what an input file can make us hold
_CONSTRAINT = re.compile(r"^\s*([MNK])\s*(<=|=|%)\s*(\d+)\s*$")


def normalize_dtype(s: str) -> str:
    s = s.strip().lower()
    if s.startswith("torch."):
        s = s[len("torch."):]
    return _DTYPE_ALIASES.get(s, s)


def aiter_dtype(s: str) -> str:
    """The dtype as aiter's tables write it (``torch.bfloat16``); unknown names unchanged."""
    return _TORCH.get(s, s)


def _processor(target: str) -> str:
    t = target.strip()
    if "--" in t:
        t = t.split("--", 1)[1]
    return t.split(":", 1)[0]


def _is_gemm(op: str) -> bool:
    return op.startswith("gemm")


def parse_constraints(text: str) -> tuple[tuple[str, str, int], ...]:
    """``"N=256;K<=8192;N%8"`` -> ((dim, op, value), ...); ValueError names a bad item."""
    out = []
    for item in (t for t in text.split(";") if t.strip()):
        mt = _CONSTRAINT.match(item)
        if not mt or (mt.group(2) == "%" and int(mt.group(3)) == 0):
            raise ValueError(f"'{item.strip()}' is not DIM=v, DIM<=v or DIM%v with DIM one of M, N, K")
        out.append((mt.group(1), mt.group(2), int(mt.group(3))))
    return tuple(out)


@dataclass(frozen=True)
class Entry:
    kernel: str
    code_object: Path | None
    target: str
    dtype: str
    tile_m: int | None
    tile_n: int | None
    tile_k: int | None
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
    op: str = "gemm"
    out_dtype: str = ""
    cu_num: int | None = None
    tflops: float | None = None
    bw: float | None = None
    constraints: str = ""

    @property
    def key(self) -> tuple[str, str, str, tuple[bool, bool]]:
        return (self.target, self.op, self.dtype, (self.bias, self.preshuffle))

    @property
    def tuned(self) -> bool:
        return self.shape is not None

    @property
    def has_tiles(self) -> bool:
        return None not in (self.tile_m, self.tile_n, self.tile_k)

    def admits(self, m: int, n: int, k: int) -> bool:
        """Whether the row's ``constraints`` accept problem m x n x k."""
        dims = {"M": m, "N": n, "K": k}
        for d, o, v in parse_constraints(self.constraints):
            x = dims[d]
            if (o == "=" and x != v) or (o == "<=" and x > v) or (o == "%" and x % v):
                return False
        return True

    def grid(self, m: int, n: int, splitk: int = 1) -> tuple[int, int, int] | None:
        """Workgroups for problem m x n. GEMMs: x over N tiles, y over M tiles, z over split-K
        (the convention of the vendor GEMM kernels), or x over N tiles times split-K where the
        row says ``splitk_grid=x``; row kernels: x over M tiles, y over N tiles. None for a row
        without tile columns (an aiter row)."""
        if not self.has_tiles:
            return None
        if not _is_gemm(self.op):
            return (math.ceil(m / self.tile_m), math.ceil(n / self.tile_n), 1)  # type: ignore[operator]
        if self.extra.get("splitk_grid", "").strip() == "x":
            return (math.ceil(n / self.tile_n) * max(1, splitk), math.ceil(m / self.tile_m), 1)  # type: ignore[operator]
        return (math.ceil(n / self.tile_n), math.ceil(m / self.tile_m), max(1, splitk))  # type: ignore[operator]

    def load(self):
        """The runtime Kernel for this entry (with its slots16 layout if the row has one)."""
        from gcnforge.runtime.api import load
        from gcnforge.runtime.kernargs import ArgLayout

        if self.code_object is None:
            raise Diagnostic(f"kernel '{self.kernel}' has no code_object in its table", self.loc)
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
    grid: tuple[int, int, int] | None  # None: the row has no tile columns
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
    def from_csv(cls, *paths: str | Path, cu_count: int | None = None,
                 defaults: Mapping[str, str] | None = None) -> Registry:
        """``defaults``: values for columns a table lacks (``{"target": "gfx942"}`` for aiter's)."""
        r = cls(cu_count=cu_count)
        for p in paths:
            r.add_csv(p, defaults)
        return r

    def cu_count(self, target: str) -> int:
        if self._cu_count:
            return self._cu_count
        from gcnforge.isa.target import TARGETS

        proc = _processor(target)
        if proc not in TARGETS:
            raise Diagnostic(f"no CU count for target '{target}' (known: {', '.join(TARGETS)}); give the "
                             "registry cu_count=")
        return TARGETS[proc].cu_count

    # -- loading ---------------------------------------------------------------------------
    def add_csv(self, path: str | Path, defaults: Mapping[str, str] | None = None) -> None:
        path = Path(path)
        fname = str(path)
        defaults = {ALIASES.get(k, k.lower() if k in "MNK" else k): str(v) for k, v in (defaults or {}).items()}
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
                header = self._header(row, starts, line, defaults, SourceLoc(fname, lineno, 1))
                continue
            if len(row) != len(header):
                col = starts[len(header)] if len(row) > len(header) else len(line) + 1
                raise Diagnostic(f"row has {len(row)} fields, the header has {len(header)}",
                                 SourceLoc(fname, lineno, col))
            fields = {**defaults, **dict(zip(header, row))}
            e = self._entry(fields, {h: starts[i] for i, h in enumerate(header)}, path, lineno)
            if e.tuned:
                k = (e.key, e.shape, e.cu_num, e.kernel)
                if k in seen_tuned:
                    raise Diagnostic(f"duplicate tuned row for {e.kernel} at shape {e.shape} "
                                     f"(first at line {seen_tuned[k]})", SourceLoc(fname, lineno, 1))
                seen_tuned[k] = lineno
            self.entries.append(e)
        if header is None:
            raise Diagnostic("kernel table is empty (no header row)", SourceLoc(fname, 1, 1))

    @staticmethod
    def _header(row: list[str], starts: list[int], line: str, defaults: Mapping[str, str],
                loc: SourceLoc) -> list[str]:
        """The row's column names in the internal spelling; checks what a table must have."""
        header: list[str] = []
        for i, h in enumerate(c.strip() for c in row):
            at = loc.replace(col=starts[i])
            if not h:
                raise Diagnostic("empty column name in header", at)
            name = ALIASES.get(h, h)
            if name in header:
                raise Diagnostic(f"column '{h}' appears twice", at)
            header.append(name)
        have = set(header) | set(defaults)
        missing = [c for c in ("kernel", "target", "dtype") if c not in have]
        if not set(SHAPE) <= have:  # config rows only: the tiles are what dispatch reads
            missing += [c for c in TILES if c not in have]
        elif set(TILES) & have:  # the three tile columns, or none
            missing += [c for c in TILES if c not in have]
        if missing:
            raise Diagnostic(f"header lacks required column(s) {', '.join(missing)}", loc.replace(col=len(line) + 1),
                             ("required: kernelName (or kernel), target, dtype, and M, N, K or tile_m, tile_n, "
                              "tile_k; Registry.from_csv(defaults=...) supplies columns a table lacks",))
        return header

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
            if v < 0 or (c in (*TILES, "block", *SHAPE, "cu_num") and v == 0):
                raise Diagnostic(f"column '{c}': {v} is out of range", loc(c))
            ints[c] = v
        bools: dict[str, bool] = {}
        for c in BOOL_COLUMNS:
            raw = row.get(c, "").strip()
            if raw.lower() not in ("", "0", "1", "true", "false"):
                raise Diagnostic(f"column '{c}' must be 0 or 1 (or True/False), got {raw}", loc(c))
            bools[c] = raw.lower() in ("1", "true")
        floats: dict[str, float | None] = {}
        for c in FLOAT_COLUMNS:
            raw = row.get(c, "").strip()
            floats[c] = None
            if raw:
                try:
                    floats[c] = float(raw)
                except ValueError:
                    raise Diagnostic(f"column '{c}': '{raw}' is not a number", loc(c)) from None
                if not math.isfinite(floats[c]) or floats[c] < 0:  # type: ignore[arg-type]
                    raise Diagnostic(f"column '{c}': {raw} is not a valid {'time' if c == 'us' else 'rate'}", loc(c))
        for c in ("kernel", "target", "dtype"):
            if not row[c].strip():
                raise Diagnostic(f"column '{c}' is empty", loc(c))
        shape_cols = [ints[c] for c in SHAPE]
        if any(v is not None for v in shape_cols) and any(v is None for v in shape_cols):
            raise Diagnostic("a tuned row needs all of M, N, K (or none)",
                             loc(next(c for c in SHAPE if ints[c] is None)))
        tiles = [ints[c] for c in TILES]
        if shape_cols[0] is None and None in tiles:
            raise Diagnostic("a config row (no M, N, K) needs tile_m, tile_n and tile_k",
                             loc(next(c for c in TILES if ints[c] is None)))
        if any(v is not None for v in tiles) and None in tiles:
            raise Diagnostic("a row needs all of tile_m, tile_n, tile_k (or none)",
                             loc(next(c for c in TILES if ints[c] is None)))
        target = row["target"].strip()
        if not _processor(target).startswith("gfx"):
            raise Diagnostic(f"column 'target': '{target}' is not an AMDGPU processor", loc("target"))
        cons = row.get("constraints", "").strip()
        try:
            parse_constraints(cons)
        except ValueError as e:
            raise Diagnostic(f"column 'constraints': {e}", loc("constraints")) from None
        shape = None if shape_cols[0] is None else (shape_cols[0], shape_cols[1], shape_cols[2])
        co = row.get("code_object", "").strip()
        return Entry(
            kernel=row["kernel"].strip(), code_object=(path.parent / co) if co else None,
            target=_processor(target), dtype=normalize_dtype(row["dtype"]),
            tile_m=tiles[0], tile_n=tiles[1], tile_k=tiles[2],
            splitk=ints["splitk"] or 0, bias=bools["bias"], preshuffle=bools["preshuffle"],
            block=ints["block"] or 256, layout=row.get("layout", "").strip(), shape=shape, us=floats["us"],
            time_kind=row.get("time_kind", "").strip(),
            extra={k: v for k, v in row.items() if k not in KNOWN}, loc=SourceLoc(fname, lineno, 1),
            op=row.get("op", "").strip() or "gemm", out_dtype=normalize_dtype(row.get("outdtype", "")),
            cu_num=ints["cu_num"], tflops=floats["tflops"], bw=floats["bw"], constraints=cons)

    # -- dispatch ----------------------------------------------------------------------------
    def _key(self, target: str, dtype: str, bias: bool, preshuffle: bool, op: str = "gemm"):
        return (_processor(target), op, normalize_dtype(dtype), (bool(bias), bool(preshuffle)))

    def _rows(self, key, m: int, n: int, k: int, out_dtype: str | None) -> list[Entry]:
        od = normalize_dtype(out_dtype) if out_dtype else ""
        return [e for e in self.entries if e.key == key and e.admits(m, n, k)
                and not (od and e.out_dtype and e.out_dtype != od)]

    def candidates(self, target: str, dtype: str, m: int, n: int, k: int, bias: bool = False,
                   preshuffle: bool = False, op: str = "gemm", out_dtype: str | None = None) -> list[Candidate]:
        key = self._key(target, dtype, bias, preshuffle, op)
        rows = [e for e in self._rows(key, m, n, k, out_dtype) if e.has_tiles]
        configs = [e for e in rows if not e.tuned]
        if not configs:  # a table of tuned rows only: its kernels, each with the split-K it was tuned with
            uniq: dict[str, Entry] = {}
            for e in rows:
                uniq.setdefault(e.kernel, replace(e, shape=None, us=None, splitk=-max(1, e.splitk)))
            configs = list(uniq.values())
        cu = self.cu_count(target)
        out = []
        for e in configs:
            tm, tn, tk = e.tile_m, e.tile_n, e.tile_k  # type: ignore[assignment]
            if e.splitk < 0:  # fixed by a tuned row
                e = replace(e, splitk=-e.splitk)
                splits = [e.splitk]
            else:
                splits = [1]
                s = 2
                while s <= e.splitk and tk * s <= k:
                    splits.append(s)
                    s *= 2
            for s in splits:
                tiles = math.ceil(m / tm) * math.ceil(n / tn)
                if not _is_gemm(op):  # row kernels: padding waste only
                    util = (m * n) / (tiles * tm * tn)
                    out.append(Candidate(e, 1, util, util, 1.0, 1.0, tiles))
                    continue
                kpad = math.ceil(k / (tk * s)) * tk * s
                util = (m * n) / (tiles * tm * tn) * (k / kpad)
                wgs = tiles * s
                waves = math.ceil(wgs / cu)
                wpc = wgs / (waves * cu)
                reuse = min(1.0, (2 * tm * tn / (tm + tn)) / 256)
                out.append(Candidate(e, s, util * wpc * reuse, util, wpc, reuse, wgs))
        out.sort(key=lambda c: (-c.score, -(c.entry.tile_m * c.entry.tile_n), c.splitk, c.entry.kernel))
        return out

    def select(self, target: str, dtype: str, m: int, n: int, k: int, bias: bool = False,
               preshuffle: bool = False, op: str = "gemm", out_dtype: str | None = None) -> Choice:
        for v, nm in ((m, "m"), (n, "n"), (k, "k")):
            if not isinstance(v, int) or v < 1:
                raise Diagnostic(f"problem size {nm}={v!r} must be a positive integer")
        key = self._key(target, dtype, bias, preshuffle, op)
        cu = self.cu_count(target)
        hits = [e for e in self._rows(key, m, n, k, out_dtype)
                if e.shape == (m, n, k) and e.cu_num in (None, cu)]
        if hits:
            best = min(hits, key=lambda e: (e.us if e.us is not None else math.inf, e.kernel))
            s = max(1, best.splitk)
            return Choice(best, s, "tuned", best.grid(m, n, s))
        cands = self.candidates(target, dtype, m, n, k, bias, preshuffle, op, out_dtype)
        if not cands:
            have = sorted({f"{e.target}/{'' if e.op == 'gemm' else e.op + '/'}{e.dtype}/bias={int(e.bias)}/preshuffle={int(e.preshuffle)}"
                           for e in self.entries})
            why = "" if any(e.key == key for e in self.entries) else \
                f"the registry has: {', '.join(have) or 'nothing'}"
            notes = (why,) if why else (f"no row of that key admits {m}x{n}x{k} on {cu} CUs (constraints, "
                                        f"cu_num, outdtype, or tuned rows without tile columns)",)
            raise Diagnostic(f"no kernel for {key[0]} {'' if op == 'gemm' else op + ' '}{key[2]} "
                             f"bias={int(bias)} preshuffle={int(preshuffle)}", notes=notes)
        c = cands[0]
        return Choice(c.entry, c.splitk, "heuristic", c.entry.grid(m, n, c.splitk), tuple(cands))

    def explain(self, target: str, dtype: str, m: int, n: int, k: int, bias: bool = False,
                preshuffle: bool = False, top: int = 10, op: str = "gemm", out_dtype: str | None = None) -> str:
        ch = self.select(target, dtype, m, n, k, bias, preshuffle, op, out_dtype)
        head = (f"problem {m}x{n}x{k} {'' if op == 'gemm' else op + ' '}{normalize_dtype(dtype)} on "
                f"{_processor(target)} (bias={int(bias)}, preshuffle={int(preshuffle)}, {self.cu_count(target)} CUs)")
        lines = [head]
        if ch.how == "tuned":
            t = f"{ch.entry.us:.3f} us {ch.entry.time_kind}".rstrip() if ch.entry.us is not None else "no time"
            lines.append(f"exact tuned hit: {ch.entry.kernel} (split-K {ch.splitk}, {t}) from {ch.entry.loc}")
        else:
            how = ("utilization x work-per-CU x reuse" if _is_gemm(op) else "utilization of M and N")
            lines.append(f"no tuned row for this shape; heuristic = {how}:")
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


HEADER = ("cu_num", "M", "N", "K", "dtype", "outdtype", "bias", "splitK", "us", "kernelName", "tflops", "bw",
          "time_kind", "code_object", "target", "op", "tile_m", "tile_n", "tile_k", "preshuffle", "block", "layout",
          "constraints")


def write_csv(path: str | Path, entries: Iterable[Entry], relative_to: str | Path | None = None,
              comments: Iterable[str] = ()) -> None:
    """Write entries in the schema above: aiter's columns first (``cu_num,M,N,K,dtype,outdtype,
    bias,splitK,us,kernelName,tflops,bw``, dtypes spelled ``torch.*``), then gcnforge's
    (code_object paths relative to the CSV's directory), then the extra columns sorted.
    ``comments``: lines written first, each prefixed with ``# ``."""
    path = Path(path)
    base = Path(relative_to) if relative_to else path.parent
    entries = list(entries)
    extra_cols = sorted({k for e in entries for k in e.extra if k not in KNOWN and k not in HEADER})
    num = lambda x, f: "" if x is None else format(x, f)
    with open(path, "w", newline="") as fh:
        for c in comments:
            fh.write(f"# {c}\n")
        w = csv.writer(fh, lineterminator="\n")
        w.writerow([*HEADER, *extra_cols])
        for e in entries:
            co: Path | str = ""
            if e.code_object is not None:
                try:
                    co = Path(e.code_object).resolve().relative_to(base.resolve())
                except ValueError:
                    co = Path(e.code_object).resolve()
            m, n, k = e.shape if e.shape else ("", "", "")
            w.writerow([num(e.cu_num, "d"), m, n, k, aiter_dtype(e.dtype), aiter_dtype(e.out_dtype), str(e.bias),
                        e.splitk, num(e.us, ".4f"), e.kernel, num(e.tflops, ".2f"), num(e.bw, ".2f"), e.time_kind,
                        str(co), e.target, e.op, num(e.tile_m, "d"), num(e.tile_n, "d"), num(e.tile_k, "d"),
                        int(e.preshuffle), e.block, e.layout, e.constraints,
                        *(e.extra.get(c, "") for c in extra_cols)])


def aiter_rates(m: int, n: int, k: int, in_bytes: float, out_bytes: float, us: float) -> tuple[float, float]:
    """aiter's ``tflops`` and ``bw`` (GB/s) of a GEMM row: 2MNK flops; A (M x K) and B (N x K)
    read once at ``in_bytes`` per element, C (M x N) written once at ``out_bytes``."""
    s = us * 1e-6
    return 2 * m * n * k / s / 1e12, ((m * k + n * k) * in_bytes + m * n * out_bytes) / s / 1e9

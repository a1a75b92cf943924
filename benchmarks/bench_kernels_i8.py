"""bench_kernels.py's int8 family: examples/gemm_i8.py against aiter's
``I8gemm_bf16_perTokenI8_BpreShuffle_{128x128,192x128}`` objects at every shape of aiter's
``aiter/configs/asm_a8w8_gemm.csv`` (bias, bf16 out), both predicted on the MI308X profile (the
80-CU part the table was measured on; the profile ``bench_timing_model`` fits on that table).

aiter: launched as ``bench_timing_model._run_a8w8`` does (imported): the table's split-K, the
tile its launcher's heuristic picks on 80 CUs. Both zero C themselves under split-K: one
launch each. Ours: the variant (tile, waves, prefetch depth, split-K) that ``gcnforge tune``
chose for the shape with ``examples/drivers/gemm_i8_tune.py`` (read from a registry table:
``--choices``, by default the committed ``examples/configs/gemm_i8.csv``; a shape it lacks runs
the 64x128 / 128x128 tile by M at the table's split-K). Inputs are random int8, scales and bias
random (never zeros), seeded by the shape as in the tuning family. Checked (the family's
checks): every work-group the timing mode emulated, its tile against NumPy (exact int32
products, f32 scales and bias, bf16; a split-K tile against the sequential bf16 sum of the
splits that ran, C starting at zero since a sampled launch may skip the split that zeroes it),
and the same binary's whole output at a reduced shape (``tm + 17`` x ``tn + 32`` x 1024, same
split-K) with C starting as NaN (every element must be written, or zeroed and added to)
against the same reference.

    python benchmarks/bench_kernels.py --only i8 [--quick]
    python benchmarks/bench_kernels_i8.py [--quick] [--choices TUNED.csv ...] [--table examples/configs/gemm_i8.csv]
        [--shapes I,J,..] [--traces DIR] [--traces-max-gb G]
"""

from __future__ import annotations

import csv
import io
import sys
from dataclasses import replace
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "examples" / "drivers"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_timing_model as btm  # noqa: E402
import gemm_i8_tune as tune  # noqa: E402
from trace_cache import DEFAULT_MAX_GB, size_gb  # noqa: E402

SMALL, LARGE = (64, 128, 1, 4, 3), (128, 128, 1, 4, 3)  # tm, tn, wm, wn, depth: a shape no table holds
LARGE_M = 1024  # from this M on the larger tile
TABLE = ROOT / "examples" / "configs" / "gemm_i8.csv"


def choices(paths) -> dict[tuple[int, int, int], tuple[tuple[int, int, int, int, int], int]]:
    """(M, N, K) -> (configuration, split-K) of the tuned row at the shape in the last of the
    registry tables ``paths`` that holds one (the committed table, then ``gcnforge tune``'s outputs
    over it: a later sweep's winners replace an earlier one's)."""
    from gcnforge.runtime.registry import Registry

    out: dict = {}
    for path in paths:
        if not Path(path).exists():
            continue
        for e in Registry.from_csv(path).entries:
            if e.tuned:
                cfg = (e.tile_m, e.tile_n, *(int(w) for w in e.extra["waves"].split("x")), int(e.extra["depth"]))
                out[tuple(e.shape)] = (cfg, e.splitk)
    return out


def candidates(m: int, n: int, k: int, ks: int, table: dict) -> tuple[tuple[int, int, int, int, int], int]:
    """(configuration, split-K) run at a shape: the table's, else a tile by M at aiter's split-K."""
    return table.get((m, n, k)) or (LARGE if m >= LARGE_M else SMALL, ks)


QUICK_SHAPES = [(192, 1280, 8192, 3), (1024, 8192, 1024, 4)]


def shapes(z: zipfile.ZipFile) -> list[tuple[int, int, int, int]]:
    """Every distinct (M, N, K, split-K) of asm_a8w8_gemm.csv (split-K 0 read as 1)."""
    out = []
    for r in csv.DictReader(io.StringIO(z.read("aiter/configs/asm_a8w8_gemm.csv").decode())):
        s = (int(r["M"]), int(r["N"]), int(r["K"]), int(r["splitK"]) or 1)
        if s not in out:
            out.append(s)
    return out


def predict(gemm_i8, kern, cfg, m, n, k, ks, prof):
    """(inputs, (C, LaunchResult)) of one timed launch on the shape's seeded random inputs (the
    registry table's ``us`` is this prediction: integration_test/examples/test_gemm_i8.py)."""
    ins = tune.inputs(m, n, k, np.random.default_rng(tune.seed(m, n, k)))
    return ins, tune.launch(kern, cfg, m, n, k, ks, ins, init=0, timing=prof, flops=2.0 * m * n * k)


def _ours(gemm_i8, cache, cfg):
    from lib.compile import compile_module

    if cfg not in cache:
        c = compile_module(gemm_i8.build(*cfg))
        cache[cfg] = (c, c.load("emulator")[gemm_i8.kernel_name(*cfg)])
    return cache[cfg]


def run(cache_dir: str | None, quick: bool, add_row, status, resources, pick=None, on_row=None,
        tables=(TABLE,)) -> list[dict]:
    """Adds one bench_kernels row per shape (``add_row``/``status``/``resources`` are
    bench_kernels'); returns the chosen configurations (for the registry table). ``pick``: the
    indices of ``shapes`` to run (default all); ``on_row(chosen so far)`` after each; ``tables``:
    the registry tables whose tuned rows say which variant runs at a shape (``choices``)."""
    import gemm_i8
    from gcnforge.perfmodel import profiles

    whl = btm.fetch_wheel(Path(cache_dir)) if cache_dir else "no aiter wheel (--skip-aiter)"
    if isinstance(whl, str):
        print(f"\nskipping the int8 family: {whl}")
        return []
    z = zipfile.ZipFile(whl)
    prof = profiles.get("mi308x")
    built: dict = {}
    chosen = []
    tuned = choices(tables)
    print("\nint8 per-token GEMM (bias, bf16 out) at asm_a8w8_gemm.csv's shapes on MI308X; aiter = its "
          f"I8gemm object, the launcher's tile; ours: the tuned variant of {', '.join(Path(t).name for t in tables)}")
    print(f"{'M':>5} {'N':>5} {'K':>5} {'ks':>3} {'ours us':>8} {'aiter us':>9} {'ratio':>6}  kernel; check; limiter")
    todo = QUICK_SHAPES if quick else shapes(z)
    for m, n, k, ks_a in [todo[i] for i in (pick if pick is not None else range(len(todo)))]:
        tm_a, tn_a = btm.i8_tile(m, n, ks_a)
        arep, aok = btm._run_a8w8(z, dict(m=m, n=n, k=k, split=ks_a, tile=f"{tm_a}x{tn_a}"), prof,
                                  np.random.default_rng(tune.seed(m, n, k)))
        cfg, ks = candidates(m, n, k, ks_a, tuned)
        c, kern = _ours(gemm_i8, built, cfg)
        ins, (out, res) = predict(gemm_i8, kern, cfg, m, n, k, ks, prof)
        rep = res.timing
        g = gemm_i8.grid(m, n, cfg[0], cfg[1], ks)
        ok = tune.tile_errors(out, ins, rep.sampled_ids, g, cfg[0], cfg[1], ks) == 0
        full = tune.reduced_errors_once(kern, cfg, ks) == 0  # the tuning trial's launch (its trace replays)
        st = status(ok, len(rep.sampled_ids), rep.workgroups, full, f"{cfg[0] + 17}x{cfg[1] + 32}x{tune.REDUCED_K}")
        name = gemm_i8.kernel_name(*cfg)
        au, tot = arep[0].us, rep.us
        add_row("gemm i8->bf16 per-token (MI308X)", f"{name} ks{ks}", f"{m}x{n}x{k}", tot,
                (au, f"I8gemm_bf16_perTokenI8_BpreShuffle_{tm_a}x{tn_a} ks{ks_a} ({aok}; {arep[0].limiter})"), st,
                rep.limiter, resources(c, name, rep))
        print(f"{m:>5} {n:>5} {k:>5} {ks_a:>3} {tot:8.2f} {au:9.2f} {tot / au:6.2f}  {name} ks{ks}; {st[0]}; "
              f"{rep.limiter}", flush=True)
        chosen.append(dict(m=m, n=n, k=k, ks=ks, cfg=cfg, us=rep.us, limiter=rep.limiter, aiter_us=au, blob=c.blob))
        if on_row:
            on_row(chosen)
    return chosen


def write_table(path: Path, chosen: list[dict], prof_name: str = "MI308X") -> None:
    """The registry table of the chosen configurations: a tuned row per shape (``us`` = the
    kernel's prediction) and a config row per kernel (split-K up to 8) for other shapes; code
    objects into ``<stem>_co/``."""
    import gemm_i8
    from gcnforge.runtime.registry import Entry, aiter_rates, write_csv

    co_dir = path.parent / f"{path.stem}_co"
    co_dir.mkdir(parents=True, exist_ok=True)
    entries, kernels = [], {}
    for x in chosen:
        tm, tn, wm, wn, depth = x["cfg"]
        name = gemm_i8.kernel_name(*x["cfg"])
        co = co_dir / f"{name}.co"
        co.write_bytes(x["blob"])
        common = dict(kernel=name, code_object=co, target="gfx942", dtype="i8", tile_m=tm, tile_n=tn,
                      tile_k=gemm_i8.TK, bias=True, preshuffle=True, block=64 * wm * wn, op="gemm", out_dtype="bf16",
                      constraints="N%32;K%64")
        extra = {"splitk_grid": "x", "waves": f"{wm}x{wn}", "depth": str(depth), "profile": prof_name}
        tf, bw = aiter_rates(x["m"], x["n"], x["k"], 1, 2, x["us"])
        entries.append(Entry(**common, splitk=x["ks"], shape=(x["m"], x["n"], x["k"]), us=x["us"],
                             time_kind="modeled", cu_num=80, tflops=tf, bw=bw,
                             extra={**extra, "aiter_us": f"{x['aiter_us']:.4f}",
                                    "limiter": x["limiter"].split(";")[0]}))
        kernels[name] = Entry(**common, splitk=8, extra=extra)
    write_csv(path, [*kernels.values(), *entries], comments=(
        "examples/gemm_i8.py (int8 per-token GEMM, aiter's I8gemm_bf16_perTokenI8_BpreShuffle arguments; registry "
        "schema: gcnforge.runtime.registry); tuned rows at aiter's asm_a8w8_gemm.csv shapes, us = the timing "
        f"model's prediction on the {prof_name} profile (launch overhead included), aiter_us = aiter's object "
        "on the same profile.",
        "written by: python benchmarks/bench_kernels_i8.py --choices examples/configs/gemm_i8.csv TUNED.csv ... --table "
        "examples/configs/gemm_i8.csv (TUNED: gcnforge tune examples/drivers/gemm_i8_tune.py sweeps; or in parts: "
        "--shapes I,J,.. --table part_N.csv, then --join part_*.csv --table examples/configs/gemm_i8.csv)",
        f"The code objects are build outputs, written to {co_dir.name}/ beside this file."))


def join_tables(out: Path, parts: list[Path]) -> None:
    """One table of the parts' rows (config rows once; a shape in several parts: the last part's
    row), code objects moved beside it."""
    import shutil

    from gcnforge.runtime.registry import Registry, write_csv

    co_dir = out.parent / f"{out.stem}_co"
    co_dir.mkdir(parents=True, exist_ok=True)
    configs, tuned, comments = {}, {}, []
    for p in parts:
        comments = [ln[2:] for ln in p.read_text().splitlines() if ln.startswith("# ") and "_co/" not in ln]
        for e in Registry.from_csv(p).entries:
            dst = co_dir / e.code_object.name
            if e.code_object.resolve() != dst.resolve():
                shutil.copy(e.code_object, dst)
            e = replace(e, code_object=dst)
            if e.tuned:
                tuned[tuple(e.shape)] = e
            else:
                configs.setdefault(e.kernel, e)
    order = {s[:3]: i for i, s in enumerate(shapes(zipfile.ZipFile(btm.fetch_wheel(Path.home() / ".cache" / "gcnforge" / "aiter"))))}
    rows = sorted(tuned.values(), key=lambda e: order.get(tuple(e.shape), len(order)))
    write_csv(out, [*configs.values(), *rows], comments=[
        *comments, f"The code objects are build outputs, written to {co_dir.name}/ beside this file."])


def main(argv=None) -> int:
    import argparse

    import bench_kernels as bk

    ap = argparse.ArgumentParser(description="the int8 family of bench_kernels.py (and its registry table)")
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "gcnforge" / "aiter"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--table", help="write the registry table of the chosen configurations here")
    ap.add_argument("--choices", nargs="+", default=[str(TABLE)], help="registry tables of the variant per shape "
                    "(the committed table, gcnforge tune's outputs with examples/drivers/gemm_i8_tune.py: a shape "
                    "runs the row of the last table that has it; default: the committed table)")
    ap.add_argument("--shapes", help="comma-separated indices into the table's shapes (parallel runs; their "
                    "--table files joined with --join)")
    ap.add_argument("--join", nargs="+", help="join these --table files into --table (no run)")
    ap.add_argument("--traces", default=str(Path.home() / ".cache" / "gcnforge" / "bench_kernels_traces"),
                    help="emulator launches recorded in / replayed from this directory (trace_cache.LaunchCache, "
                    "as bench_kernels.py --traces); '' emulates every launch")
    ap.add_argument("--traces-max-gb", type=size_gb, default=DEFAULT_MAX_GB,
                    help="as bench_kernels.py --traces-max-gb: the bound --traces is pruned to after the run")
    a = ap.parse_args(argv)
    if a.join:
        join_tables(Path(a.table), [Path(p) for p in a.join])
        return 0
    pick = [int(v) for v in a.shapes.split(",")] if a.shapes else None
    save = (lambda ch: write_table(Path(a.table), ch)) if a.table else None  # after every shape
    import contextlib

    import time

    from trace_cache import LaunchCache, enforce_cap

    t0_ns = time.time_ns()
    with LaunchCache(a.traces) if a.traces else contextlib.nullcontext():
        run(a.cache, a.quick, bk.add_row, bk.status, bk._resources, pick, save, a.choices)
    bk.summary()
    pruned = enforce_cap(a.traces, a.traces_max_gb, t0_ns) if a.traces else None
    if pruned:
        print(pruned)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The kernel library's fast kernels, predicted by the timing model, checked against NumPy on
random inputs, side by side with AMD aiter's code objects predicted on the same profile.

Per family and shape the summary prints gcnforge's predicted us, aiter's object's predicted us
(where aiter has an object for the job), their ratio and the correctness status, and ends with
``kernels: X of Y shapes at ratio <= 1.0, Z unchecked`` (Y: shapes with an aiter object; Z: shapes
whose output was not verified, mismatches included). A shape is checked when its whole output
matched NumPy, or when every work-group the timing mode emulated matched (the other outputs of a
sampled launch are never computed) and the same binary's whole output matched at a reduced shape
(run-time M and N make it the same code). Inputs are random, never zeros.

1. Large GEMMs (examples/gemm_macro.py: M, N and K arguments, one binary per tile variant) on
   the MI300X profile: bf16 -> f32 at 4096^3, 8192^3, 8192 x 1280 x 8192 and, with K not a
   multiple of the tile, 4096 x 4096 x 4000 and 1000^3; fp8 with per-token / per-channel scales
   -> bf16 at 8192^3; the ``anyk`` variant (element loads) at 1000 x 1000 x 999. aiter: the bf16
   object its launcher picks for the shape
   (``aiter_bf16_choice``: ``get_heuristic_kernel`` of ``csrc/py_itfs_cu/asm_gemm_a16w16.cu``
   over the four ``bf16gemm_outf32_tn_{32,48,64,96}x64_pf3`` tiles of the amd-aiter wheel, on the
   profile's CU count; fewest rounds of work-groups, then fewer idle CUs or less M padding), launched
   as ``bench_timing_model`` does; none where that launcher refuses the shape (N not a multiple of
   64); the wheel has no fp8 GEMM object. Also printed: % of the device's MAF at the kernel's mean
   sustained clock. Reduced-shape check: (tm - 56) x (tn - 56) x K, one work-group with both tails
   clamped; shapes of at most 2^30 multiply-adds are also run whole (untimed) and checked whole.
2. aiter's skinny bf16 rows (``bf16_tuned_gemm.csv``, cu_num 80: M 64..384, N 256, K 5120,
   f32 out) on the MI308X profile. aiter: the model's prediction for aiter's own tuned kernel
   (plus the ``out.zero_()`` fill its split-K launcher runs) and its measured time, both from
   ``bench_timing_model.aiter_rows`` (imported, not copied). Ours: the best of the skinny tuning
   family (examples/drivers/gemm_tune.py) per row plus the same fill, then run whole and checked.
3. MoE top-k softmax (examples/topk_softmax.py), tokens x 128/256 experts, k 4..8, f32 logits, on
   MI300X. aiter: its production code objects for the same job,
   ``hsa/gfx942/topksoftmax/topksoftmax_{subm}x{E}x{k}.co`` (ROCm/aiter repository, MIT; not in
   the amd-aiter wheels on PyPI up to 0.1.7.post2.dev18), launched as aiter's
   ``csrc/py_itfs_cu/asm_topksoftmax.cu`` does: 16-byte kernarg slots (indices, weights, logits,
   tokens, experts, k, renormalize, output row stride in bytes), ceil(T / subm) work-groups of
   256, subm 4 below 10,000 tokens, else 12 where that object exists. Both are first run whole on
   a few tokens against NumPy. The objects are read from ``CACHE/topksoftmax``; ``--aiter-repo
   DIR`` (a clone of ROCm/aiter) fills it.
4. RMSNorm / LayerNorm bf16 (examples/norms.py ``build_bf16``), 8192 rows of 4096 and 8192, on
   MI300X. No aiter object; reference: the bytes moved at the profile's achievable (measured)
   HBM bandwidth, plus the launch overhead.
5. gfx950: examples/gemm_mfma_f16.py built for gfx950 (f16, bf16) and examples/gemm_mxfp.py
   (MXFP4) at 2048^3 (``--quick``: 1024^3, f16 only) on the MI355X profile, and the gfx942 build
   of the f16 example on MI300X. No aiter object. K and N are compile-time in the f16/bf16 example
   and M is the grid: the reduced shape is one row of tiles. MXFP4 fixes M, N and K and has no
   NumPy reference here (integration_test has one): it counts as unchecked.

6. Fused MoE stage 1 (examples/moe/stage1.py; ``bench_moe.py`` has the details): DeepSeek-V3-,
   Qwen-MoE- and Mixtral-like shapes at 1, 16, 128 and 1024 tokens on MI300X, against aiter's
   ``fmoe_stage1_bf16_pertokenFp8_g1u1_*`` object its launcher's heuristic picks, on the same
   routing; shapes whose weights exceed ``--moe-max-gb`` are skipped and listed.
7. int8 per-token GEMM in aiter's ``I8gemm_bf16_perTokenI8_BpreShuffle`` layout (examples/gemm_i8.py:
   M, N, K, split-K at run time) at every shape of aiter's ``asm_a8w8_gemm.csv`` on MI308X, against
   aiter's I8gemm objects on the same profile (``bench_kernels_i8.py``; ``--only i8``).

For each kernel: registers (VGPR / AGPR / SGPR), LDS, occupancy and the model's limiter.
The same kernels and shapes as registry tables (aiter's column spelling, ``us`` = these predictions):
``python examples/drivers/kernel_tables.py -o examples/configs`` (plus the ``gcnforge tune`` tables gemm_macro_*.csv).

    python benchmarks/bench_kernels.py [--cache DIR] [--aiter-repo DIR] [--skip-aiter] [--quick] [--only PART]...
                                       [--traces DIR | --no-traces] [--traces-max-gb G] [--jobs N]

Every emulator launch is kept in ``--traces DIR`` (default ``~/.cache/gcnforge/bench_kernels_traces``;
``trace_cache.LaunchCache``): what it wrote and, when timed, what the emulation recorded for the
timing model, keyed by the code object, every argument's bytes, the launch options and the
profile's recorded fields. A launch found there is not emulated: its outputs are written back and
the current timing model re-predicts it, so the checks against NumPy run on the identical
binary's outputs; a changed model or profile re-costs the run in minutes, a changed kernel or
input re-emulates only its launches, and an interrupted run resumes. Launches recorded under another
emulator source are replayed and counted in the last line (``--traces-strict`` emulates them again). After the
run the directory is pruned to ``--traces-max-gb`` (default 2; ``inf``: no bound): entries of other emulator
sources first, then the least recently replayed (``trace_cache.prune``; by hand: ``python
benchmarks/trace_cache.py --stats DIR`` / ``--prune DIR``). Each family's inputs come
from a generator seeded by the family, so ``--only`` runs fill the cache for the default run.
``--jobs N`` runs the families in a pool of N processes (``gcnforge.runtime.tune_exec``, as
``gcnforge tune``); each family's output is printed once it and the families before it are done.

``--quick``: 4096^3 (bf16 and fp8) and 1000^3 (run whole), two aiter rows, two top-k shapes and one
norm size only (4 minutes on an idle 2-core machine before the 1000^3 and MoE rows; 23 under a load of 18; the default run is several times
that: each 8192-wide GEMM takes minutes to emulate, predict and check); ``--only`` runs one part (gemm, skinny, topk, norms, gfx950, moe, i8). Figures are
predictions of the model in ``gcnforge.perfmodel`` on the named profile, not measurements: each
includes the profile's launch overhead and runs at the profile's sustained clock (boost 2.1 GHz
MI300X / 2.4 GHz MI355X, lower when the matrix cores are busy: capped so no kernel exceeds AMD's
published MAF; the report's mean clock is printed), with measured HBM bandwidth.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "examples" / "drivers"))  # gemm_tune
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_timing_model as btm  # noqa: E402
from trace_cache import DEFAULT_MAX_GB, size_gb  # noqa: E402

LARGE = [  # dtype, out, m, n, k, tm, tn, wm, wn
    ("bf16", "f32", 4096, 4096, 4096, 256, 256, 2, 2),
    ("bf16", "f32", 8192, 8192, 8192, 256, 256, 2, 2),
    ("bf16", "f32", 8192, 1280, 8192, 256, 160, 4, 1),
    ("bf16", "f32", 4096, 4096, 4000, 256, 256, 2, 2),  # K not a multiple of the tile (32)
    ("bf16", "f32", 1000, 1000, 1000, 256, 256, 2, 2),  # nothing a multiple of the tile
    ("fp8", "bf16", 8192, 8192, 8192, 256, 256, 2, 2),  # per-token and per-channel scales
    ("bf16", "f32", 1000, 1000, 999, 256, 256, 2, 2, True),  # the anyk variant: K not a multiple of 8
]
QUICK = [LARGE[0], ("fp8", "bf16", 4096, 4096, 4096, 256, 256, 2, 2), LARGE[4]]
AITER_BF16_TILES = (32, 48, 64, 96)  # the M tiles of aiter's bf16gemm objects in the wheel (x 64)
WHOLE = 1 << 30  # multiply-adds up to which a large-GEMM shape is also emulated whole
CACHE: str | None = None  # the aiter wheel's cache (--cache); None: --skip-aiter
ROWS_RE = None  # --rows: a compiled regular expression, or None (every row)
ROWS: list[dict] = []  # one per family and shape: see add_row

EPS = float(np.finfo(np.float32).eps)
RNG = np.random.default_rng(25)


def row(part: str, label: str) -> bool:
    """Whether the row ``label`` of family ``part`` runs (``--rows``); if so, its inputs come from a
    generator seeded by the row alone, so a subset of the rows draws the inputs of the whole run."""
    global RNG
    if ROWS_RE is not None and not ROWS_RE.search(f"{part} {label}"):
        return False
    RNG = np.random.default_rng([25, PARTS.index(part), zlib.crc32(label.encode())])
    return True


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bit patterns, round to nearest even (NumPy, independent of the emulator)."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_value(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def fp8_value(code: np.ndarray) -> np.ndarray:
    """e4m3 "fnuz" (gfx942): exponent bias 8, exponent 0 subnormal (m 2^-10), 0x80 NaN."""
    c = code.astype(np.int64)
    e, mnt = (c >> 3) & 0xF, c & 7
    v = np.where(e == 0, mnt * 2.0 ** -10, (1 + mnt / 8) * 2.0 ** (e - 8))
    return np.where(c == 0x80, np.nan, np.where(c & 0x80, -v, v))


def gemm_inputs(dtype: str, m: int, n: int, k: int) -> dict:
    """Random A (m x k), B^T (n x k) and, for fp8, per-token / per-channel scales: never zeros."""
    if dtype == "fp8":
        a, bt = RNG.integers(0, 256, (m, k), dtype=np.uint8), RNG.integers(0, 256, (n, k), dtype=np.uint8)
        a[a == 0x80], bt[bt == 0x80] = 0x08, 0x08  # 0x80 is NaN in fnuz
        return dict(a=a, bt=bt, sa=RNG.uniform(0.5, 2, m).astype(np.float32),
                    sb=RNG.uniform(0.5, 2, n).astype(np.float32))
    if dtype == "f16":
        return dict(a=RNG.standard_normal((m, k)).astype(np.float16).view(np.uint16),
                    bt=RNG.standard_normal((n, k)).astype(np.float16).view(np.uint16))
    return dict(a=bf16_bits(RNG.standard_normal((m, k), np.float32)),
                bt=bf16_bits(RNG.standard_normal((n, k), np.float32)))


def gemm_tiles_ok(c, x: dict, dtype: str, ids, grid, tm: int, tn: int) -> bool:
    """Each listed work-group's output tile (linear id -> tile (y, x) of ``grid``) against NumPy
    in float64; tolerance: k roundings of the largest product (f32 accumulation), the scales'
    two f32 roundings and, for bf16 output, its 2^-8."""
    m, n, k = x["a"].shape[0], x["bt"].shape[0], x["a"].shape[1]
    dec = {"fp8": fp8_value, "f16": lambda v: v.view(np.float16).astype(np.float64)}.get(dtype, bf16_value)
    for wid in ids:
        gx, gy = wid % grid[0], (wid // grid[0]) % grid[1]
        r0, c0 = gy * tm, gx * tn
        if r0 >= m or c0 >= n:
            continue
        a, b = dec(x["a"][r0:r0 + tm]), dec(x["bt"][c0:c0 + tn])
        ref = a @ b.T
        tol = k * EPS * np.abs(a).max() * np.abs(b).max() * 4
        if dtype == "fp8":
            ref = ref * x["sa"][r0:r0 + tm, None].astype(np.float64) * x["sb"][None, c0:c0 + tn].astype(np.float64)
            tol = tol * 4 + 3 * EPS * np.abs(ref)
        got = c[r0:r0 + tm, c0:c0 + tn]
        if c.dtype == np.uint16:  # bf16 output
            got, tol = bf16_value(got), tol + 2.0 ** -8 * np.abs(ref)
        if not np.all(np.abs(got - ref) <= tol):  # NaN (an unwritten sentinel) fails too
            return False
    return True


def status(tiles: bool | None, n_ids: int, n_wg: int, full: bool | None, why: str = "") -> tuple[str, bool]:
    """(text, checked): checked when the whole output was compared, or every emulated work-group's
    tile was and the same binary's whole output at a reduced shape."""
    if tiles is False or full is False:
        return "MISMATCH vs NumPy", False
    t = f"{n_ids}/{n_wg} WG tiles ok" if n_ids < n_wg else "full output ok"
    if n_ids >= n_wg:
        return t, True
    if full:
        return t + " + full ok at " + why, True
    return t + f"; UNCHECKED rest ({why})", False


def add_row(family: str, kernel: str, shape: str, us: float, aiter: tuple[float, str] | None,
            st: tuple[str, bool], note: str, res: str = "") -> None:
    """``aiter``: (aiter's object's predicted us on the same profile, its name), None where no
    aiter object does this job; ``st``: (correctness text, checked) from ``status``."""
    ROWS.append(dict(family=family, kernel=kernel, shape=shape, us=us, aiter=aiter, check=st[0], checked=st[1],
                     note=note, res=res))


def _resources(c, name: str, rep) -> str:
    r = c.regs.get(name, {})
    o = rep.occupancy
    return (f"v{r.get('v', '?')} a{r.get('a', '?')} s{r.get('s', '?')}, LDS "
            f"{_lds(c.asm, name)} B, {o.waves_per_simd} waves/SIMD, {o.wgs_per_cu} WG/CU ({o.limiter})")


def _lds(asm: str, name: str) -> int:
    import re

    m = re.search(r"\.amdhsa_group_segment_fixed_size\s+(\d+)", asm)
    return int(m.group(1)) if m else 0


def aiter_bf16_choice(m: int, n: int, k: int, cus: int) -> tuple[int, int] | None:
    """(M tile, split-K) aiter's bf16 launcher picks for M x N x K on ``cus`` CUs, or None where it
    refuses the shape: ``get_heuristic_kernel`` of aiter's ``csrc/py_itfs_cu/asm_gemm_a16w16.cu``
    (amd-aiter 0.1.7.post2.dev18), re-stated: over the tiles with N % 64 == 0, split-K fills the
    CUs when fewer work-groups than CUs (up to 64, K % 64 required), then the fewest rounds of
    work-groups wins; in a tie, fewer idle CUs in the last round or less M padding, then (both
    equal) the better tile_m tile_n / (tile_m + tile_n). Tiles are visited in the CSV's order."""
    best, rounds, empty, effi, oob = None, None, cus, 1.0, m
    for tile in AITER_BF16_TILES:  # the wheel's CSV order
        if n % 64:
            continue
        tgs = -(-m // tile) * (n // 64)
        split = 1
        if tgs < cus:
            if k % 64:
                return None  # the launcher's "Kdim must be divisible by 64"
            split = min(cus // tgs, 64)
        tg = tgs * split
        r = -(-tg // cus)
        e = tile * 64 / (tile + 64)
        pad = 0 if m % tile == 0 else tile - m % tile
        less_oob = oob > 0 if m % tile == 0 else pad < oob
        same_oob = tile - m % tile == oob  # as the launcher writes it (tile, not 0, when m % tile == 0)
        if (rounds is None or r < rounds or (r == rounds and (empty > r * cus - tg or less_oob))
                or (r == rounds and empty == r * cus - tg and same_oob and e > effi)):
            best, rounds, empty, effi, oob = (tile, split), r, r * cus - tg, e, pad
    return best


def aiter_bf16(m: int, n: int, k: int, prof) -> tuple[float, str] | None:
    """aiter's bf16 GEMM object its launcher picks at the shape (``aiter_bf16_choice``) on
    ``prof``, launched as bench_timing_model does (asm_gemm_a16w16.cu's layout): (predicted us,
    object and its work-group check); None without the wheel or where the launcher refuses."""
    import zipfile

    if CACHE is None:
        return None
    whl = btm.fetch_wheel(Path(CACHE))
    if isinstance(whl, str):
        return None
    pick = aiter_bf16_choice(m, n, k, prof.cus)
    if pick is None:
        return None
    x = dict(m=m, n=n, k=k, split=pick[1], tile=str(pick[0]))
    reps, ok = btm._run_bf16(zipfile.ZipFile(whl), x, prof, RNG)
    split = f", split-K {pick[1]} + its zero fill" if pick[1] > 1 else ""
    return sum(r.us for r in reps), f"bf16gemm_outf32_tn_{pick[0]}x64_pf3 (launcher's pick{split}; {ok})"


def large_gemms(quick: bool) -> None:
    import gemm_macro
    from gcnforge.perfmodel import profiles
    from lib.compile import compile_module

    prof = profiles.get("mi300x")
    print(f"\nlarge GEMMs on MI300X; dense MFMA peak: bf16 "
          f"{prof.mfma_peak_flops(gemm_macro.MFMA['bf16']) / 1e12:.0f}, fp8 "
          f"{prof.mfma_peak_flops(gemm_macro.MFMA['fp8']) / 1e12:.0f} TFLOP/s; random inputs")
    for dtype, o, m, n, k, tm, tn, wm, wn, *anyk in QUICK if quick else LARGE:
        anyk = bool(anyk and anyk[0])
        if not row("gemm", f"{dtype} {m}x{n}x{k}" + (" anyk" if anyk else "")):
            continue
        c = compile_module(gemm_macro.build(dtype, o, tm, tn, wm, wn, anyk=anyk), schedule=True)
        name = gemm_macro.kernel_name(dtype, o, tm, tn, wm, wn, anyk=anyk)
        kern = c.load("emulator")[name]
        tiles = dict(tm=tm, tn=tn, wm=wm, wn=wn, anyk=anyk)

        def run(mm, nn, **kw):
            x = gemm_inputs(dtype, mm, nn, k)
            out = np.full((mm, nn), np.nan, np.float32) if o == "f32" else np.full((mm, nn), 0xFFFF, np.uint16)
            res = gemm_macro.launch(kern, x["a"], x["bt"], out, (x["sa"], x["sb"]) if dtype == "fp8" else (), **tiles,
                                    device="emulator", **kw)
            return x, out, res

        g = gemm_macro.grid(m, n, tm, tn)
        t0 = time.perf_counter()
        x, out, res = run(m, n, timing=prof, flops=2.0 * m * n * k)
        rep = res.timing
        wall = time.perf_counter() - t0
        ok = gemm_tiles_ok(out, x, dtype, rep.sampled_ids, g, tm, tn)
        if m * n * k <= WHOLE:  # small enough to emulate whole: the same binary, every tile
            xw, outw, _ = run(m, n)
            full, why = gemm_tiles_ok(outw, xw, dtype, range(g[0] * g[1]), g, tm, tn), f"{m}x{n}x{k} whole (untimed run)"
        else:  # the same binary (M, N, K are arguments) on one work-group's worth, both tails clamped
            mr, nr = tm - 56, tn - 56
            xr, outr, _ = run(mr, nr)
            full, why = gemm_tiles_ok(outr, xr, dtype, [0], (1, 1), tm, tn), f"{mr}x{nr}x{k}"
        st = status(ok, len(rep.sampled_ids), rep.workgroups, full, why)
        ref = aiter_bf16(m, n, k, prof) if dtype == "bf16" else None
        maf = prof.maf(rep.dtype) if rep.dtype else None
        pct_maf = 100 * rep.tflops * 1e12 / maf if maf else None
        why_not = f"N = {n} not a multiple of 64" if n % 64 else f"it would split K = {k}, not a multiple of 64"
        none = "; no aiter object for this family in the wheel" if dtype != "bf16" else \
            f"; aiter's launcher refuses this shape ({why_not})" if not ref and CACHE else ""
        add_row(f"gemm {dtype}->{o} (MI300X)", name, f"{m}x{n}x{k}", rep.us, ref, st,
                f"{rep.tflops:.0f} TFLOP/s = {pct_maf:.0f}% of MAF at {rep.clock_eff_hz / 1e6:.0f} MHz; {rep.limiter}"
                + none, _resources(c, name, rep))
        print(f"  {m}x{n}x{k} {name}: {rep.us:.1f} us, {rep.tflops:.0f} TFLOP/s, {rep.pct_mfma_peak:.1f}% of peak, "
              f"{pct_maf:.1f}% of MAF {maf / 1e12:.0f} TFLOP/s ({rep.limiter}; kernel at {rep.clock_eff_hz / 1e6:.0f} "
              f"MHz mean clock; {wall:.0f} s to predict); {st[0]}"
              + (f"; aiter {ref[1]}: {ref[0]:.1f} us" if ref else ""))
        for note in rep.notes:
            if "MAF" in note:
                print(f"    note: {note}")


def skinny(cache: Path, quick: bool) -> None:
    import gemm_tune
    import gcnforge.runtime as rt
    from gcnforge.binary import assemble
    from gcnforge.perfmodel import profiles
    from gcnforge.runtime.kernargs import ArgLayout
    from lib.compile import compile_module

    whl = btm.fetch_wheel(cache)
    if isinstance(whl, str):
        if os.environ.get("CI") == "true":
            raise SystemExit(f"error: {whl}")
        print(f"\nskipping aiter's skinny rows: {whl}")
        return
    prof = profiles.get("mi308x")
    ref = btm.aiter_rows(whl, 2 if quick else None)
    fam = gemm_tune.skinny
    built = {}
    for v in fam.variants():
        p = v.params
        wm, wn = (int(x) for x in p["waves"].split("x"))
        c = compile_module(gemm_tune.gemm_macro.build("bf16", "f32", p["tile_m"], p["tile_n"], wm, wn,
                                                      p["splitk"], p["depth"]), schedule=True)
        built[v.name] = (v, c, c.load("emulator")[v.kernel])
    fill = rt.load(assemble(btm.micro("fill"))).kernel("fill", layout=ArgLayout.slots16(["out:u32*"]))
    print("\naiter's skinny bf16 rows (f32 out) on MI308X (80 CUs): ours = best gemm_macro variant per row")
    print(f"{'M':>4} {'N':>4} {'K':>5} {'ours us':>8} {'variant':>40} {'aiter meas':>10} {'aiter model':>11} "
          f"{'/meas':>6} {'/model':>7}  limiter")
    for x in ref:
        m, n, k = x["m"], x["n"], x["k"]
        if not row("skinny", f"{m}x{n}x{k}"):
            continue
        inp = gemm_inputs("bf16", m, n, k)
        best = None
        for name, (v, c, kern) in built.items():
            p = v.params
            rep = kern(inp["a"], inp["bt"], np.zeros((m, n), np.float32), np.uint32(m), np.uint32(n), np.uint32(k),
                       grid=gemm_tune.gemm_macro.grid(m, n, p["tile_m"], p["tile_n"], p["splitk"]),
                       block=(p["block"],), timing=prof, flops=2.0 * m * n * k).timing
            t_fill = 0.0
            if p["splitk"] > 1:
                t_fill = fill(np.zeros(m * n, np.uint32), grid=(m * n * 4 // 1024,), block=(64,), device="emulator",
                              timing=prof).timing.us
            tot = rep.us + t_fill
            if best is None or tot < best[0]:
                best = (tot, name, rep, c)
        tot, name, rep, c = best
        # the chosen variant once more on the same inputs, every work-group (split-K adds into zeros)
        v, _, kern = built[name]
        p, out = v.params, np.zeros((m, n), np.float32)
        g = gemm_tune.gemm_macro.grid(m, n, p["tile_m"], p["tile_n"], p["splitk"])
        kern(inp["a"], inp["bt"], out, np.uint32(m), np.uint32(n), np.uint32(k), grid=g, block=(p["block"],),
             device="emulator")
        ok = gemm_tiles_ok(out, inp, "bf16", range(g[0] * g[1]), g, p["tile_m"], p["tile_n"])
        aiter_model = x["gemm"] + x["fill"]
        add_row("gemm bf16->f32 skinny (MI308X)", name, f"{m}x{n}x{k}", tot,
                (aiter_model, f"bf16gemm_outf32_tn_*x64_pf3 (aiter's tuned row; measured {x['measured']:.2f} us)"),
                status(ok, 1, 1, None), rep.limiter, _resources(c, name, rep))
        print(f"{m:>4} {n:>4} {k:>5} {tot:8.2f} {name:>40} {x['measured']:10.2f} {aiter_model:11.2f} "
              f"{tot / x['measured']:6.2f} {tot / aiter_model:7.2f}  {rep.limiter}; "
              f"{'full output ok' if ok else 'MISMATCH vs NumPy'}")


TOPK = ([(t, e, k, False) for t in (4096, 32768) for e, k in ((128, 4), (128, 6), (128, 8), (256, 6), (256, 8))]
        + [(t, 256, 8, True) for t in (4096, 32768)])  # tokens, experts, k, renormalize
TOPK_QUICK = [(4096, 128, 8, False), (32768, 256, 8, True)]
AITER_TOPK = "hsa/gfx942/topksoftmax"  # in the ROCm/aiter repository


def topk_objects(cache: Path, repo: str | None) -> Path | str:
    """The directory of aiter's top-k softmax code objects (copied from ``repo`` when given),
    or why there is none."""
    import shutil
    import subprocess

    d = cache / "topksoftmax"
    if repo:
        d.mkdir(parents=True, exist_ok=True)
        src = Path(repo) / AITER_TOPK
        if src.is_dir():  # a work tree
            for f in src.iterdir():
                shutil.copy(f, d / f.name)
        else:  # a bare clone
            names = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", "HEAD", AITER_TOPK + "/"],
                                   capture_output=True, text=True, check=True).stdout.split()
            for n in names:
                (d / Path(n).name).write_bytes(subprocess.run(["git", "-C", repo, "show", f"HEAD:{n}"],
                                                              capture_output=True, check=True).stdout)
    if not (d / "topksoftmax.csv").is_file():
        return (f"no {d}/topksoftmax.csv: pass --aiter-repo DIR (a clone of ROCm/aiter; its {AITER_TOPK}/ "
                f"holds them, the amd-aiter wheels do not)")
    return d


def topk(cache: Path, repo: str | None, quick: bool) -> None:
    import csv

    import topk_softmax
    import gcnforge.runtime as rt
    from gcnforge.perfmodel import profiles
    from gcnforge.runtime.kernargs import ArgLayout
    from lib.compile import compile_module

    d = topk_objects(cache, repo)
    if isinstance(d, str):
        print(f"\nskipping top-k softmax: {d}")
        return
    prof = profiles.get("mi300x")
    table = [r for r in csv.DictReader(open(d / "topksoftmax.csv")) if r["dtype"] == "fp32"]
    layout = ArgLayout.slots16(["T:i32*", "W:f32*", "A:const f32*", "batch:u32", "expert:u32", "topk:u32",
                                "renormalize:u32", "out_stride:u32"])

    def aiter(e, k, renorm, tokens):
        subm = max(int(r["subm"]) for r in table if (int(r["num_experts"]), int(r["topk"])) == (e, k)
                   and int(r["subm"]) <= (4 if tokens < 10000 else 12))  # the launcher's choice
        r = next(r for r in table if (int(r["subm"]), int(r["num_experts"]), int(r["topk"])) == (subm, e, k))
        kern = rt.load((d / r["co_name"]).read_bytes()).kernel(r["knl_name"], layout=layout)
        return subm, r["co_name"], lambda x, w, i, **kw: kern(i, w, x, x.shape[0], e, k, int(renorm), 4 * k,
                                                              grid=(-(-x.shape[0] // subm),), block=(256,),
                                                              device="emulator", **kw)

    def ours(e, k, renorm):
        name = f"topk_softmax_e{e}_k{k}" + ("_renorm" if renorm else "")
        c = compile_module(topk_softmax.build(e, k, renorm))
        kern = c.load("emulator")[name]
        return name, c, lambda x, w, i, **kw: kern(x, w, i, grid=(x.shape[0],), block=(64,), **kw)

    def matches(x, w, i, k, renorm, rows) -> bool:
        x = x[rows]
        order = np.argsort(-x, axis=1, kind="stable")[:, :k]
        p = np.exp(x - x.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        p = np.take_along_axis(p, order, 1)
        if renorm:
            p /= p.sum(1, keepdims=True)
        return bool((i[rows] == order).all() and np.allclose(w[rows], p, rtol=1e-4))

    def checked(run, e, k, renorm, tokens) -> bool:
        x = np.random.default_rng(e + k).standard_normal((tokens, e)).astype(np.float32)
        w, i = np.zeros((tokens, k), np.float32), np.zeros((tokens, k), np.int32)
        run(x, w, i)
        return matches(x, w, i, k, renorm, slice(None))

    print(f"\nMoE top-k softmax (f32 logits) on MI300X; reference: aiter's production "
          f"code objects from {d}")
    print(f"{'tokens':>6} {'E':>4} {'k':>2} {'renorm':>6} {'ours us':>8} {'aiter us':>9} {'ratio':>6}  "
          "aiter object; checks; limiter")
    for tokens, e, k, renorm in TOPK_QUICK if quick else TOPK:
        subm, co, ref = aiter(e, k, renorm, tokens)
        name, c, mine = ours(e, k, renorm)
        ok_ref = checked(ref, e, k, renorm, 3 * subm + 1)
        full = checked(mine, e, k, renorm, 5)  # the same binary (tokens are a run-time grid), whole output
        # aiter branches on data
        x = np.random.default_rng(tokens + e + k).standard_normal((tokens, e)).astype(np.float32)
        w, i = np.zeros((tokens, k), np.float32), np.zeros((tokens, k), np.int32)
        ra = ref(x, w, i, timing=prof).timing
        w, i = np.full((tokens, k), np.nan, np.float32), np.full((tokens, k), -1, np.int32)
        ro = mine(x, w, i, timing=prof).timing
        tiles = matches(x, w, i, k, renorm, list(ro.sampled_ids))  # one token per work-group
        st = status(tiles, len(ro.sampled_ids), ro.workgroups, full, "5 tokens")
        add_row("topk_softmax f32 (MI300X)", name, f"{tokens}x{e} k{k}" + (" renorm" if renorm else ""), ro.us,
                (ra.us, co + ("" if ok_ref else " (MISMATCH vs NumPy)")), st, ro.limiter, _resources(c, name, ro))
        print(f"{tokens:>6} {e:>4} {k:>2} {'yes' if renorm else 'no':>6} {ro.us:8.2f} {ra.us:9.2f} "
              f"{ro.us / ra.us:6.2f}  {co}; "
              f"ours: {st[0]}; aiter's {'matches' if ok_ref else 'MISMATCH vs'} NumPy; ours {ro.limiter}, "
              f"aiter {ra.limiter}")


def norm_inputs(kind: str, rows: int, cols: int) -> tuple:
    x = bf16_bits(RNG.standard_normal((rows, cols), np.float32) * 2 + 1.5)
    g, b = bf16_bits(RNG.uniform(0.5, 1.5, cols)), bf16_bits(RNG.standard_normal(cols))
    return (x, g, b) if kind == "layer" else (x, g)


def norm_rows_ok(kind: str, ins: tuple, y: np.ndarray, rows) -> bool:
    """The listed rows of ``y`` against NumPy in float64 (eps 1e-5); bf16 output: 2^-8 relative."""
    xd = bf16_value(ins[0][rows])
    gd = bf16_value(ins[1])
    if kind == "layer":
        mu = xd.mean(1, keepdims=True)
        ref = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(1, keepdims=True) + 1e-5) * gd + bf16_value(ins[2])
    else:
        ref = xd / np.sqrt((xd ** 2).mean(1, keepdims=True) + 1e-5) * gd
    return bool(np.all(np.abs(bf16_value(y[rows]) - ref) <= 2.0 ** -8 * np.abs(ref) + 1e-5 * (1 + np.abs(ref))))


def norms_bf16(quick: bool) -> None:
    import norms
    from gcnforge.perfmodel import profiles
    from lib.compile import compile_module

    prof = profiles.get("mi300x")
    print(f"\nbf16 norms (f32 math) on MI300X; HBM achievable {prof.hbm_achievable / 1e12:.3f} TB/s (measured; "
          f"peak {prof.hbm_bytes_per_s / 1e12:.1f}); no aiter object: reference the HBM floor")
    rows = 8192
    for cols in (4096,) if quick else (4096, 8192):
        for kind in ("rms", "layer"):
            c = compile_module(norms.build_bf16(kind, cols, 4))
            name = f"{kind}_norm_bf16"
            kern = c.load("emulator")[name]

            def run(r, **kw):
                ins = norm_inputs(kind, r, cols)
                y = np.full((r, cols), 0xFFFF, np.uint16)  # NaN until written
                res = kern(*ins, y, np.uint32(cols), np.float32(1e-5), grid=(r, 1, 1), block=(256,), **kw)
                return ins, y, res

            full = norm_rows_ok(kind, *run(5)[:2], slice(None))  # the same binary: rows are the grid
            ins, y, res = run(rows, timing=prof)
            rep = res.timing
            st = status(norm_rows_ok(kind, ins, y, list(rep.sampled_ids)), len(rep.sampled_ids), rep.workgroups,
                        full, "5 rows")
            moved = 2 * ins[0].nbytes
            floor_us = moved / prof.hbm_achievable * 1e6 + rep.launch_seconds * 1e6  # + the launch overhead
            pct = 100 * floor_us / rep.us
            add_row("norms bf16 (MI300X)", name, f"{rows}x{cols}", rep.us, None, st,
                    f"{pct:.0f}% of the HBM floor {floor_us:.1f} us; {rep.limiter}", _resources(c, name, rep))
            print(f"  {name} {rows}x{cols}: {rep.us:.1f} us, {moved / rep.seconds / 1e12:.2f} TB/s = {pct:.0f}% of "
                  f"the achievable-HBM floor + launch ({rep.limiter}); {st[0]}")


def gfx950(quick: bool, size: int | None = None) -> None:
    """The gfx950 examples on the MI355X profile: examples/gemm_mfma_f16.py built for gfx950
    (one wave per 16x16 tile, ``v_mfma_f32_16x16x32_{f16,bf16}``) and examples/gemm_mxfp.py (MXFP4,
    ``v_mfma_scale_f32_16x16x128_f8f6f4``). References in the same run: each MFMA's peak on the
    device (``mfma_peak_flops``: the data sheet's 2.5 / 10 PFLOP/s, tests/perfmodel/
    test_profiles_gfx950.py) and the same f16 example built for gfx942 (32x32x8, one wave per 32x32
    tile) predicted on MI300X."""
    import gemm_mfma_f16
    import gemm_mxfp
    import gcnforge.runtime as rt
    from gcnforge.perfmodel import profiles
    from lib.compile import compile_module

    prof, mi300x = profiles.get("mi355x"), profiles.get("mi300x")
    m = n = k = size or (1024 if quick else 2048)
    flops = 2.0 * m * n * k
    print(f"\ngfx950 examples on MI355X ({prof.cus} CUs, {prof.clock_hz / 1e9:.1f} GHz), {m}x{n}x{k}; dense MFMA peak: "
          f"f16 {prof.mfma_peak_flops('v_mfma_f32_16x16x32_f16') / 1e12:.0f}, MXFP4 "
          f"{prof.mfma_peak_flops('v_mfma_scale_f32_16x16x128_f8f6f4', (4, 4)) / 1e12:.0f} TFLOP/s")
    fam = "gfx950 examples (MI355X)"

    def one_row(kern, dtype, t):
        """The same binary's whole output at M = one row of tiles (M is the grid; N, K compile-time)."""
        xr = gemm_inputs(dtype, t, n, k)
        outr = np.full((t, n), np.nan, np.float32)
        kern(xr["a"], xr["bt"], outr, grid=(n // t, 1), block=(64,), device="emulator")
        return gemm_tiles_ok(outr, xr, dtype, range(n // t), (n // t, 1), t, t)

    # the anchor: the gfx942 build of the same example on MI300X
    x = gemm_inputs("f16", m, n, k)
    out = np.full((m, n), np.nan, np.float32)
    c0 = compile_module(gemm_mfma_f16.build(k, n))
    g = (n // 32, m // 32)
    k0 = c0.load("emulator")["gemm_f16_32x32"]
    r0 = k0(x["a"], x["bt"], out, grid=g, block=(64,), timing=mi300x, flops=flops).timing
    st = status(gemm_tiles_ok(out, x, "f16", r0.sampled_ids, g, 32, 32), len(r0.sampled_ids), r0.workgroups,
                one_row(k0, "f16", 32), f"32x{n}x{k}")
    add_row(fam, "gemm_f16_32x32 (gfx942 on MI300X)", f"{m}x{n}x{k}", r0.us, None, st,
            f"{r0.pct_mfma_peak:.1f}% of MI300X MFMA peak; {r0.limiter}", _resources(c0, "gemm_f16_32x32", r0))
    print(f"  gemm_f16_32x32 (gfx942) on MI300X: {r0.us:.1f} us, {r0.tflops:.0f} TFLOP/s, {r0.pct_mfma_peak:.1f}% of "
          f"peak ({r0.limiter}); {st[0]}")
    for dtype in ("f16",) if quick else ("f16", "bf16"):
        name = f"gemm_{dtype}_16x16x32"
        x = gemm_inputs(dtype, m, n, k)
        out = np.full((m, n), np.nan, np.float32)
        g = (n // 16, m // 16)
        c = compile_module(gemm_mfma_f16.build(k, n, target="gfx950", dtype=dtype))
        kern = c.load("emulator")[name]
        rep = kern(x["a"], x["bt"], out, grid=g, block=(64,), timing=prof, flops=flops).timing
        st = status(gemm_tiles_ok(out, x, dtype, rep.sampled_ids, g, 16, 16), len(rep.sampled_ids), rep.workgroups,
                    one_row(kern, dtype, 16), f"16x{n}x{k}")
        add_row(fam, name + " (gfx950)", f"{m}x{n}x{k}", rep.us, None, st,
                f"{rep.pct_mfma_peak:.1f}% of MI355X MFMA peak; {rep.limiter}", _resources(c, name, rep))
        print(f"  {name} (gfx950) on MI355X: {rep.us:.1f} us, {rep.tflops:.0f} TFLOP/s, {rep.pct_mfma_peak:.1f}% of "
              f"peak ({rep.limiter}); {r0.us / rep.us:.2f}x the gfx942 build on MI300X; {st[0]}")
    rng = np.random.default_rng(950)
    a4, sa = rng.integers(0, 256, (m, k // 2), dtype=np.uint8), rng.integers(120, 134, (m, k // 32), dtype=np.uint8)
    b4, sb = rng.integers(0, 256, (n, k // 2), dtype=np.uint8), rng.integers(120, 134, (n, k // 32), dtype=np.uint8)
    kern = rt.load(gemm_mxfp.code_object(m, n, k))[gemm_mxfp.NAME]
    g = (n // 16, m // 16)
    rep = kern(a4, sa, b4, sb, out, grid=g, block=(64, 1, 1), device="emulator", timing=prof, flops=flops).timing
    # the reference: the MX decode (checked against ml_dtypes in integration_test) in float64; the
    # products are exact, f32 accumulation: K roundings of the largest product
    ad, bd = gemm_mxfp.dequantize_mxfp4(a4, sa), gemm_mxfp.dequantize_mxfp4(b4, sb)

    def mx_ok(c, ids) -> bool:
        tol = k * EPS * np.abs(ad).max() * np.abs(bd).max()
        for wid in ids:
            r0, c0 = 16 * (wid // g[0]), 16 * (wid % g[0])
            if not np.all(np.abs(c[r0:r0 + 16, c0:c0 + 16] - ad[r0:r0 + 16] @ bd[c0:c0 + 16].T) <= tol):
                return False
        return True

    tiles = mx_ok(out, rep.sampled_ids)
    whole = np.full((m, n), np.nan, np.float32)  # the same binary, untimed: every work-group
    kern(a4, sa, b4, sb, whole, grid=g, block=(64, 1, 1), device="emulator")
    st = status(tiles, len(rep.sampled_ids), rep.workgroups, mx_ok(whole, range(g[0] * g[1])),
                f"{m}x{n}x{k} whole (untimed run)")
    # % of the MXFP4 peak from the FLOPs over the kernel's time (the launch overhead apart); equals the
    # report's matrix-core busy share (FP4: 4 passes)
    pct = 100 * flops / rep.kernel_seconds / prof.mfma_peak_flops("v_mfma_scale_f32_16x16x128_f8f6f4", (4, 4))
    assert abs(pct - rep.pct_mfma_peak) < 1e-6 * max(1.0, pct), (pct, rep.pct_mfma_peak)
    add_row(fam, gemm_mxfp.NAME + " (gfx950)", f"{m}x{n}x{k}", rep.us, None, st,
            f"{pct:.1f}% of the MXFP4 peak; {rep.limiter}")
    print(f"  {gemm_mxfp.NAME} (gfx950) on MI355X: {rep.us:.1f} us, {rep.tflops:.0f} TFLOP/s, {pct:.1f}% of the "
          f"MXFP4 peak ({rep.limiter}); {st[0]}")


def int8_family(quick: bool) -> None:
    """The int8 per-token GEMM in aiter's layout (bench_kernels_i8.py: its shapes, candidates, checks)."""
    import zipfile

    import bench_kernels_i8

    pick = None
    whl = btm.fetch_wheel(Path(CACHE)) if CACHE and ROWS_RE is not None else None
    if whl is not None and not isinstance(whl, str):
        todo = bench_kernels_i8.QUICK_SHAPES if quick else bench_kernels_i8.shapes(zipfile.ZipFile(whl))
        pick = [i for i, (m, n, k, ks) in enumerate(todo) if row("i8", f"{m}x{n}x{k} ks{ks}")]
    bench_kernels_i8.run(CACHE, quick, add_row, status, _resources, pick=pick)


def summary() -> None:
    print("\nsummary (predicted, random inputs); ratio = ours / aiter's object on the same profile:")
    print(f"{'family':>32} {'shape':>18} {'ours us':>9} {'aiter us':>9} {'ratio':>6}  "
          "check; kernel; note; aiter object")
    fams: dict[str, list[dict]] = {}
    for r in ROWS:
        fams.setdefault(r["family"], []).append(r)
        au = r["aiter"][0] if r["aiter"] else None
        a_s, ratio = (f"{au:.2f}", f"{r['us'] / au:.2f}") if au else ("-", "-")
        print(f"{r['family']:>32} {r['shape']:>18} {r['us']:9.2f} {a_s:>9} {ratio:>6}  {r['check']}; {r['kernel']}; "
              f"{r['note']}"
              + (f"; {r['aiter'][1]}" if r["aiter"] else "") + (f"; {r['res']}" if r["res"] else ""))
    print("\nper family: shapes at ratio <= 1.0 / shapes with an aiter object; checked / shapes")
    for f, rs in fams.items():
        wa = [r for r in rs if r["aiter"]]
        fast = sum(r["us"] <= r["aiter"][0] for r in wa)
        print(f"  {f}: {fast}/{len(wa)} at ratio <= 1.0" + (f" ({100 * fast / len(wa):.0f}%)" if wa else
                                                            " (no aiter object)")
              + f", {sum(r['checked'] for r in rs)}/{len(rs)} checked")
    wa = [r for r in ROWS if r["aiter"]]
    x = sum(r["us"] <= r["aiter"][0] for r in wa)
    z = sum(not r["checked"] for r in ROWS)
    print(f"({len(ROWS) - len(wa)} of {len(ROWS)} shapes have no aiter object; unchecked = not fully verified "
          f"against NumPy, mismatches included)")
    print(f"kernels: {x} of {len(wa)} shapes at ratio <= 1.0, {z} unchecked")


PARTS = ("gemm", "skinny", "topk", "norms", "gfx950", "moe", "i8")


def run_part(part: str, a) -> None:
    """One family; its inputs come from a generator seeded by the family alone, so a family's
    launches (and their trace-cache keys) are the same whether it runs alone (``--only``) or not."""
    global RNG
    RNG = np.random.default_rng([25, PARTS.index(part)])
    if part == "gemm":
        large_gemms(a.quick)
    elif part == "skinny" and not a.skip_aiter:
        skinny(Path(a.cache), a.quick)
    elif part == "topk" and not a.skip_aiter:
        topk(Path(a.cache), a.aiter_repo, a.quick)
    elif part == "norms":
        norms_bf16(a.quick)
    elif part == "gfx950":
        gfx950(a.quick)
    elif part == "moe":
        import bench_moe

        bench_moe.run(add_row, status, a.quick, CACHE, a.moe_max_gb, a.moe_shapes)
    elif part == "i8":
        int8_family(a.quick)


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "gcnforge" / "aiter"))
    ap.add_argument("--skip-aiter", action="store_true")
    ap.add_argument("--aiter-repo", help="a clone of ROCm/aiter: copy its top-k softmax code objects into the cache")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=PARTS, action="append",
                    help="run this part (family) only; repeat for several")
    ap.add_argument("--moe-max-gb", type=float, default=2.0,
                    help="skip MoE shapes with more weight bytes (GB; the default 2.0 runs every shape, DeepSeek-V3 inter 512 at 128 and 1024 tokens needing about 7.5 GB of memory)")
    ap.add_argument("--moe-shapes", help="a regular expression: only the MoE shapes whose label matches")
    ap.add_argument("--rows", help="a regular expression: only the large-GEMM, skinny and int8 rows whose label "
                    "(family and shape, e.g. 'gemm bf16 8192x1280x8192', 'skinny 80x256x5120', "
                    "'i8 192x1280x1024 ks4') matches")
    ap.add_argument("--traces", default=str(Path.home() / ".cache" / "gcnforge" / "bench_kernels_traces"),
                    help="directory of the emulator launches' recordings and outputs (trace_cache.LaunchCache): "
                         "a launch recorded there is replayed through the current timing model, not emulated")
    ap.add_argument("--no-traces", action="store_true", help="emulate every launch; keep nothing")
    ap.add_argument("--traces-max-gb", type=size_gb, default=DEFAULT_MAX_GB,
                    help=f"after the run, evict entries from --traces until it holds at most this many GB (10^9 "
                         f"bytes): other emulator sources' first, then the least recently used (default "
                         f"{DEFAULT_MAX_GB:g}; 'inf': no bound)")
    ap.add_argument("--traces-strict", action="store_true",
                    help="emulate again the launches recorded under another emulator source (else replayed "
                         "and counted in the last line)")
    ap.add_argument("--jobs", type=int, default=1, help="run the families in a pool of this many processes "
                    "(each family's output is printed when it and the ones before it are done)")
    a = ap.parse_args(argv)
    if not a.no_traces and Path(a.traces).exists() and not Path(a.traces).is_dir():
        ap.error(f"--traces {a.traces}: not a directory")
    return a


def part_job(part: str, argv: list[str], pooled: bool) -> tuple[str, list[dict], dict]:
    """One family: (its printed text when ``pooled``, a worker process's, else printed as it runs;
    its rows; the trace cache's counts)."""
    import contextlib
    import io

    from trace_cache import LaunchCache

    a = parse(argv)
    global CACHE, ROWS_RE
    CACHE = None if a.skip_aiter else a.cache
    ROWS_RE = re.compile(a.rows) if a.rows else None
    cache = contextlib.nullcontext() if a.no_traces else LaunchCache(a.traces, a.traces_strict)
    buf = io.StringIO()
    if pooled:
        ROWS.clear()  # a worker may have run another family before
    with contextlib.redirect_stdout(buf) if pooled else contextlib.nullcontext(), cache:
        run_part(part, a)
    return buf.getvalue(), list(ROWS), {} if a.no_traces else cache.counts()


def main(argv=None) -> int:
    a = parse(argv)
    global CACHE
    CACHE = None if a.skip_aiter else a.cache
    t0, t0_ns = time.perf_counter(), time.time_ns()
    parts = [p for p in PARTS if a.only is None or p in a.only]
    if not a.no_traces:
        print(f"emulator launches: recorded in / replayed from {a.traces}")
    from gcnforge.runtime.tune_exec import make

    ex = make(a.jobs, None)
    futs = [ex.submit(part_job, p, sys.argv[1:] if argv is None else list(argv), a.jobs > 1) for p in parts]
    n: dict[str, int] = {}
    try:
        for f in futs:  # in the parts' order, as each finishes
            text, rows, counts = f.result()
            print(text, end="", flush=True)
            if a.jobs > 1:
                ROWS.extend(rows)
            n = {k: n.get(k, 0) + v for k, v in counts.items()}
    finally:
        ex.close()
    summary()
    if not a.no_traces:
        print(f"({n['hits']} launches replayed from {a.traces}, {n['stale']} of them recorded under another "
              f"emulator source; {n['misses']} emulated, {n['failed']} of them because their entry could not be "
              f"replayed; {time.perf_counter() - t0:.0f} s)")
        from trace_cache import enforce_cap

        pruned = enforce_cap(a.traces, a.traces_max_gb, t0_ns)
        if pruned:
            print(pruned)
    else:
        print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

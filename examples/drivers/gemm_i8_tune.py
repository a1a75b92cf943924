"""Tuning family of the int8 per-token GEMM (examples/gemm_i8.py) for ``gcnforge tune``.

A variant is a code object (tile ``tm x tn`` of ``wm x wn`` waves, loads ``depth + 1`` K tiles
ahead) and a split-K count ``ks`` (a run-time argument: the variants of one code object share
its build). Each is ranked by the timing model on the shapes of aiter's ``asm_a8w8_gemm.csv``::

    gcnforge tune examples/drivers/gemm_i8_tune.py --timing mi308x --device emulator --jobs 2 \\
        --shapes 192x1280x1024 80x1536x5120 -o /tmp/i8_tuned.csv --db /tmp/i8_tune.db
    gcnforge tune examples/drivers/gemm_i8_tune.py --family depth ...      # the other prefetch depths
    python benchmarks/bench_kernels_i8.py --choices examples/configs/gemm_i8.csv /tmp/i8_tuned.csv \\
        --table examples/configs/gemm_i8.csv

(the last runs aiter's object and the chosen variant at each shape, a shape's variant from the
last table naming it, checks the variant again and writes the registry table). The inputs are
the bench's: random int8, random scales and bias (never zeros), seeded by the shape (``seed``),
not by ``--seed``, so the table's ``us`` is what ``bench_kernels_i8.predict`` (and the registry
test) predicts again.

The check: a timing-mode launch emulates only a sample of work-groups, and which ones is known
only after the launch, so ``call`` applies the NumPy oracle itself and returns the number of
wrong elements (``reference`` is their expected count, zero): (1) the C tile of every emulated
work-group against NumPy (exact int32 products, f32 scales and bias, bf16; a split-K tile
against the bf16 sum of the splits that ran, within one bf16 rounding per extra split since the
atomics' order may differ), (2) the same binary over a whole reduced grid (``tm + 17`` x
``tn + 32`` x 1024, the variant's split-K, C starting as NaN so every element must be
written) bit for bit against NumPy's split sum. That launch is untimed.

With ``GEMM_I8_TRACES=DIR`` in the environment every launch of a trial goes through
``benchmarks/trace_cache.LaunchCache(DIR)``: a launch already recorded there (same code object,
inputs and emulator) is not emulated again, only re-predicted under the current timing model,
so a sweep re-run after a model change costs seconds per trial. ``bench_kernels.py``'s default
``--traces`` directory is a good choice: its run of the chosen variants then replays too.

The search space (``supports``): tiles whose rows do not exceed M by a whole wave row of
padding, split-K counts that leave no split empty.
"""

from __future__ import annotations

import contextlib
import os
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the kernel and lib/

import gemm_i8  # noqa: E402
from gcnforge.runtime.registry import aiter_rates  # noqa: E402
from gcnforge.runtime.tune_search import Work  # noqa: E402
from gcnforge.runtime.tuning import KernelFamily, Variant  # noqa: E402

REDUCED_K = 1024  # the K of the whole-grid check (several K tiles per split up to ks 8)


def seed(m: int, n: int, k: int) -> int:
    return m * 131 + n * 7 + k


def inputs(m, n, k, rng):
    """A [M, K], B [N, K] (unshuffled) random int8; per-token / per-channel scales and bias random."""
    a, b = rng.integers(-128, 128, (m, k), dtype=np.int8), rng.integers(-128, 128, (n, k), dtype=np.int8)
    return (a, b, (rng.uniform(0.5, 1.5, m) * 1e-3).astype(np.float32), rng.uniform(0.5, 1.5, n).astype(np.float32),
            rng.uniform(-1, 1, n).astype(np.float32))


def bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def split_sum(a, b, sa, sb, bias, ks, splits):
    """The bf16 sum, in order, of the listed splits' bf16 partials (bias in split 0 only)."""
    k = a.shape[1]
    kps = gemm_i8.k_per_split(k, ks)
    acc = np.zeros((a.shape[0], b.shape[0]), np.float32)
    for z in splits:
        sl = slice(z * kps, min(k, (z + 1) * kps))
        part = gemm_i8.reference(a[:, sl], b[:, sl], sa, sb, bias if z == 0 else np.zeros_like(bias))
        u = (acc + bf16(part)).view(np.uint32).astype(np.uint64)
        acc = bf16(((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16))
    return acc


def tile_errors(out, ins, ids, grid, tm, tn, ks) -> int:
    """Wrong elements in the tiles of the work-groups ``ids`` (x = N tile * ks + split): exact for
    one split, within one bf16 rounding per extra split otherwise."""
    a, b, sa, sb, bias = ins
    tiles: dict[tuple[int, int], list[int]] = {}
    for wid in ids:
        gx, gy = wid % grid[0], wid // grid[0]
        tiles.setdefault((gy, gx // ks), []).append(gx % ks)
    bad = 0
    for (ty, tx), splits in tiles.items():
        r, c = slice(ty * tm, (ty + 1) * tm), slice(tx * tn, (tx + 1) * tn)
        want = split_sum(a[r], b[c], sa[r], sb[c], bias[c], ks, sorted(splits))
        bad += int(np.count_nonzero(~(np.abs(bf16(out[r, c]) - want) <= (len(splits) - 1) * 2.0 ** -7 * np.abs(want))))
    return bad


def launch(kern, cfg, m, n, k, ks, ins, init=0x7FC0, **kw):
    """C (bf16 bits, starting as ``init``: NaN by default) and the LaunchResult."""
    a, b, sa, sb, bias = ins
    out = np.full((m, n), init, np.uint16)
    res = kern(out, a, gemm_i8.preshuffle(b), sa, sb, bias, m, n, k, k, k, 2 * n, ks,
               grid=gemm_i8.grid(m, n, cfg[0], cfg[1], ks), block=(64 * cfg[2] * cfg[3],), device="emulator", **kw)
    return out, res


def reduced_errors(kern, cfg, ks, rng) -> int:
    """Wrong elements of the whole ``tm + 17`` x ``tn + 32`` x 1024 grid, C starting as NaN."""
    m, n = cfg[0] + 17, cfg[1] + 32
    ins = inputs(m, n, REDUCED_K, rng)
    out, _ = launch(kern, cfg, m, n, REDUCED_K, ks, ins)
    return int(np.count_nonzero(bf16(out) != split_sum(*ins, ks, range(ks))))


_reduced: dict[tuple, int] = {}


def reduced_errors_once(kern, cfg, ks) -> int:
    """``reduced_errors`` of a configuration's code object and split-K on inputs seeded by them:
    the same launch for every shape a variant is tried on, so it runs once per process."""
    key = (*cfg, ks)
    if key not in _reduced:
        _reduced[key] = reduced_errors(kern, cfg, ks, np.random.default_rng([*cfg, ks]))
    return _reduced[key]


@lru_cache(maxsize=None)
def _blob(cfg) -> bytes:
    from lib.compile import compile_module

    return compile_module(gemm_i8.build(*cfg)).blob


@lru_cache(maxsize=None)
def _launch_cache():
    """benchmarks/trace_cache.LaunchCache of ``$GEMM_I8_TRACES``, or None (see the docstring)."""
    where = os.environ.get("GEMM_I8_TRACES")
    if not where:
        return None
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from trace_cache import LaunchCache

    return LaunchCache(where)


def cfg_of(v: Variant) -> tuple[int, int, int, int, int]:
    p = v.params
    return (p["tile_m"], p["tile_n"], *(int(w) for w in p["waves"].split("x")), p["depth"])


class I8Gemm(KernelFamily):
    name = "gemm_i8"
    dtype = "i8"
    out_dtype = "bf16"
    timing_check = "sampled"  # the large grids cannot be emulated whole in a tuning run: call checks
    rtol = atol = 0.0  # call returns counts of wrong elements

    def __init__(self, tiles, depths, splits):
        self.tiles, self.depths, self.splits = list(tiles), list(depths), list(splits)

    def variants(self):
        for tm, tn, wm, wn in self.tiles:
            for d in self.depths:
                for s in self.splits:
                    kern = gemm_i8.kernel_name(tm, tn, wm, wn, d)
                    yield Variant(f"{kern}_ks{s}", kern, {"tile_m": tm, "tile_n": tn, "tile_k": gemm_i8.TK,
                                                         "splitk": s, "block": 64 * wm * wn, "waves": f"{wm}x{wn}",
                                                         "depth": d, "splitk_grid": "x"})

    def build(self, v):
        return _blob(cfg_of(v))  # the ks variants of one code object: one build per process

    def supports(self, v, shape):
        m, n, k = shape
        p = v.params
        tm, wm, ks = p["tile_m"], int(p["waves"].split("x")[0]), p["splitk"]
        if n % 32 or k % gemm_i8.TK:
            return False
        if tm - 32 * wm >= -(-m // 32) * 32 and tm > 32 * wm:
            return False  # a whole wave row of the tile past M
        kps = gemm_i8.k_per_split(k, ks)
        return (ks - 1) * kps < k  # no split empty

    def features(self, v):
        return {"bias": True, "preshuffle": True}

    def constraints(self, v):
        return "N%32;K%64"

    def work(self, v, shape):
        m, n, k = shape
        tm, tn = v.params["tile_m"], v.params["tile_n"]
        return Work(flops=2.0 * -(-m // tm) * tm * -(-n // tn) * tn * k, bytes=float(m * k + n * k + 2 * m * n),
                    mfma=gemm_i8.MFMA)

    def rates(self, shape, us):
        return aiter_rates(*shape, 1, 2, us)

    def make_inputs(self, shape, rng):
        return {"ins": inputs(*shape, np.random.default_rng(seed(*shape)))}

    def reference(self, shape, inputs):
        return np.zeros(2)

    def call(self, kernel, v, shape, inputs, device):
        with _launch_cache() or contextlib.nullcontext():
            return self._call(kernel, v, shape, inputs)

    def _call(self, kernel, v, shape, inputs):
        m, n, k = shape
        cfg, ks = cfg_of(v), v.params["splitk"]
        out, res = launch(kernel, cfg, m, n, k, ks, inputs["ins"], init=0, flops=2.0 * m * n * k)
        t = res.timing
        g = gemm_i8.grid(m, n, cfg[0], cfg[1], ks)
        ids = t.sampled_ids if t is not None else range(g[0] * g[1])
        plain = getattr(kernel, "untimed", kernel)
        return np.array([tile_errors(out, inputs["ins"], ids, g, cfg[0], cfg[1], ks),
                         reduced_errors_once(plain, cfg, ks)], np.float64)


# wave layouts 1x4 (the current choice), 2x2, 1x2; row tiles up to 256
TILES = [(32, 128, 1, 4), (64, 128, 1, 4), (96, 128, 1, 4), (128, 128, 1, 4), (192, 128, 1, 4), (256, 128, 1, 4),
         (64, 256, 1, 4), (128, 256, 1, 4), (64, 128, 2, 2), (128, 128, 2, 2), (64, 64, 1, 2), (128, 64, 2, 2)]
family = I8Gemm(TILES, [3], [1, 2, 3, 4, 6, 8])  # tiles x split-K at the prefetch depth of before
# the other prefetch depths, on the tiles that win at M <= 256 (run on the shapes ``family`` leaves above aiter)
depth = I8Gemm([(32, 128, 1, 4), (64, 128, 1, 4), (96, 128, 1, 4)], [2, 4], [1, 2])
# split-K around the 1280 x 8192 rows' choice, at the two tiles by M (the rows within a few % of aiter)
near = I8Gemm([(64, 128, 1, 4), (128, 128, 1, 4)], [3], [2, 3, 4, 6])
# the 1536 x 5120 rows (M 128-512): the tiles that win below M = 256 and split-K 2-8
mid = I8Gemm([(32, 128, 1, 4), (64, 128, 1, 4), (96, 128, 1, 4)], [3], [2, 3, 4, 6, 8])

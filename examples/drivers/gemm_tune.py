"""Tuning families of the macro-tile GEMM (examples/gemm_macro.py) for ``gcnforge tune``.

M, N and K are arguments of that kernel: every variant runs every shape with K a multiple of 8
(gemm_macro's one precondition); a family names the (N, K) its variants were chosen for. Each family
ranks its variants by the timing model (``--timing mi300x`` / ``mi308x``)::

    gcnforge tune examples/drivers/gemm_tune.py --family skinny --timing mi308x \\
        --shapes 64x256x5120 128x256x5120 --device emulator -o examples/configs/gemm_macro_skinny.csv
    gcnforge tune examples/drivers/gemm_tune.py --family large_4096 --timing mi300x \\
        --shapes 4096x4096x4096 --device emulator -o /tmp/large.csv

The check: a timing-mode launch of a large grid emulates only a sample of work-groups
(those the busiest CU receives), so only the C tile of work-group (0, 0, 0) is compared with
NumPy. The inputs are zero past K / 64 (the largest split-K factor's first slice), so that
tile is the whole product for every variant, split-K or not (the timing model does not look
at values). Split-K variants accumulate with atomics into the zeroed C.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the kernels and lib/

import gemm_macro  # noqa: E402
from gcnforge.runtime.registry import aiter_rates  # noqa: E402
from gcnforge.runtime.tune_search import Work  # noqa: E402
from gcnforge.runtime.tuning import KernelFamily, Variant  # noqa: E402

CHECK = 64  # rows and columns of C compared (every variant's work-group (0, 0, 0) covers them)
MAX_SPLIT = 64


class MacroGemm(KernelFamily):
    dtype = "bf16"
    timing_check = "sampled"  # the large grids cannot be emulated whole in a tuning run
    rtol = 1e-4
    atol = 1e-4

    def __init__(self, name: str, n: int, k: int, tiles):
        self.name, self.n, self.k = name, n, k
        self.tiles = list(tiles)  # (tm, tn, wm, wn, splitk, depth)

    def variants(self):
        for tm, tn, wm, wn, s, d in self.tiles:
            kern = gemm_macro.kernel_name("bf16", "f32", tm, tn, wm, wn, s, d)
            yield Variant(kern, kern, {"tile_m": tm, "tile_n": tn, "tile_k": gemm_macro.TK // gemm_macro.ESIZE,
                                       "splitk": s, "block": 64 * wm * wn, "waves": f"{wm}x{wn}", "depth": d})

    def build(self, v):
        from lib.compile import compile_module

        p = v.params
        wm, wn = (int(x) for x in p["waves"].split("x"))
        mod = gemm_macro.build("bf16", "f32", p["tile_m"], p["tile_n"], wm, wn, p["splitk"], p["depth"])
        return compile_module(mod, schedule=True).blob

    out_dtype = "f32"

    def supports(self, v, shape):
        try:
            gemm_macro.check_shape(gemm_macro.ESIZE, *shape, "f32", v.params["splitk"])
        except ValueError:
            return False
        return True

    def constraints(self, v):
        return f"K%{gemm_macro.CHUNK // gemm_macro.ESIZE}"  # one binary for every M, N, K: whole 16-byte chunks

    def work(self, v, shape):
        """For ``tune``'s roofline pruning: every work-group runs its whole tm x tn tile (rows and
        columns past M, N read zeros through the buffer bounds), so the padded product's MFMAs
        all run; memory at least reads A and B once and writes C (f32) once."""
        m, n, k = shape
        tm, tn = v.params["tile_m"], v.params["tile_n"]
        flops = 2.0 * -(-m // tm) * tm * -(-n // tn) * tn * k
        return Work(flops=flops, bytes=2.0 * (m + n) * k + 4.0 * m * n, mfma=gemm_macro.MFMA[self.dtype])

    def rates(self, shape, us):
        return aiter_rates(*shape, 2, 4, us)

    def make_inputs(self, shape, rng):
        m, n, k = shape
        live = max(1, k // MAX_SPLIT)
        a = np.zeros((m, k), np.float32)
        b = np.zeros((n, k), np.float32)
        a[:, :live] = rng.standard_normal((m, live))
        b[:, :live] = rng.standard_normal((n, live))
        bits = lambda x: (x.view(np.uint32) >> 16).astype(np.uint16)  # exact: truncation of bf16 values
        return {"a": bits(a), "bt": bits(b), "c": np.zeros((m, n), np.float32)}

    def reference(self, shape, inputs):
        f = lambda u: (u.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
        return (f(inputs["a"][:CHECK]) @ f(inputs["bt"][:CHECK]).T)

    def call(self, kernel, v, shape, inputs, device):
        m, n, k = shape
        p = v.params
        c = inputs["c"]
        kernel(inputs["a"], inputs["bt"], c, np.uint32(m), np.uint32(n), np.uint32(k),
               grid=gemm_macro.grid(m, n, p["tile_m"], p["tile_n"], p["splitk"]),
               block=(p["block"], 1, 1), device=device, flops=2.0 * m * n * k)
        return c[:CHECK, :CHECK]


# skinny: split-K fills the CUs, loads four K tiles ahead (the loop is short); or two ahead (fewer VGPRs:
# the MI308X model puts those 7-12% below depth 4 at aiter's bf16_tuned_gemm.csv rows), and a 96-row tile
# of 3 x 2 waves for M = 80 (one row of tiles instead of 64's two, less padding than 128's)
SKINNY = ([(64, 64, 2, 2, s, 4) for s in (10, 20, 40)] + [(128, 64, 2, 2, s, 4) for s in (10, 20)]
          + [(64, 128, 2, 2, 20, 4), (128, 128, 2, 2, 20, 4)]
          + [(64, 64, 2, 2, s, 2) for s in (10, 20)] + [(96, 64, 3, 2, 20, 2)])
LARGE = [(256, 256, 2, 2, 1, 1), (192, 256, 2, 2, 1, 1), (256, 160, 4, 1, 1, 1), (256, 128, 2, 2, 1, 1)]

family = skinny = MacroGemm("gemm_macro_skinny", 256, 5120, SKINNY)  # aiter's bf16_tuned_gemm.csv rows
large_4096 = MacroGemm("gemm_macro_4096", 4096, 4096, LARGE)
large_8192 = MacroGemm("gemm_macro_8192", 8192, 8192, LARGE)
llm_1280 = MacroGemm("gemm_macro_1280", 1280, 8192, LARGE)

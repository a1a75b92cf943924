"""``gcnforge tune`` family of the fused MoE layer (``examples/moe/fused_moe.py``): each
candidate is a whole-operation variant (the block size M of the sorting and both GEMM stages,
the stages' tiles, the quantization work-group), each trial runs every launch of the path
(routing, sorting, quantization, stage 1, quantization of a2, stage 2, bf16 cast) and is checked against
``moe/reference.py``'s NumPy path, routing included. Shapes are tokens x model_dim x inter;
E and top-k are the family's. With ``--e2e`` and a timing profile the trial's time is the
predicted total of every launch (``host_time = False``: the host side is the emulator's array
bookkeeping, which a GPU run does not have)::

    gcnforge tune examples/drivers/moe_tune.py --timing mi300x --e2e --shapes 5x256x256 129x256x256 \\
        -o moe_tuned.csv

(8 candidates: M 32 or 64 x each stage's tile, N 128 or N 32 with K split over the waves; a
candidate whose tile does not fit the shape is reported ``unsupported``.)

A launch whose grid the timing mode samples (outputs partial) is timed on copies of its
arguments and then run whole, untimed, so the next step reads complete data. The stages'
grids cover the valid blocks only (``FusedMoE(valid_grid=True)``): a sample of the
allocation's bound could be all exiting blocks.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the kernels and lib/

from gcnforge.runtime.tuning import KernelFamily, Variant  # noqa: E402
from moe import fused_moe as fm, reference as ref  # noqa: E402


# each stage's tile: N tile 128 (many tokens), or N tile 32 with K split over the 4 waves (few
# tokens: 4x the work-groups; moe/stage1.py's wk); K must be a multiple of 32 unroll depth wk
TILES = ({"tn": 128, "unroll": 2}, {"tn": 32, "unroll": 1, "wk": 4})


def _launcher(device):
    def launch(kernel, *args, grid, block):
        if getattr(kernel, "timing", None) is None:
            return kernel(*args, grid=grid, block=block, device=device)
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        r = kernel(*copies, grid=grid, block=block, device=device)
        t = getattr(r, "timing", None)
        if t is not None and t.sampled < t.workgroups:  # partial outputs: the data comes from a whole run
            kernel.module[kernel.name](*args, grid=grid, block=block, device=device)
        else:
            for a, c in zip(args, copies, strict=True):
                if isinstance(a, np.ndarray):
                    a[...] = c
        return r
    return launch


class MoEFamily(KernelFamily):
    dtype = "fp8"
    op = "fused_moe"
    out_dtype = "bf16"
    host_time = False
    # out is bf16 after two fp8 quantizations; an a2 element one bf16 ulp off can flip its
    # fp8 code (one fp8 ulp): the error budget of moe/reference.py's tests
    rtol = 2e-2
    atol = 2e-2  # outputs of random_problem are O(1)

    def __init__(self, experts: int = 8, topk: int = 2, block_m=(32, 64), stage1=TILES, stage2=TILES,
                 quant_waves=(1,)):
        self.experts, self.topk = experts, topk
        self.name = f"fused_moe_e{experts}_k{topk}"
        self.configs = [fm.Config(m, s1, s2, q) for m, s1, s2, q in itertools.product(block_m, stage1, stage2, quant_waves)]

    def _config(self, v: Variant) -> fm.Config:
        return next(c for c in self.configs if c.name == v.name)

    def variants(self):
        for c in self.configs:
            yield Variant(c.name, fm.sorting.kernel_name(self.experts, self.topk, c.block_m),
                          {"tile_m": c.block_m, "tile_n": c.stage1["tn"],
                           **{f"s1_{k}": v for k, v in c.stage1.items() if k != "tn"},
                           **{f"s2_{k}": v for k, v in c.stage2.items()}, "quant_waves": c.quant_waves})

    def build(self, v: Variant) -> bytes:
        from lib.compile import compile_module

        return compile_module(fm.build_module(self.experts, self.topk, self._config(v))).blob

    def supports(self, v: Variant, shape) -> bool:
        _, dim, inter = shape
        return not self._config(v).problems(dim, inter)

    def make_inputs(self, shape, rng):
        tokens, dim, inter = shape
        hidden, logits, w1q, w1s, w2q, w2s = ref.random_problem(tokens, dim, inter, self.experts,
                                                                 seed=int(rng.integers(1 << 31)))
        return {"hidden": hidden, "logits": logits, "w1_q": w1q, "w1_scale": w1s, "w2_q": w2q, "w2_scale": w2s}

    def reference(self, shape, inputs):
        i = inputs
        return ref.moe_reference(i["hidden"], i["logits"], i["w1_q"], i["w1_scale"], i["w2_q"], i["w2_scale"],
                                 self.topk)

    def call(self, kernel, v, shape, inputs, device):
        c = self._config(v)
        names = fm.kernel_names(self.experts, self.topk, c)
        op = fm.FusedMoE(self.experts, self.topk, c, kernels={s: kernel.track(kernel.module[n]) for s, n in names.items()})
        i = inputs
        weights = op.pack_weights(i["w1_q"], i["w1_scale"], i["w2_q"], i["w2_scale"])
        return op(ref.bf16_bits(i["hidden"]), i["logits"], weights, launch=_launcher(device), valid_grid=True)


family = MoEFamily()

"""A ``gcnforge tune`` family over the vector add of ``examples/vector_ops.py``: the memory
access (``global`` loads with an EXEC-masked tail, or ``buffer`` loads whose descriptor drops
the tail) by the work-group size (64 to 1024 work-items). Shapes are ``N x 1 x 1`` (n
elements; any n: both modes handle the tail). Small trials, so it is also the sweep of
``benchmarks/bench_tune.py``::

    gcnforge tune examples/drivers/vector_tune.py --timing mi300x --device emulator \\
        --shapes 1000x1x1 4096x1x1 -o /tmp/vec/tuned.csv --jobs 2
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the kernels and lib/

import vector_ops  # noqa: E402
from gcnforge.runtime.tune_search import Work  # noqa: E402
from gcnforge.runtime.tuning import KernelFamily, Variant  # noqa: E402

BLOCKS = (64, 128, 256, 512, 1024)


class VectorAdd(KernelFamily):
    name = "vector_add"
    dtype = "f32"
    op = "vector_add"
    rtol = 0.0
    atol = 0.0  # one f32 add per element: NumPy's is the same rounding

    def variants(self):
        for mode in ("global", "buffer"):
            for block in BLOCKS:
                name = f"vector_add_{mode}_b{block}"
                yield Variant(name, name, {"mode": mode, "block": block, "tile_m": block, "tile_n": 1, "tile_k": 1})

    def build(self, v):
        from lib.compile import compile_module

        return compile_module(vector_ops.build("add", v.params["mode"], v.params["block"], name=v.name)).blob

    def work(self, v, shape):
        n = shape[0]
        return Work(flops=n, bytes=12 * n)  # read a, b; write c (f32); no MFMA

    def make_inputs(self, shape, rng):
        n = shape[0]
        return {"a": rng.standard_normal(n).astype(np.float32), "b": rng.standard_normal(n).astype(np.float32),
                "c": np.zeros(n, np.float32)}

    def reference(self, shape, inputs):
        return inputs["a"] + inputs["b"]

    def call(self, kernel, v, shape, inputs, device):
        n, block = shape[0], v.params["block"]
        kernel(inputs["a"], inputs["b"], inputs["c"], np.uint32(n), grid=(-(-n // block), 1, 1), block=(block, 1, 1),
               device=device)
        return inputs["c"]


family = VectorAdd()

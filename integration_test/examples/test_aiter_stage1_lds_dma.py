"""aiter's fused-MoE stage-1 ``_pf2`` objects against the NumPy reference of stage 1
(``examples/moe/reference.py``) on the emulator: they read LDS that their own LDS DMA
(``buffer_load_dword ... lds``) is refilling and reuse, in their epilogue, LDS that a last
over-prefetching DMA nobody waits for wrote, so they are right only when the DMA's data lands
as on hardware: not at issue, but when vmcnt retires it or the memory latency has passed
(``emulator/outstanding.py``). With the data written at issue these shapes gave 22, 308 and
1,816 wrong elements. Same tolerance as ``test_moe_gemm.py`` (one bf16 rounding of the output,
f32 silu)."""

from __future__ import annotations

import numpy as np
import pytest

from moe import aiter_stage1, moe_gemm, reference as ref

pytest.importorskip("ml_dtypes")

CASES = [  # object suffix, tokens, model dim, inter, experts, top-k (the object's tile_m is the block)
    ("32x128_3tg_pf2", 37, 256, 128, 6, 2),
    pytest.param("64x128_2tg_pf2", 100, 256, 128, 4, 2, marks=pytest.mark.slow),
    pytest.param("32x256_2tg_pf2", 37, 256, 256, 6, 2, marks=pytest.mark.slow),
    pytest.param("16x128_4tg_pf2", 37, 256, 128, 6, 2, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("suffix,tokens,dim,inter,experts,topk", CASES)
def test_aiter_pf2_stage1_matches_numpy(suffix, tokens, dim, inter, experts, topk):
    from gcnforge.testing import require_aiter_wheel

    whl = require_aiter_wheel()
    row = next(r for r in aiter_stage1.objects(whl) if r["name"].endswith("_" + suffix))
    kern = aiter_stage1.load(whl, row["name"])
    hidden, logits, w1_q, w1_s, _, _ = ref.random_problem(tokens, dim, inter, experts, 3)
    w, ids = ref.route(logits, topk)
    s = ref.sort_tokens(ids, w, experts, row["tile_m"])
    x_q, x_s = ref.quant_per_token(hidden)
    out = np.full((tokens, topk, inter), 0xFFFF, np.uint16)  # NaN until written
    aiter_stage1.launch(kern, out, x_q, moe_gemm.shuffle(w1_q), s, x_s, w1_s, dim, inter, tokens, experts, topk,
                        row["tile_n"], device="emulator")
    got = ref.from_bf16_bits(out)
    want = ref.stage1(x_q, x_s, w1_q, w1_s, s, topk)
    tol = 2.0 ** -7 * (np.abs(want) + np.abs(want).max())
    assert not np.isnan(got).any()
    assert (np.abs(got - want) <= tol).all(), int((np.abs(got - want) > tol).sum())

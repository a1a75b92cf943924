"""The fused-MoE GEMM stages (examples/moe/stage1.py, stage2.py) on the emulator (and HIP)
against the NumPy reference of the path (examples/moe/reference.py), and stage 1 against
aiter's own ``fmoe_stage1_bf16_pertokenFp8_g1u1_32x128_3tg_pf3`` object on the same sorted
inputs (the strongest check that the data format is aiter's: the object reads the same
sorted ids, expert ids, valid count, pre-shuffled weights and scales, and writes the same
output layout). (Its pf2 twin, ``..._32x128_3tg_pf2``, matches too since the emulator lands LDS
DMA data as the hardware does: ``test_aiter_stage1_lds_dma.py``.)

Random inputs (``reference.random_problem``); shapes with one token, five tokens, a token
count that is not a multiple of the block, and experts no token picked (no block).
Tolerances: both kernels accumulate fp8 products exactly in f32 (the reference in f64), the
scales and silu round in f32 (``v_exp_f32`` / ``v_rcp_f32``: 1 ulp), the output once to bf16
(2^-8 relative): 2^-7 relative to each element plus 2^-7 of the largest |element| for the
terms that cancel in silu(g) * u.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import compiled

from moe import aiter_stage1, moe_gemm, reference as ref, stage1, stage2

pytest.importorskip("ml_dtypes")

CASES = [  # tokens, model dim, inter, experts, top-k, block, tn, waves along K
    (1, 256, 128, 8, 2, 32, 128, 1),
    (5, 512, 256, 8, 2, 32, 256, 1),
    (37, 384, 128, 6, 2, 64, 128, 1),
    (5, 512, 256, 8, 2, 32, 32, 4),  # K split over the 4 waves, summed through LDS
    (37, 512, 256, 6, 2, 64, 64, 2),
]
STAGE1_CASES = CASES + [  # stage 1's 128-row tiles (bench_moe's candidates for Mixtral's T=1024)
    (150, 256, 256, 4, 2, 128, 128, 1),  # the epilogue's row data loaded after the main loop
    (150, 256, 256, 4, 2, 128, 256, 1),  # and 256 accumulator AGPRs
]


def _problem(tokens, dim, inter, experts, topk, block, seed=0):
    hidden, logits, w1_q, w1_s, w2_q, w2_s = ref.random_problem(tokens, dim, inter, experts, seed)
    w, ids = ref.route(logits, topk)
    s = ref.sort_tokens(ids, w, experts, block)
    x_q, x_s = ref.quant_per_token(hidden)
    return dict(x_q=x_q, x_s=x_s, w1_q=w1_q, w1_s=w1_s, w2_q=w2_q, w2_s=w2_s, s=s, ids=ids)


def _close(got, want):
    tol = 2.0 ** -7 * (np.abs(want) + np.abs(want).max())
    return np.abs(got - want) <= tol


def _run_stage1(p, tokens, dim, inter, topk, block, tn, device, wk=1):
    c = compiled(("moe_stage1", block, tn, wk), lambda: stage1.build(block, tn, 2, wk), schedule=True)
    out = np.full((tokens, topk, inter), 0xFFFF, np.uint16)  # NaN: an unwritten row shows
    s = p["s"]
    c.load(device)[stage1.kernel_name(block, tn, 2, wk)](
        out, p["x_q"], moe_gemm.shuffle(p["w1_q"]), s.num_valid_ids, p["x_s"], p["w1_s"], s.sorted_ids,
        s.sorted_expert_ids, np.uint32(dim), np.uint32(inter), np.uint32(tokens), np.uint32(topk),
        grid=stage1.grid(inter, len(s.sorted_expert_ids), tn), block=(256, 1, 1))
    return ref.from_bf16_bits(out)


@pytest.mark.parametrize("tokens,dim,inter,experts,topk,block,tn,wk", STAGE1_CASES)
def test_stage1_matches_numpy(tokens, dim, inter, experts, topk, block, tn, wk, device):
    p = _problem(tokens, dim, inter, experts, topk, block, seed=tokens)
    s = p["s"]
    assert (s.sorted_expert_ids[:s.blocks] >= 0).all() and len(set(s.sorted_expert_ids[:s.blocks])) < experts \
        or tokens > 5  # the small cases leave experts without a block
    got = _run_stage1(p, tokens, dim, inter, topk, block, tn, device, wk)
    want = ref.stage1(p["x_q"], p["x_s"], p["w1_q"], p["w1_s"], s, topk)
    assert not np.isnan(got).any()  # every (token, slot) row written: each is in some block
    assert _close(got, want).all(), np.abs(got - want).max()


@pytest.mark.parametrize("depth", [3, 4])
def test_stage1_prefetch_depth(depth):
    """Chunks loaded 3 and 4 ahead (model dim 768: 12 chunks of 64 bytes, whole trips of 3 and 4)."""
    tokens, dim, inter, experts, topk, block = 37, 768, 128, 6, 2, 32
    p = _problem(tokens, dim, inter, experts, topk, block, seed=depth)
    c = compiled(("moe_stage1_d", depth), lambda: stage1.build(block, 128, 2, 1, depth), schedule=True)
    out = np.full((tokens, topk, inter), 0xFFFF, np.uint16)
    s = p["s"]
    c.load("emulator")[stage1.kernel_name(block, 128, 2, 1, depth)](
        out, p["x_q"], moe_gemm.shuffle(p["w1_q"]), s.num_valid_ids, p["x_s"], p["w1_s"], s.sorted_ids,
        s.sorted_expert_ids, np.uint32(dim), np.uint32(inter), np.uint32(tokens), np.uint32(topk),
        grid=stage1.grid(inter, len(s.sorted_expert_ids), 128), block=(256, 1, 1))
    want = ref.stage1(p["x_q"], p["x_s"], p["w1_q"], p["w1_s"], s, topk)
    assert _close(ref.from_bf16_bits(out), want).all()


def test_stage1_shuffle_is_aiters_layout():
    """aiter's ``shuffle_weight(w, layout=(16, 16))`` on 1-byte elements: 16-row x 32-byte
    blocks, each two runs of 16 bytes per row; a hand-built 32 x 64 example."""
    w = np.arange(32 * 64, dtype=np.int64).reshape(32, 64)
    sh = moe_gemm.shuffle(w).reshape(-1)
    # the first 512 elements: rows 0..15, bytes 0..15, then rows 0..15, bytes 16..31
    assert (sh[:256] == (np.arange(16)[:, None] * 64 + np.arange(16)[None, :]).reshape(-1)).all()
    assert (sh[256:512] == (np.arange(16)[:, None] * 64 + 16 + np.arange(16)[None, :]).reshape(-1)).all()
    assert sh[512] == 32  # then the next 32 bytes of K of the same 16 rows
    assert sh[1024] == 16 * 64  # then rows 16..31


AITER_S1 = "fmoe_stage1_bf16_pertokenFp8_g1u1_32x128_3tg_pf3"


def test_stage1_matches_aiters_object_on_the_same_inputs():
    from gcnforge.testing import require_aiter_wheel

    kern = aiter_stage1.load(require_aiter_wheel(), AITER_S1)
    tokens, dim, inter, experts, topk, block = 37, 256, 128, 6, 2, 32
    p = _problem(tokens, dim, inter, experts, topk, block, seed=3)
    theirs = np.full((tokens, topk, inter), 0xFFFF, np.uint16)
    aiter_stage1.launch(kern, theirs, p["x_q"], moe_gemm.shuffle(p["w1_q"]), p["s"], p["x_s"], p["w1_s"], dim, inter,
                        tokens, experts, topk, 128, device="emulator")
    theirs = ref.from_bf16_bits(theirs)
    ours = _run_stage1(p, tokens, dim, inter, topk, block, 128, "emulator")
    want = ref.stage1(p["x_q"], p["x_s"], p["w1_q"], p["w1_s"], p["s"], topk)
    assert not np.isnan(theirs).any()
    assert _close(theirs, want).all()  # aiter's object reads the format as the reference writes it
    assert _close(ours, theirs).all(), np.abs(ours - theirs).max()


def _run_stage2(p, a2_q, a2_s, tokens, dim, inter, topk, block, tn, device, wk=1):
    unroll = 1 if wk > 1 else 2  # inter 256 over 4 waves: 64 bytes each, one trip of two 32-byte steps
    c = compiled(("moe_stage2", block, tn, wk), lambda: stage2.build(block, tn, unroll, wk), schedule=True)
    out = np.zeros((tokens, dim), np.float32)  # the atomics add into zeros
    s = p["s"]
    c.load(device)[stage2.kernel_name(block, tn, unroll, wk)](
        out, a2_q, moe_gemm.shuffle(p["w2_q"]), s.num_valid_ids, a2_s, p["w2_s"], s.sorted_ids,
        s.sorted_weights, s.sorted_expert_ids, np.uint32(dim), np.uint32(inter), np.uint32(tokens),
        np.uint32(topk), grid=stage2.grid(dim, len(s.sorted_expert_ids), tn), block=(256, 1, 1))
    return out


@pytest.mark.parametrize("tokens,dim,inter,experts,topk,block,tn,wk", CASES)
def test_stage2_matches_numpy(tokens, dim, inter, experts, topk, block, tn, wk, device):
    """Stage 2 on the reference's quantized stage-1 output: f32 sums vs the f64 reference
    (f32 products and k additions: 2^-18 of the largest term per addition; a loose 2^-12)."""
    p = _problem(tokens, dim, inter, experts, topk, block, seed=10 + tokens)
    s = p["s"]
    a2 = ref.stage1(p["x_q"], p["x_s"], p["w1_q"], p["w1_s"], s, topk)
    a2_q, a2_s = ref.quant_per_token(a2.reshape(-1, inter))
    got = _run_stage2(p, a2_q, a2_s, tokens, dim, inter, topk, block, tn, device, wk)
    want = ref.stage2(a2_q, a2_s, p["w2_q"], p["w2_s"], s, topk, tokens)
    assert np.abs(want).min() > 0  # every token's row got its terms
    np.testing.assert_allclose(got, want, rtol=2.0 ** -12, atol=2.0 ** -12 * np.abs(want).max())

"""The composed MoE operation (``examples/moe/fused_moe.py``) on the emulator against the NumPy
reference of the whole path, routing included, on random inputs: every intermediate the
operation produces is compared with ``moe/reference.py``'s."""

from __future__ import annotations

import numpy as np
import pytest
from moe import fused_moe as fm, reference as ref

_OPS: dict = {}


def _op(experts, topk, config=fm.Config(), stages=True):
    key = (experts, topk, config.name, stages)
    if key not in _OPS:
        _OPS[key] = fm.FusedMoE(experts, topk, config, stages=stages)
    return _OPS[key]


def _check_front(got, want, experts):
    """Routing (ids exact, weights to exp/rcp's ~1 ulp), sorting of the device's own routing
    (exact), per-token quantization (exact)."""
    np.testing.assert_array_equal(got["topk_ids"], want.topk_ids)
    np.testing.assert_allclose(got["topk_weights"], want.topk_weights, rtol=2e-5)
    s = got["sorted"]
    r = ref.sort_tokens(got["topk_ids"], got["topk_weights"], experts, s.block_m)
    n = r.valid
    assert s.num_valid_ids.tolist() == r.num_valid_ids.tolist()
    np.testing.assert_array_equal(s.sorted_ids[:n], r.sorted_ids[:n])
    np.testing.assert_array_equal(s.sorted_weights[:n], r.sorted_weights[:n])
    np.testing.assert_array_equal(s.sorted_expert_ids[:r.blocks], r.sorted_expert_ids[:r.blocks])
    np.testing.assert_array_equal(got["x_q"], want.x_q)
    np.testing.assert_array_equal(got["x_scale"], want.x_scale)


@pytest.mark.parametrize("tokens", [1, 5, 33])
def test_routing_sorting_quantization(tokens):
    prob = ref.random_problem(tokens, 256, 128, 8, seed=tokens)
    got = _op(8, 2, stages=False)(ref.bf16_bits(prob[0]), prob[1], trace=True)
    want = ref.moe_reference(*prob, topk=2, trace=True)
    _check_front(got, want, 8)


def test_renormalized_routing_over_16_experts_top4():
    prob = ref.random_problem(9, 256, 128, 16, seed=4)
    op = fm.FusedMoE(16, 4, fm.Config(), renormalize=True, stages=False)
    got = op(ref.bf16_bits(prob[0]), prob[1], trace=True)
    want = ref.moe_reference(*prob, topk=4, renormalize=True, trace=True)
    np.testing.assert_allclose(got["topk_weights"].sum(1), 1, rtol=1e-5)
    _check_front(got, want, 16)


SPLIT_K = {"tn": 32, "unroll": 1, "wk": 4}  # the stages' few-token tile: K over the 4 waves
SPLIT_K2 = {"tn": 64, "unroll": 1, "wk": 2}  # K over 2 waves (stage 2's K = inter 128 = 32 * 2 * wk)


@pytest.mark.parametrize("tokens,config", [(5, fm.Config(32)), (33, fm.Config(32)), (33, fm.Config(64)),
                                           (5, fm.Config(32, SPLIT_K, SPLIT_K2))], ids=lambda c: getattr(c, "name", c))
def test_whole_path_matches_reference(tokens, config):
    """hidden [T, 256] bf16, 8 experts, top-2, inter 128: out [T, 256] against the reference.
    a2 is bf16 from an f32 sum in another order than the reference's f64 one: it may differ by
    a bf16 ulp, which can move its fp8 code by one (1/16 relative) and the output by far less
    than 2% of its largest value; out itself is rounded to bf16."""
    prob = ref.random_problem(tokens, 256, 128, 8, seed=10 + tokens)
    op = _op(8, 2, config)
    got = op(ref.bf16_bits(prob[0]), prob[1], op.pack_weights(*prob[2:]), trace=True)
    want = ref.moe_reference(*prob, topk=2, block_m=config.block_m, trace=True)
    _check_front(got, want, 8)
    np.testing.assert_allclose(got["a2"], want.a2, rtol=2 ** -7, atol=1e-3)  # one bf16 ulp
    assert (got["a2_q"] == want.a2_q).mean() > 0.99
    scale = np.abs(want.out).max()
    np.testing.assert_allclose(got["out"], want.out, rtol=2e-2, atol=2e-2 * scale)
    assert np.linalg.norm(got["out"] - want.out) < 1e-2 * np.linalg.norm(want.out)


def test_fused_moe_one_call():
    prob = ref.random_problem(7, 256, 128, 8, seed=7)
    out = fm.fused_moe(*prob, topk=2)
    want = ref.moe_reference(*prob, topk=2)
    assert out.shape == (7, 256)
    assert np.linalg.norm(out - want) < 1e-2 * np.linalg.norm(want)


def test_shapes_the_stages_cannot_take_are_refused():
    prob = ref.random_problem(2, 192, 128, 8, seed=1)  # model dim 192: not a multiple of stage 2's tn=128
    with pytest.raises(ValueError, match="stage2: model dim 192 is not a multiple of tn=128"):
        _op(8, 2)(ref.bf16_bits(prob[0]), prob[1], _op(8, 2).pack_weights(*prob[2:]))


def _model_problem(tokens, dim, inter, experts, topk, seed):
    """Random inputs at a model's dimensions: the experts the routing picks get Gaussian weights
    quantized per channel as ``reference.random_problem``'s; the others (never read by a right
    kernel) random fp8 codes (no NaN) and scales, cheaply: a kernel reading a wrong expert sees
    other numbers."""
    rng = np.random.default_rng(seed)
    hidden = ref.to_bf16(rng.standard_normal((tokens, dim), dtype=np.float32))
    logits = rng.standard_normal((tokens, experts), dtype=np.float32)
    w1_q = rng.integers(1, 0x100, (experts, 2 * inter, dim), np.uint8)  # 0x80 (NaN) mapped to 0 below
    w2_q = rng.integers(1, 0x100, (experts, dim, inter), np.uint8)
    w1_q[w1_q == 0x80] = 0
    w2_q[w2_q == 0x80] = 0
    w1_s = rng.uniform(1e-4, 1e-3, (experts, 2 * inter)).astype(np.float32)
    w2_s = rng.uniform(1e-4, 1e-3, (experts, dim)).astype(np.float32)
    for e in np.unique(ref.route(logits, topk)[1]):
        w1_q[e], w1_s[e] = ref.quant_per_token(rng.standard_normal((2 * inter, dim), dtype=np.float32) / np.sqrt(dim))
        w2_q[e], w2_s[e] = ref.quant_per_token(rng.standard_normal((dim, inter), dtype=np.float32) / np.sqrt(inter))
    return hidden, logits, w1_q, w1_s, w2_q, w2_s


@pytest.mark.slow
def test_whole_path_at_qwen_moe_dims():
    """Qwen-MoE-like dimensions (model dim 4096, inter 384, 128 experts, top-8), 3 tokens: the
    whole path, routing included, against the reference (a few minutes of emulation)."""
    tokens, experts, topk = 3, 128, 8
    prob = _model_problem(tokens, 4096, 384, experts, topk, seed=25)
    op = fm.FusedMoE(experts, topk, fm.Config())
    got = op(ref.bf16_bits(prob[0]), prob[1], op.pack_weights(*prob[2:]), trace=True)
    want = ref.moe_reference(*prob, topk=topk, trace=True)
    _check_front(got, want, experts)
    np.testing.assert_allclose(got["a2"], want.a2, rtol=2 ** -7, atol=1e-3)  # one bf16 ulp
    assert (got["a2_q"] == want.a2_q).mean() > 0.99
    scale = np.abs(want.out).max()
    np.testing.assert_allclose(got["out"], want.out, rtol=2e-2, atol=2e-2 * scale)
    assert np.linalg.norm(got["out"] - want.out) < 1e-2 * np.linalg.norm(want.out)

"""The fused MoE path's NumPy reference (``examples/moe/reference.py``) against independent
statements of the same conventions: CK's sorting rules restated by hand on a small case, the
per-token formulation without sorting (``moe_dense``), ml_dtypes' e4m3fnuz, and aiter's
quantization rule on chosen values."""

from __future__ import annotations

import numpy as np
import pytest
from moe import reference as ref


def test_sorting_by_hand():
    # 3 tokens, top-2, 4 experts, blocks of 2: expert 0 <- (t0,s0), (t2,s1); expert 1 unused;
    # expert 2 <- (t0,s1), (t1,s0), (t2,s0); expert 3 <- (t1,s1)
    ids = np.array([[0, 2], [2, 3], [2, 0]], np.int32)
    w = np.array([[0.6, 0.4], [0.7, 0.3], [0.9, 0.1]], np.float32)
    s = ref.sort_tokens(ids, w, experts=4, block_m=2)
    pad = 3 | (2 << 24)
    want = [0, 2 | 1 << 24, 0 | 1 << 24, 1, 2, pad, 1 | 1 << 24, pad]
    assert s.num_valid_ids.tolist() == [8, 3]
    assert s.sorted_ids[:8].tolist() == want
    assert s.sorted_weights[:8].tolist() == pytest.approx([0.6, 0.1, 0.4, 0.7, 0.9, 0, 0.3, 0])
    assert s.sorted_expert_ids[:4].tolist() == [0, 2, 2, 3]
    assert len(s.sorted_ids) == 3 * 2 + 4 * 2 - 2  # aiter's max_num_tokens_padded


def test_quant_rule():
    x = np.array([[240.0, -120.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [-3.0, 1.5, 0.75, 0.1]], np.float32)
    q, s = ref.quant_per_token(x)
    assert s[0] == np.float32(240.0) * np.float32(1 / 240)
    assert s[2] == np.float32(3.0) * np.float32(1 / 240)
    assert (q[1] == 0).all()  # the 1e-10 floor: zeros stay zeros, no NaN code (0x80)
    assert q[0, 0] == 0x7F and q[2, 0] == 0xFF  # +-240: the largest finite e4m3fnuz codes
    np.testing.assert_allclose(ref.dequant(q, s), x, rtol=2 ** -4, atol=1e-6)


def test_fp8_codes_are_e4m3fnuz():
    assert ref.fp8_decode(np.arange(256, dtype=np.uint8))[[0x08, 0x38, 0x40, 0x7F]].tolist() == [
        2.0 ** -7, 0.5, 1.0, 240.0]  # bias 8: 0x40 = 2^(8-8), 0x38 = 2^-1
    assert np.isnan(ref.fp8_decode(np.array([0x80], np.uint8)))[0]


@pytest.mark.parametrize("tokens,experts,topk,block_m", [(1, 8, 1, 16), (5, 8, 2, 32), (13, 16, 4, 16)])
def test_sorted_path_equals_per_token_path(tokens, experts, topk, block_m):
    prob = ref.random_problem(tokens, 64, 32, experts, seed=tokens)
    got = ref.moe_reference(*prob, topk=topk, block_m=block_m)
    want = ref.moe_dense(*prob, topk=topk)
    np.testing.assert_array_equal(got, want)
    assert np.abs(want).max() > 0


def test_path_close_to_unquantized_math():
    """fp8 quantization keeps the path within a few percent of the f64 computation."""
    hidden, logits, w1q, w1s, w2q, w2s = ref.random_problem(9, 128, 64, 8, seed=3)
    out = ref.moe_reference(hidden, logits, w1q, w1s, w2q, w2s, topk=2)
    w, ids = ref.route(logits, 2)
    w1, w2 = ref.dequant(w1q, w1s), ref.dequant(w2q, w2s)
    want = np.zeros_like(out, dtype=np.float64)
    for t in range(9):
        for s in range(2):
            h = w1[ids[t, s]].astype(np.float64) @ hidden[t]
            want[t] += w[t, s] * (w2[ids[t, s]] @ (ref.silu(h[:64]) * h[64:]))
    assert np.linalg.norm(out - want) / np.linalg.norm(want) < 0.05

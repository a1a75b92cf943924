"""The MoE path's sorting and quantization kernels on the emulator against the NumPy reference
(``examples/moe/reference.py``) on random inputs: sorted ids, weights, expert ids and the valid
count exactly (the first ``num_valid_ids[0]`` entries, the rest are unspecified as in aiter),
scales and fp8 codes exactly (the reference's codes come from ml_dtypes' e4m3fnuz)."""

from __future__ import annotations

import numpy as np
import pytest
from moe import cast, quant, reference as ref, sorting

import topk_softmax


def _sort_on_device(loaded, tokens, experts, topk, block_m, seed):
    kern = loaded(("sort", experts, topk, block_m), lambda: sorting.build(experts, topk, block_m),
                  f"moe_sorting_e{experts}_k{topk}_m{block_m}")
    logits = np.random.default_rng(seed).standard_normal((tokens, experts)).astype(np.float32)
    w, ids = ref.route(logits, topk)
    p = ref.max_padded(tokens, topk, experts, block_m)
    got = ref.Sorted(np.full(p, -7, np.int32), np.full(p, np.nan, np.float32),
                     np.full(ref.max_blocks(tokens, topk, experts, block_m), -7, np.int32),
                     np.zeros(2, np.int32), block_m)
    kern(ids, w, got.sorted_ids, got.sorted_weights, got.sorted_expert_ids, got.num_valid_ids, np.int32(tokens),
         grid=sorting.grid(tokens, experts, topk, block_m), block=sorting.BLOCK)
    return got, ref.sort_tokens(ids, w, experts, block_m)


def _same_sort(got, want):
    assert got.num_valid_ids.tolist() == want.num_valid_ids.tolist()
    n = want.valid
    np.testing.assert_array_equal(got.sorted_ids[:n], want.sorted_ids[:n])
    np.testing.assert_array_equal(got.sorted_weights[:n], want.sorted_weights[:n])
    np.testing.assert_array_equal(got.sorted_expert_ids[:want.blocks], want.sorted_expert_ids[:want.blocks])


@pytest.mark.parametrize("tokens,experts,topk,block_m", [
    (1, 8, 1, 16), (5, 8, 2, 32), (33, 8, 2, 32), (67, 100, 3, 64), (130, 256, 8, 16), (200, 128, 6, 128),
    (300, 8, 2, 256), (50, 1024, 8, 16)])
def test_sorting_matches_reference(loaded, tokens, experts, topk, block_m):
    _same_sort(*_sort_on_device(loaded, tokens, experts, topk, block_m, seed=tokens))


def test_sorting_run_time_tokens(loaded):
    """One binary, several token counts (the count is a kernel argument)."""
    for tokens in (2, 64, 65):
        _same_sort(*_sort_on_device(loaded, tokens, 16, 4, 32, seed=100 + tokens))


@pytest.mark.slow
def test_sorting_1024_tokens_256_experts(loaded):
    """DeepSeek-V3's routing at the benchmark's largest token count: 64 work-groups, each
    counting all 8192 pairs (a few minutes of emulation)."""
    _same_sort(*_sort_on_device(loaded, 1024, 256, 8, 32, seed=1024))


@pytest.mark.parametrize("rows,cols,dtype,waves", [
    (1, 128, "bf16", 1), (5, 256, "bf16", 1), (33, 200, "f32", 1), (7, 1028, "f32", 2), (3, 7168, "bf16", 4),
    (4, 4, "bf16", 2), (2, 260, "bf16", 1)])
def test_quant_matches_reference(loaded, rows, cols, dtype, waves):
    kern = loaded(("quant", dtype, waves), lambda: quant.build(dtype, waves), quant.kernel_name(dtype, waves))
    rng = np.random.default_rng(rows * cols)
    x = (rng.standard_normal((rows, cols)) * rng.uniform(0.01, 100, (rows, 1))).astype(np.float32)
    if rows > 2:
        x[1] = 0.0  # an all-zero row: codes 0, not NaN
    xin = ref.bf16_bits(x) if dtype == "bf16" else x
    q = np.full((rows, cols), 0xAB, np.uint8)
    s = np.full(rows, np.nan, np.float32)
    kern(xin, q, s, np.int32(cols), grid=(rows, 1, 1), block=(64 * waves, 1, 1))
    want_q, want_s = ref.quant_per_token(ref.from_bf16_bits(xin) if dtype == "bf16" else x)
    np.testing.assert_array_equal(s, want_s)
    np.testing.assert_array_equal(q, want_q)


@pytest.mark.parametrize("experts,topk,renorm", [(8, 2, False), (8, 8, True), (100, 3, False)])
def test_routing_fewer_than_64_experts(loaded, experts, topk, renorm):
    """``topk_softmax`` with E not a multiple of 64 (lanes past E hold -inf)."""
    name = f"topk_softmax_e{experts}_k{topk}" + ("_renorm" if renorm else "")
    kern = loaded(("topk", experts, topk, renorm), lambda: topk_softmax.build(experts, topk, renorm), name)
    x = np.random.default_rng(experts).standard_normal((6, experts)).astype(np.float32)
    w = np.full((6, topk), np.nan, np.float32)
    ids = np.full((6, topk), -1, np.int32)
    kern(x, w, ids, grid=(6, 1, 1), block=(64, 1, 1))
    want_w, want_ids = ref.route(x, topk, renorm)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_allclose(w, want_w, rtol=2e-5)  # as tests of topk_softmax: exp/rcp ~1 ulp


def test_kernels_sanitizer_clean(loaded):
    """Sorting, quantization (a row of exactly one step per work-item: the sanitizer reports
    intended clamped accesses too) and E=8 routing run clean under the emulator's sanitizer."""
    logits = np.random.default_rng(9).standard_normal((5, 8)).astype(np.float32)
    w, ids = ref.route(logits, 2)
    p = ref.max_padded(5, 2, 8, 32)
    out = [np.zeros(p, np.int32), np.zeros(p, np.float32), np.zeros(ref.max_blocks(5, 2, 8, 32), np.int32),
           np.zeros(2, np.int32)]
    loaded(("sort", 8, 2, 32), lambda: sorting.build(8, 2, 32), "moe_sorting_e8_k2_m32")(
        ids, w, *out, np.int32(5), grid=sorting.grid(5, 8, 2, 32), block=sorting.BLOCK, sanitize=True)
    assert out[3].tolist() == ref.sort_tokens(ids, w, 8, 32).num_valid_ids.tolist()
    x = ref.bf16_bits(np.random.default_rng(3).standard_normal((2, 256)))
    q, s = np.zeros((2, 256), np.uint8), np.zeros(2, np.float32)
    loaded(("quant", "bf16", 1), lambda: quant.build("bf16", 1), quant.kernel_name("bf16", 1))(
        x, q, s, np.int32(256), grid=(2, 1, 1), block=(64, 1, 1), sanitize=True)
    np.testing.assert_array_equal(s, ref.quant_per_token(ref.from_bf16_bits(x))[1])
    tw, ti = np.zeros((5, 2), np.float32), np.zeros((5, 2), np.int32)
    loaded(("topk", 8, 2, False), lambda: topk_softmax.build(8, 2, False), "topk_softmax_e8_k2")(
        logits, tw, ti, grid=(5, 1, 1), block=(64, 1, 1), sanitize=True)
    np.testing.assert_array_equal(ti, ids)


@pytest.mark.parametrize("n", [2, 510, 1030])
def test_cast_to_bf16_rounds_to_nearest_even(loaded, n):
    kern = loaded("cast", cast.build, cast.kernel_name())
    x = (np.random.default_rng(n).standard_normal(n) * 10).astype(np.float32)
    x[0] = np.float32(1 + 2 ** -8)  # a tie: rounds to 1.0 (even)
    x[1] = np.float32(1 + 3 * 2 ** -8)  # a tie: rounds up to 1 + 2^-6 (even)
    y = np.full(n, 0xABCD, np.uint16)
    kern(x, y, np.int32(n), grid=cast.grid(n), block=(cast.THREADS, 1, 1))
    np.testing.assert_array_equal(y, ref.bf16_bits(x))  # ml_dtypes' bfloat16

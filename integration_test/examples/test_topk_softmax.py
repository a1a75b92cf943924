"""MoE top-k softmax routing on the emulator (and HIP) against NumPy.

Indices must match exactly (selection compares the logits themselves, ties go to the lower
index as in a stable descending sort: ``test_topk_softmax_ties`` draws small integers, so most
picks tie, inside a lane's registers and across lanes). Weights:
v_exp_f32 / v_rcp_f32 are ~1 ulp and the sum over E experts is reassociated, so each
probability is within ~E * eps32 relative of the float64 reference: rtol 2e-5 (E <= 256).
"""

import numpy as np
import pytest
from conftest import compiled

import topk_softmax


@pytest.mark.parametrize("experts,topk,renorm", [(128, 8, False), (256, 4, True), (128, 6, True), (256, 8, False)])
def test_topk_softmax(experts, topk, renorm, device):
    c = compiled(("topk", experts, topk, renorm), lambda: topk_softmax.build(experts, topk, renorm))
    name = f"topk_softmax_e{experts}_k{topk}" + ("_renorm" if renorm else "")
    kern = c.load(device)[name]
    tokens = 5
    x = (2 * np.random.default_rng(experts + topk).standard_normal((tokens, experts))).astype(np.float32)
    w = np.full((tokens, topk), np.nan, np.float32)
    ids = np.full((tokens, topk), -1, np.int32)
    kern(x, w, ids, grid=(tokens, 1, 1), block=(64, 1, 1))
    order = np.argsort(-x, axis=1, kind="stable")[:, :topk]
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    p = e / e.sum(1, keepdims=True)
    ref = np.take_along_axis(p, order, 1)
    if renorm:
        ref = ref / ref.sum(1, keepdims=True)
    np.testing.assert_array_equal(ids, order)
    np.testing.assert_allclose(w, ref, rtol=2e-5)


@pytest.mark.parametrize("experts,topk,renorm", [(128, 8, False), (256, 8, True)])
def test_topk_softmax_ties(experts, topk, renorm, device):
    c = compiled(("topk", experts, topk, renorm), lambda: topk_softmax.build(experts, topk, renorm))
    name = f"topk_softmax_e{experts}_k{topk}" + ("_renorm" if renorm else "")
    tokens = 6
    x = np.random.default_rng(7).integers(-2, 3, (tokens, experts)).astype(np.float32)
    x[0] = 1.0  # all E tie: the picks are experts 0..k-1
    w = np.full((tokens, topk), np.nan, np.float32)
    ids = np.full((tokens, topk), -1, np.int32)
    c.load(device)[name](x, w, ids, grid=(tokens, 1, 1), block=(64, 1, 1))
    order = np.argsort(-x, axis=1, kind="stable")[:, :topk]
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    p = np.take_along_axis(e / e.sum(1, keepdims=True), order, 1)
    if renorm:
        p = p / p.sum(1, keepdims=True)
    np.testing.assert_array_equal(ids, order)
    np.testing.assert_allclose(w, p, rtol=2e-5)

"""The fused MoE path's data format and its NumPy reference (issue 25, item 2).

Two-stage fused MoE with per-token fp8 activations and per-channel fp8 weights, following
aiter's conventions (``aiter/fused_moe.py``: ``moe_sorting``, ``fused_moe_2stages``,
``torch_moe_stage1/2``; launcher ``csrc/py_itfs_cu/asm_moe_2stage.cu``; sorting in CK's
``ck_tile/ops/fused_moe/kernel/moe_sorting_kernel.hpp`` and its host reference
``ck_tile/host/reference/reference_moe_sorting.hpp``; quantization
``csrc/kernels/quant_kernels.cu``, all in the aiter 0.1.7 wheel). Every kernel of the path
reads and writes these arrays; every test of a kernel compares against the function here.

Shapes (T tokens, D model dim, I inter dim, E experts, k top-k, M = ``block_m`` rows per block)
------------------------------------------------------------------------------------------
=====================  ==================  ======  ===============================================
array                  shape               dtype   meaning
=====================  ==================  ======  ===============================================
hidden                 [T, D]              bf16    input activations (host: ml_dtypes.bfloat16 or
                                                   f32 holding bf16 values; device: uint16 bits)
gate_logits            [T, E]              f32     router logits
topk_weights           [T, k]              f32     softmax over E of the k picked logits (or over
                                                   the k picks, ``renormalize``)
topk_ids               [T, k]              i32     picked experts, larger logit first; ties: lower
                                                   expert first (``examples/topk_softmax.py``)
w1                     [E, 2I, D]          fp8     gate rows ``[:I]`` then up rows ``[I:]`` (aiter
                                                   ``torch_moe_act``: ``split([I, I])``), row-major
w1_scale               [E, 2I]             f32     per output channel (aiter's [E, 2I, 1])
w2                     [E, D, I]           fp8     down projection, row-major
w2_scale               [E, D]              f32     per output channel
sorted_ids             [P]                 i32     ``token | (slot << 24)`` grouped by expert
sorted_weights         [P]                 f32     ``topk_weights[token, slot]``; 0 at padding
sorted_expert_ids      [ceil(P / M)]       i32     the expert of each block of M sorted ids
num_valid_ids          [2]                 i32     [0] = padded count (multiple of M), [1] = T
x_q, x_scale           [T, D], [T]         fp8,f32 per-token quantized hidden
a2                     [T, k, I]           bf16    stage 1: silu(gate) * up per (token, slot)
a2_q, a2_scale         [T*k, I], [T*k]     fp8,f32 per-(token, slot) quantized a2
out                    [T, D]              bf16    stage 2: sum over slots of weight * down(a2)
=====================  ==================  ======  ===============================================

fp8 is gfx942's e4m3fnuz (bias 8, no infinities, 0x80 = NaN; largest finite 240), stored as
uint8 codes. ``P = max_padded(T, k, E, M) = T*k + E*M - k``, aiter's ``max_num_tokens_padded``;
entries at and past ``num_valid_ids[0]`` are unspecified (aiter allocates them with
``torch.empty``): compare only the first ``num_valid_ids[0]`` ids / ``num_valid_ids[0] / M``
expert ids.

Sorting (CK ``MoeSortingKernel`` with ``SkipExpertsWithZeroTokens`` = true and
``CK_TILE_REFERENCE_MOE_SORTING_MOCK_ID`` = 1, both the defaults aiter builds with): experts in
increasing order; an expert no token picked gets no block; an expert's ids are its (token, slot)
pairs in increasing token order (a token picks an expert at most once), padded to a multiple of
M with ``T | (k << 24)`` and weight 0.

Quantization per row r (aiter ``dynamic_per_token_scaled_quant``): ``amax = max(1e-10,
max|x[r]|)`` (the 1e-10 floor as in aiter's grouped path, so an all-zero row gets codes 0 and
not 0 * inf), ``scale = amax * f32(1/240)`` (f32 product), ``q = fp8_rne(x * (1 / scale))``.

Stage 1 (aiter ``moe_stage1_g1u1``, ``doweight_stage1`` = False): for each block b < num_valid/M
with expert e and each valid row (token t, slot s): ``h = (x_q[t] @ w1[e].T) * x_scale[t] *
w1_scale[e]`` (dequantized fp8 products summed in f32), ``a2[t, s] = bf16(silu(h[:I]) *
h[I:])``. Padding rows are not written.

Stage 2 (aiter stage 2 with ``sorted_weights``): ``out[t] += sorted_weight * (a2_q[t*k+s] @
w2[e].T) * a2_scale[t*k+s] * w2_scale[e]`` over the valid rows, ``out`` zeroed first (aiter's
``moe_sorting`` zeroes ``moe_buf``), rounded to bf16 at the end here (the device may round each
addition: compare with a tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FP8_MAX = 240.0  # e4m3fnuz largest finite (torch.finfo(torch.float8_e4m3fnuz).max, aiter get_dtype_max)
AMAX_FLOOR = 1e-10  # aiter quant_kernels.cu: absMax starts at 1e-10f in the grouped kernel
SLOT_SHIFT = 24  # CK MOE_SORTING_MOCK_ID: token in bits [23:0], top-k slot in bits [31:24]
TOKEN_MASK = (1 << SLOT_SHIFT) - 1


def _fp8():
    import ml_dtypes  # the independent e4m3fnuz oracle (a test dependency)

    return ml_dtypes.float8_e4m3fnuz


def _bf16():
    import ml_dtypes

    return ml_dtypes.bfloat16


# ---------------------------------------------------------------------------- number formats
def to_bf16(x) -> np.ndarray:
    """f32 values rounded to bf16 (nearest even), returned as f32."""
    return np.asarray(x, np.float32).astype(_bf16()).astype(np.float32)


def bf16_bits(x) -> np.ndarray:
    """uint16 bit patterns of ``x`` rounded to bf16 (what a device buffer holds)."""
    return np.asarray(x, np.float32).astype(_bf16()).view(np.uint16)


def from_bf16_bits(b) -> np.ndarray:
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


def fp8_encode(x) -> np.ndarray:
    """uint8 e4m3fnuz codes of f32 ``x`` (round to nearest even)."""
    return np.asarray(x, np.float32).astype(_fp8()).view(np.uint8)


def fp8_decode(codes) -> np.ndarray:
    return np.asarray(codes, np.uint8).view(_fp8()).astype(np.float32)


def quant_per_token(x) -> tuple[np.ndarray, np.ndarray]:
    """Per-row fp8 quantization of ``x[R, C]`` (f32 or bf16 values): ``(codes uint8 [R, C],
    scale f32 [R])`` with ``x ~= fp8_decode(codes) * scale[:, None]``."""
    x = np.asarray(x, np.float32)
    amax = np.maximum(np.float32(AMAX_FLOOR), np.abs(x).max(axis=-1))
    scale = (amax * np.float32(1.0 / FP8_MAX)).astype(np.float32)
    inv = (np.float32(1.0) / scale).astype(np.float32)
    return fp8_encode((x * inv[..., None]).astype(np.float32)), scale


def dequant(codes, scale) -> np.ndarray:
    return fp8_decode(codes) * np.asarray(scale, np.float32)[..., None]


# ---------------------------------------------------------------------------- routing, sorting
def route(gate_logits, topk: int, renormalize: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(topk_weights f32 [T, k], topk_ids i32 [T, k])``: the k largest logits (stable: ties
    to the lower expert), weighted by their softmax over all E experts (f64 here), or over
    the k picks with ``renormalize``."""
    x = np.asarray(gate_logits, np.float32)
    ids = np.argsort(-x, axis=1, kind="stable")[:, :topk].astype(np.int32)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    w = np.take_along_axis(e / e.sum(axis=1, keepdims=True), ids, 1)
    if renormalize:
        w = w / w.sum(axis=1, keepdims=True)
    return w.astype(np.float32), ids


def max_padded(tokens: int, topk: int, experts: int, block_m: int) -> int:
    """Length of ``sorted_ids`` / ``sorted_weights`` (aiter ``max_num_tokens_padded``)."""
    return tokens * topk + experts * block_m - topk


def max_blocks(tokens: int, topk: int, experts: int, block_m: int) -> int:
    return -(-max_padded(tokens, topk, experts, block_m) // block_m)


@dataclass
class Sorted:
    sorted_ids: np.ndarray  # i32 [P]
    sorted_weights: np.ndarray  # f32 [P]
    sorted_expert_ids: np.ndarray  # i32 [ceil(P / M)]
    num_valid_ids: np.ndarray  # i32 [2]
    block_m: int

    @property
    def valid(self) -> int:
        return int(self.num_valid_ids[0])

    @property
    def blocks(self) -> int:
        return self.valid // self.block_m


def pad_id(tokens: int, topk: int) -> int:
    return tokens | (topk << SLOT_SHIFT)


def sort_tokens(topk_ids, topk_weights, experts: int, block_m: int) -> Sorted:
    """aiter's moe sorting (see the module docstring). Entries past the valid count are filled
    with the padding id / weight 0 / expert -1 here; they are unspecified on a device."""
    ids = np.asarray(topk_ids, np.int64)
    wts = np.asarray(topk_weights, np.float32)
    t_cnt, k = ids.shape
    if ids.size and (ids.min() < 0 or ids.max() >= experts):
        raise ValueError(f"topk_ids must lie in [0, {experts})")
    p = max_padded(t_cnt, k, experts, block_m)
    out_ids = np.full(p, pad_id(t_cnt, k), np.int32)
    out_w = np.zeros(p, np.float32)
    out_e = np.full(-(-p // block_m), -1, np.int32)
    pos = 0
    for e in range(experts):
        tok, slot = np.nonzero(ids == e)  # row-major: increasing token
        if not len(tok):
            continue
        n = len(tok)
        out_ids[pos:pos + n] = tok | (slot << SLOT_SHIFT)
        out_w[pos:pos + n] = wts[tok, slot]
        padded = -(-n // block_m) * block_m
        out_e[pos // block_m:(pos + padded) // block_m] = e
        pos += padded
    return Sorted(out_ids, out_w, out_e, np.array([pos, t_cnt], np.int32), block_m)


def _rows(s: Sorted, tokens: int):
    """``(block, expert, positions, token ids, slots)`` of each block's valid rows."""
    for b in range(s.blocks):
        sl = slice(b * s.block_m, (b + 1) * s.block_m)
        raw = s.sorted_ids[sl].astype(np.int64)
        tok, slot = raw & TOKEN_MASK, raw >> SLOT_SHIFT
        ok = tok < tokens
        yield b, int(s.sorted_expert_ids[b]), np.arange(sl.start, sl.stop)[ok], tok[ok], slot[ok]


# ---------------------------------------------------------------------------- the two stages
def silu(x):
    return x / (1.0 + np.exp(-x))


def stage1(x_q, x_scale, w1_q, w1_scale, s: Sorted, topk: int) -> np.ndarray:
    """a2 [T, k, I] f32 holding bf16 values (rows no block names stay 0)."""
    tokens = x_q.shape[0]
    inter = w1_q.shape[1] // 2
    x = fp8_decode(x_q).astype(np.float64)
    a2 = np.zeros((tokens, topk, inter), np.float32)
    for _, e, _, tok, slot in _rows(s, tokens):
        w = fp8_decode(w1_q[e]).astype(np.float64)
        h = (x[tok] @ w.T) * np.asarray(x_scale, np.float64)[tok, None] * w1_scale[e][None, :]
        a2[tok, slot] = to_bf16(silu(h[:, :inter]) * h[:, inter:])
    return a2


def stage2(a2_q, a2_scale, w2_q, w2_scale, s: Sorted, topk: int, tokens: int) -> np.ndarray:
    """out [T, D] f32 (the f64 sum over slots, not yet rounded to bf16)."""
    a = fp8_decode(a2_q).astype(np.float64)
    out = np.zeros((tokens, w2_q.shape[1]), np.float64)
    for _, e, pos, tok, slot in _rows(s, tokens):
        r = tok * topk + slot
        w = fp8_decode(w2_q[e]).astype(np.float64)
        y = (a[r] @ w.T) * np.asarray(a2_scale, np.float64)[r, None] * w2_scale[e][None, :]
        np.add.at(out, tok, y * s.sorted_weights[pos, None].astype(np.float64))
    return out.astype(np.float32)


@dataclass
class Trace:
    """Every intermediate of ``moe_reference`` (what each kernel of the path must produce)."""
    topk_weights: np.ndarray
    topk_ids: np.ndarray
    sorted: Sorted
    x_q: np.ndarray
    x_scale: np.ndarray
    a2: np.ndarray
    a2_q: np.ndarray
    a2_scale: np.ndarray
    out: np.ndarray  # f32 holding bf16 values


def moe_reference(hidden, gate_logits, w1_q, w1_scale, w2_q, w2_scale, topk: int,
                  renormalize: bool = False, block_m: int = 32, trace: bool = False):
    """The whole path from bf16 activations and f32 router logits: routing, sorting, fp8
    quantization, stage 1, quantization of a2, stage 2. Returns ``out`` [T, D] (f32 holding
    bf16 values) or, with ``trace=True``, a :class:`Trace` of every intermediate."""
    hidden = to_bf16(hidden)
    experts = w1_q.shape[0]
    w, ids = route(gate_logits, topk, renormalize)
    s = sort_tokens(ids, w, experts, block_m)
    x_q, x_scale = quant_per_token(hidden)
    a2 = stage1(x_q, x_scale, w1_q, w1_scale, s, topk)
    a2_q, a2_scale = quant_per_token(a2.reshape(-1, a2.shape[-1]))
    out = to_bf16(stage2(a2_q, a2_scale, w2_q, w2_scale, s, topk, hidden.shape[0]))
    if trace:
        return Trace(w, ids, s, x_q, x_scale, a2, a2_q, a2_scale, out)
    return out


def moe_dense(hidden, gate_logits, w1_q, w1_scale, w2_q, w2_scale, topk: int,
              renormalize: bool = False) -> np.ndarray:
    """The same path written per token, without sorting (an independent check of the
    sorted formulation: ``moe_reference`` must equal this for every block size)."""
    hidden = to_bf16(hidden)
    w, ids = route(gate_logits, topk, renormalize)
    x_q, x_scale = quant_per_token(hidden)
    inter = w1_q.shape[1] // 2
    a2 = np.zeros((hidden.shape[0], topk, inter), np.float32)
    for t in range(hidden.shape[0]):
        for s in range(topk):
            e = ids[t, s]
            h = (fp8_decode(x_q[t]).astype(np.float64) @ fp8_decode(w1_q[e]).astype(np.float64).T)
            h = h * float(x_scale[t]) * w1_scale[e]
            a2[t, s] = to_bf16(silu(h[:inter]) * h[inter:])
    a2_q, a2_scale = quant_per_token(a2.reshape(-1, inter))
    out = np.zeros((hidden.shape[0], w2_q.shape[1]), np.float64)
    for t in range(hidden.shape[0]):
        for s in range(topk):
            e, r = ids[t, s], t * topk + s
            y = fp8_decode(a2_q[r]).astype(np.float64) @ fp8_decode(w2_q[e]).astype(np.float64).T
            out[t] += float(w[t, s]) * y * float(a2_scale[r]) * w2_scale[e]
    return to_bf16(out.astype(np.float32))


def random_problem(tokens: int, dim: int, inter: int, experts: int, seed: int = 0):
    """Random inputs in the reference's format: ``(hidden f32 holding bf16 values, gate_logits,
    w1_q, w1_scale, w2_q, w2_scale)``; weights quantized per output channel."""
    rng = np.random.default_rng(seed)
    hidden = to_bf16(rng.standard_normal((tokens, dim)).astype(np.float32))
    logits = rng.standard_normal((tokens, experts)).astype(np.float32)
    w1 = (rng.standard_normal((experts, 2 * inter, dim)) / np.sqrt(dim)).astype(np.float32)
    w2 = (rng.standard_normal((experts, dim, inter)) / np.sqrt(inter)).astype(np.float32)
    w1_q, w1_s = quant_per_token(w1.reshape(-1, dim))
    w2_q, w2_s = quant_per_token(w2.reshape(-1, inter))
    return (hidden, logits, w1_q.reshape(w1.shape), w1_s.reshape(experts, 2 * inter),
            w2_q.reshape(w2.shape), w2_s.reshape(experts, dim))

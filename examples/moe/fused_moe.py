"""The fused MoE layer as one operation: the library's kernels launched in order on a device
(default the emulator), every array in ``moe/reference.py``'s format.

1. routing: ``topk_softmax`` (logits -> top-k weights and expert ids);
2. sorting: ``moe/sorting.py`` (aiter's moe sorting, run-time token count);
3. per-token fp8 quantization of the hidden states: ``moe/quant.py``;
4. stage 1 (gate + up, silu): ``moe/stage1.py``, bf16 ``a2[T, k, I]``;
5. per-(token, slot) fp8 quantization of ``a2`` (aiter's ``fused_moe_2stages`` quantizes
   between the stages with ``num_rows_factor = topk``): ``moe/quant.py``;
6. stage 2 (down, weighted by the sorted weights, summed over the slots): ``moe/stage2.py``
   into f32 ``out[T, D]`` (zeroed first, as aiter's ``moe_sorting`` zeroes ``moe_buf``);
7. f32 -> bf16: ``moe/cast.py`` (aiter's layer returns bf16).

All kernels of one configuration live in one code object (``build_module`` moves each
builder module's kernels into one). ``Config`` holds a whole-operation variant: the block
size M of the sorting and both stages, the stages' tile choices, the quantization work-group.
``FusedMoE(...)(hidden, logits, weights)`` runs it; ``fused_moe(...)`` is the one-call form::

    from moe.fused_moe import fused_moe
    out = fused_moe(hidden, gate_logits, w1_q, w1_scale, w2_q, w2_scale, topk=2)

``launch=`` (a callable ``launch(kernel, *args, grid=, block=)``) lets a caller time or record
every launch: ``gcnforge tune --e2e`` ranks configurations by the predicted total of all seven
(``examples/drivers/moe_tune.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gcnforge.builder import Module

from moe import cast, quant, reference as ref, sorting, stage1, stage2
from moe.moe_gemm import shuffle

WAVE = 64


@dataclass(frozen=True)
class Config:
    """One whole-operation variant."""
    block_m: int = 32  # sorted rows per block: the sorting's padding and both stages' M tile
    stage1: dict = field(default_factory=lambda: {"tn": 128, "unroll": 2})  # stage1.build's tile parameters
    stage2: dict = field(default_factory=lambda: {"tn": 128, "unroll": 2})  # stage2.build's tile parameters
    quant_waves: int = 1  # work-group of the quantization kernels, in waves

    @property
    def name(self) -> str:
        s1 = "_".join(f"{k}{v}" for k, v in sorted(self.stage1.items()))
        s2 = "_".join(f"{k}{v}" for k, v in sorted(self.stage2.items()))
        return f"m{self.block_m}_s1_{s1}_s2_{s2}_q{self.quant_waves}"

    def problems(self, dim: int, inter: int) -> list[str]:
        """Why the kernels cannot run (dim, inter), in words (empty: they can): a stage's N
        tile must divide its N, its K loop takes ``32 unroll depth wk`` bytes a trip
        (``moe/stage1.py``, ``moe/stage2.py`` limits); the quantization reads 4 columns at a time."""
        out = []
        for st, n, kk in (("stage1", inter, dim), ("stage2", dim, inter)):
            t = {"unroll": 2, "wk": 1, "depth": 2, **getattr(self, st)}
            if n % t["tn"]:
                out.append(f"{st}: {'inter' if st == 'stage1' else 'model'} dim {n} is not a multiple of tn={t['tn']}")
            step = 32 * t["unroll"] * t["depth"] * t["wk"]
            if kk % step:
                out.append(f"{st}: K = {kk} is not a multiple of 32 * unroll * depth * wk = {step}")
        return out


def merge(name: str, modules) -> Module:
    """One builder Module holding every kernel (and function) of ``modules``."""
    out = Module(name)
    for m in modules:
        if m.target != out.target:
            raise ValueError(f"module {m.name} is for {m.target}, not {out.target}")
        for op in list(m.op.body.block.ops):
            op.detach()
            out.op.body.block.add_op(op)
    out.verify()
    return out


def kernel_names(experts: int, topk: int, config: Config, renormalize: bool = False, stages: bool = True) -> dict:
    """The kernel of each step (names in the code object ``build_module`` makes)."""
    m = config.block_m
    names = {"route": f"topk_softmax_e{experts}_k{topk}" + ("_renorm" if renormalize else ""),
             "sort": sorting.kernel_name(experts, topk, m), "quant": quant.kernel_name("bf16", config.quant_waves)}
    if stages:
        names["stage1"] = stage1.kernel_name(m, **config.stage1)
        names["stage2"] = stage2.kernel_name(m, **config.stage2)
        names["cast"] = cast.kernel_name()
    return names


def build_module(experts: int, topk: int, config: Config, renormalize: bool = False, stages: bool = True) -> Module:
    """Every kernel of the path for (E, k, config) in one builder Module; token count, model
    and inter dims are run-time arguments of all of them."""
    import topk_softmax

    m = config.block_m
    mods = [topk_softmax.build(experts, topk, renormalize), sorting.build(experts, topk, m),
            quant.build("bf16", config.quant_waves)]
    if stages:
        mods += [stage1.build(m, **config.stage1), stage2.build(m, **config.stage2), cast.build()]
    return merge(f"fused_moe_e{experts}_k{topk}_{config.name}", mods)


class FusedMoE:
    """The path for (E, k, config): compiled here (``device``), or over kernels a caller
    already has (``kernels``: step name -> a launchable kernel, e.g. ``gcnforge tune``'s)."""

    def __init__(self, experts: int, topk: int, config: Config = Config(), renormalize: bool = False,
                 device: str | None = "emulator", stages: bool = True, kernels=None):
        self.experts, self.topk, self.config, self.stages = experts, topk, config, stages
        self.names = kernel_names(experts, topk, config, renormalize, stages)
        if kernels is None:
            from lib.compile import compile_module

            loaded = compile_module(build_module(experts, topk, config, renormalize, stages)).load(device)
            kernels = {step: loaded[name] for step, name in self.names.items()}
        self.kernels = kernels

    def kernel(self, step: str):
        return self.kernels[step]

    # ------------------------------------------------------------------ weights
    def pack_weights(self, w1_q, w1_scale, w2_q, w2_scale) -> dict:
        """The weights as the stage kernels read them: fp8 codes in aiter's pre-shuffled order
        (``moe_gemm.shuffle``, aiter's ``shuffle_weight(layout=(16, 16))``), scales as they are."""
        return {"inter": int(w2_q.shape[2]), "w1": shuffle(np.asarray(w1_q, np.uint8)),
                "w1_scale": np.ascontiguousarray(w1_scale, np.float32),
                "w2": shuffle(np.asarray(w2_q, np.uint8)),
                "w2_scale": np.ascontiguousarray(w2_scale, np.float32)}

    # ------------------------------------------------------------------ the steps
    def route(self, logits, launch):
        t = logits.shape[0]
        w = np.zeros((t, self.topk), np.float32)
        ids = np.zeros((t, self.topk), np.int32)
        launch(self.kernel("route"), np.ascontiguousarray(logits, np.float32), w, ids,
               grid=(t, 1, 1), block=(WAVE, 1, 1))
        return w, ids

    def sort(self, ids, w, launch) -> ref.Sorted:
        t, k = ids.shape
        e, m = self.experts, self.config.block_m
        p = ref.max_padded(t, k, e, m)
        s = ref.Sorted(np.zeros(p, np.int32), np.zeros(p, np.float32),
                       np.zeros(ref.max_blocks(t, k, e, m), np.int32), np.zeros(2, np.int32), m)
        launch(self.kernel("sort"), ids, w, s.sorted_ids, s.sorted_weights, s.sorted_expert_ids, s.num_valid_ids,
               np.int32(t), grid=sorting.grid(t, e, k, m), block=sorting.BLOCK)
        return s

    def quantize(self, bits, launch):
        """``bits`` [R, C] bf16 bit patterns -> (fp8 codes [R, C], scales [R]); one work-group a row."""
        rows, cols = bits.shape
        if cols % 4:
            raise ValueError(f"the quantized rows must have a multiple of 4 columns, got {cols}")
        q = np.zeros(bits.shape, np.uint8)
        s = np.zeros(rows, np.float32)
        launch(self.kernel("quant"), bits, q, s, np.int32(cols), grid=(rows, 1, 1),
               block=(self.config.quant_waves * WAVE, 1, 1))
        return q, s

    def __call__(self, hidden_bits, logits, weights: dict | None = None, launch=None, trace: bool = False,
                 valid_grid: bool = False):
        """Run the path: ``hidden_bits`` [T, D] uint16 bf16 patterns, ``logits`` [T, E] f32,
        ``weights`` from ``pack_weights``. Returns out [T, D] as f32 (holding bf16 values), or
        with ``trace`` a dict of every intermediate (the names of ``reference.Trace``).

        The stages' grids cover the allocation's bound of blocks, as aiter's launcher does
        (blocks past ``num_valid_ids[0]`` exit at once), or with ``valid_grid`` the valid
        blocks only (read back after the sorting): what a timed run needs, since the timing
        mode's work-group sample would take an exiting block as the pattern of the others."""
        launch = launch or _direct
        t = hidden_bits.shape[0]
        w, ids = self.route(logits, launch)
        s = self.sort(ids, w, launch)
        x_q, x_s = self.quantize(np.ascontiguousarray(hidden_bits, np.uint16), launch)
        got = {"topk_weights": w, "topk_ids": ids, "sorted": s, "x_q": x_q, "x_scale": x_s}
        if self.stages:
            got.update(self._stages(s, x_q, x_s, weights, launch, t, valid_grid))
        return got if trace else got.get("out")

    def _stages(self, s, x_q, x_s, weights, launch, t, valid_grid):
        k, nblk = self.topk, (s.blocks if valid_grid else len(s.sorted_expert_ids))
        dim, inter = x_q.shape[1], weights["inter"]
        bad = self.config.problems(dim, inter)
        if bad:
            raise ValueError(f"fused MoE config {self.config.name}: " + "; ".join(bad))
        block = (64 * stage1.WAVES, 1, 1)
        a2 = np.zeros((t, k, inter), np.uint16)
        launch(self.kernel("stage1"), a2, x_q, weights["w1"], s.num_valid_ids, x_s, weights["w1_scale"],
               s.sorted_ids, s.sorted_expert_ids, np.int32(dim), np.int32(inter), np.int32(t),
               np.int32(k), grid=stage1.grid(inter, nblk, self.config.stage1["tn"]), block=block)
        a2_q, a2_s = self.quantize(a2.reshape(t * k, inter), launch)
        out = np.zeros((t, dim), np.float32)  # stage 2 adds every slot's term atomically: zeroed first
        launch(self.kernel("stage2"), out, a2_q, weights["w2"], s.num_valid_ids, a2_s, weights["w2_scale"],
               s.sorted_ids, s.sorted_weights, s.sorted_expert_ids, np.int32(dim), np.int32(inter),
               np.int32(t), np.int32(k), grid=stage2.grid(dim, nblk, self.config.stage2["tn"]), block=block)
        bits = np.zeros((t, dim), np.uint16)
        launch(self.kernel("cast"), out, bits, np.int32(t * dim), grid=cast.grid(t * dim), block=(cast.THREADS, 1, 1))
        return {"a2": ref.from_bf16_bits(a2), "a2_q": a2_q, "a2_scale": a2_s, "out_f32": out,
                "out": ref.from_bf16_bits(bits)}


def _direct(kernel, *args, grid, block):
    return kernel(*args, grid=grid, block=block)


_CACHE: dict = {}


def fused_moe(hidden, gate_logits, w1_q, w1_scale, w2_q, w2_scale, topk: int, renormalize: bool = False,
              config: Config = Config(), device: str | None = "emulator"):
    """The whole path in one call: ``hidden`` [T, D] (f32 holding bf16 values, or
    ml_dtypes.bfloat16), ``gate_logits`` [T, E] f32, weights as ``moe/reference.py`` describes
    (row-major fp8 codes and per-channel f32 scales). Returns out [T, D] (f32 holding bf16
    values). The kernels are compiled once per (shape, config, device)."""
    key = (w1_q.shape[0], topk, renormalize, config.name, device)
    if key not in _CACHE:
        _CACHE[key] = FusedMoE(w1_q.shape[0], topk, config, renormalize, device)
    op = _CACHE[key]
    return op(ref.bf16_bits(hidden), gate_logits, op.pack_weights(w1_q, w1_scale, w2_q, w2_scale))

"""``gcnforge tune --e2e`` over the fused MoE layer (``examples/drivers/moe_tune.py``): every
candidate is a whole operation, checked against the NumPy path, and ranked by the predicted
total of all its launches, which this test adds up itself from a separate timed run."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from moe import fused_moe as fm, reference as ref

from gcnforge.runtime.tuning import tune

DRIVERS = Path(__file__).resolve().parents[2] / "examples" / "drivers"


def _family(**kw):
    sys.path.insert(0, str(DRIVERS))
    import moe_tune

    return moe_tune.MoEFamily(**kw)


def _predicted_total(config, shape, seed_inputs):
    """Sum of the timing model's predictions of every launch of the path (mi300x), run here."""
    total = []

    def launch(kernel, *args, grid, block):
        r = kernel(*args, grid=grid, block=block, timing="mi300x")
        total.append(r.seconds)
        return r

    op = fm.FusedMoE(8, 2, config)
    i = seed_inputs
    op(ref.bf16_bits(i["hidden"]), i["logits"], op.pack_weights(i["w1_q"], i["w1_scale"], i["w2_q"], i["w2_scale"]),
       launch=launch, valid_grid=True)
    return len(total), sum(total)


@pytest.mark.slow  # ~40 s: two variants compiled, each trial emulated in timing mode and checked
def test_e2e_tune_ranks_whole_operations(tmp_path):
    fam = _family(experts=8, topk=2, block_m=(32, 64), stage1=({"tn": 128, "unroll": 2},), stage2=({"tn": 128, "unroll": 2},))
    shape = (5, 256, 128)
    out = tmp_path / "moe.csv"
    rep = tune(fam, [shape], out, device="emulator", e2e=True, timing="mi300x", progress=lambda s: None)
    assert [t.status for t in rep.trials] == ["ok", "ok"], [t.message for t in rep.trials]
    assert rep.time_kind == "e2e-modeled"
    inputs = fam.make_inputs(shape, np.random.default_rng(0))  # the engine's inputs: default_rng(seed 0)
    for t in rep.trials:
        n, total = _predicted_total(fam._config(t.variant), shape, inputs)
        assert n == 7  # route, sort, quant, stage 1, quant, stage 2, cast
        assert t.seconds == pytest.approx(total, rel=1e-9)
    best = min(rep.trials, key=lambda t: t.seconds)
    assert rep.winners[shape] is best
    text = out.read_text()
    assert "fused_moe" in text and best.variant.name in text

"""The committed registry tables' ``us`` values are the timing model's predictions: each row is
rebuilt by examples/drivers/kernel_tables.py (the same code object, the same launch and
profile) and predicted again; the value must be the table's (the model is deterministic for a
given code object, launch and input). A table left behind by a model change fails here and is
rewritten with ``python examples/drivers/kernel_tables.py -o examples/configs``. The ``gcnforge
tune`` tables (gemm_macro_{skinny,4096,1280}.csv) the same way: each row's variant is built by its
family in examples/drivers/gemm_tune.py and run through tune's own trial (``run_trial``, the
family's call and inputs at tune's default seed) on the table's profile; a stale one is rewritten
by the tune command its header names. The first row of each table runs always; the others (a
minute or more of emulation each, the GEMMs several) in CI's slow pass."""

import csv
from pathlib import Path

import pytest

import kernel_tables as kt

TABLES = ("norms_bf16", "topk_softmax", "gemm_macro_large")
TUNED = {"gemm_macro_skinny": "skinny", "gemm_macro_4096": "large_4096", "gemm_macro_1280": "llm_1280"}
CONFIGS = Path(__file__).resolve().parents[2] / "examples" / "configs"


def _rows(table: str) -> list[dict]:
    lines = [ln for ln in (CONFIGS / table).read_text().splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines))


def _key(kind: str, r: dict):
    m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
    if kind == "norms_bf16":
        return kt.norm_row("rms" if r["op"] == "rmsnorm" else "layer", m, n)
    if kind == "topk_softmax":
        return kt.topk_row(m, n, k, r["op"].endswith("renorm"))
    return kt.gemm_row("fp8" if "float8" in r["dtype"] else "bf16", "bf16" if "bfloat16" in r["outdtype"] else "f32",
                       m, n, k, int(r["tile_m"]), int(r["tile_n"]), *(int(w) for w in r["waves"].split("x")),
                       r["kernelName"].endswith("_anyk"))


def _cases():
    for table in TABLES:
        for i, r in enumerate(_rows(f"{table}.csv")):
            yield pytest.param(table, r, id=f"{table}-{r['kernelName']}-{r['M']}x{r['N']}x{r['K']}",
                               marks=[pytest.mark.slow] if i or table.startswith("gemm") else [])


@pytest.mark.parametrize("table,r", list(_cases()))
def test_registry_us_is_the_models(table, r):
    import gcnforge.runtime as rt
    from gcnforge.perfmodel import profiles

    row = _key(table, r)
    assert row.kernel == r["kernelName"]
    prof = profiles.get((r.get("profile") or "mi300x").lower())
    rep = row.launch(rt.load(row.build()).kernel(row.kernel), prof).timing
    assert rep.us == pytest.approx(float(r["us"]), rel=1e-3), (rep.us, r["us"])


def _tuned_cases():
    for table, fam in TUNED.items():
        for i, r in enumerate(_rows(f"{table}.csv")):
            yield pytest.param(fam, r, id=f"{table}-{r['kernelName']}-{r['M']}x{r['N']}x{r['K']}",
                               marks=[pytest.mark.slow] if i or fam != "skinny" else [])


@pytest.mark.parametrize("fam,r", list(_tuned_cases()))
def test_tuned_us_is_the_models(fam, r):
    import numpy as np

    import gcnforge.runtime as rt
    import gemm_tune
    from gcnforge.perfmodel import profiles
    from gcnforge.runtime.devices import get_device
    from gcnforge.runtime.tune_types import run_trial

    family = getattr(gemm_tune, fam)
    v = next(v for v in family.variants() if v.name == r["kernelName"])
    shape = (int(r["M"]), int(r["N"]), int(r["K"]))
    inputs = family.make_inputs(shape, np.random.default_rng(0))  # tune's default --seed
    kern = rt.load(family.build(v)).kernel(v.kernel)
    prof = profiles.get("mi308x" if r["cu_num"] == "80" else "mi300x")
    t = run_trial(family, kern, v, shape, inputs, np.asarray(family.reference(shape, inputs)),
                  get_device("emulator", family.target), False, 1, timing=prof)
    assert t.status == "ok", t.message
    assert t.seconds * 1e6 == pytest.approx(float(r["us"]), rel=1e-3), (t.seconds * 1e6, r["us"])

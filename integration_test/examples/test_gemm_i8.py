"""The int8 per-token GEMM in aiter's layout (examples/gemm_i8.py) against two oracles: NumPy
(exact int32 products, the scales and bias in f32, bf16 rounding; the kernel does the same
operations in the same order, so ``ks = 1`` must be bit-exact) and aiter's own code object
``I8gemm_bf16_perTokenI8_BpreShuffle_128x128`` on the same inputs and the same kernel-argument
bytes (our kernel's layout packs them for both). Shapes with M and N tails, K tiles odd and
even, a K shorter than the prefetch, split-K (each split rounds its partial to bf16 and adds it
with a bf16 atomic: the NumPy reference does the same, in split order). C starts as NaN: the
kernel must write every element, or under split-K zero it first (split 0 does)."""

import zipfile

import numpy as np
import pytest
from conftest import compiled

import gemm_i8
import gcnforge.runtime as rt
from gcnforge.testing import require_aiter_wheel

SLOW = pytest.mark.slow  # each compiles its own configuration (tens of seconds under load)
AITER_CO = "aiter_meta/hsa/gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_128x128.co"
CASES = [  # m, n, k, ks, (tm, tn, wm, wn, depth)
    (100, 96, 192, 1, (128, 128, 2, 2, 1)),  # M and N tails, three K tiles (odd)
    (130, 160, 256, 1, (128, 128, 2, 2, 1)),  # a second tile of rows, a 32-column tail
    (70, 256, 640, 2, (128, 128, 2, 2, 1)),  # split-K: 384 + 256
    pytest.param(64, 128, 64, 1, (128, 128, 2, 2, 3), marks=SLOW),  # one K tile, a prefetch of four
    pytest.param(33, 128, 1024, 3, (64, 128, 1, 2, 2), marks=SLOW),  # split-K 384 + 384 + 256, one wave row
    pytest.param(40, 64, 256, 4, (64, 128, 1, 4, 3), marks=SLOW),  # split-K 128 + 128 + 0 + 0 (empty splits)
]


def _inputs(m, n, k, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(-128, 128, (m, k), dtype=np.int8), rng.integers(-128, 128, (n, k), dtype=np.int8)
    sa = (rng.uniform(0.5, 1.5, m) * 1e-3).astype(np.float32)
    return a, b, sa, rng.uniform(0.5, 1.5, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)


def _bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def split_reference(a, b, sa, sb, bias, ks):
    """Each split's partial rounded to bf16 (bias in split 0 only), added in split order with a
    bf16 rounding per add (the atomic's RNE)."""
    k = a.shape[1]
    kps = gemm_i8.k_per_split(k, ks)
    acc = np.zeros((a.shape[0], b.shape[0]), np.float32)
    for z in range(ks):
        sl = slice(z * kps, min(k, (z + 1) * kps))
        part = gemm_i8.reference(a[:, sl], b[:, sl], sa, sb, bias if z == 0 else np.zeros_like(bias))
        u = (acc + _bf16(part)).view(np.uint32).astype(np.uint64)
        acc = _bf16(((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16))
    return acc


def _run(kern, m, n, k, ks, tiles, ins, device="emulator"):
    a, b, sa, sb, bias = ins
    out = np.full((m, n), 0x7FC0, np.uint16)  # NaN until written (split-K: zeroed by the kernel)
    kern(out, a, gemm_i8.preshuffle(b), sa, sb, bias, m, n, k, k, k, 2 * n, ks,
         grid=gemm_i8.grid(m, n, tiles[0], tiles[1], ks), block=(64 * tiles[2] * tiles[3],), device=device)
    return out


def _ours(cfg):
    tm, tn, wm, wn, depth = cfg
    c = compiled(("i8", *cfg), lambda: gemm_i8.build(tm, tn, wm, wn, depth))
    return c, gemm_i8.kernel_name(tm, tn, wm, wn, depth)


@pytest.mark.parametrize("m,n,k,ks,cfg", CASES)
def test_gemm_i8_matches_numpy(m, n, k, ks, cfg, device):
    c, name = _ours(cfg)
    ins = _inputs(m, n, k, m + n + k)
    got = _run(c.load(device)[name], m, n, k, ks, cfg, ins, device)
    if ks == 1:
        np.testing.assert_array_equal(got, gemm_i8.reference(*ins))
    else:
        np.testing.assert_array_equal(_bf16(got), split_reference(*ins, ks))


def test_kernel_arguments_are_aiters():
    """Our metadata's argument offsets are the ones aiter's object declares (its .args, padding
    fields apart): C, A, B, SA, SB, BIAS, M, N, K, PA, PB, PC, KS."""
    c, name = _ours((128, 128, 2, 2, 1))
    ours = {f.name: f.offset for f in c.load("emulator")[name].layout.explicit}
    lib = rt.load(zipfile.ZipFile(require_aiter_wheel()).read(AITER_CO))
    theirs = [(a[".name"], a[".offset"]) for a in lib.kernel(next(iter(lib.kernels))).metadata[".args"]
              if a[".name"] != "pad"]
    assert [off for _, off in theirs] == [ours[n] for n in ("c", "a", "b", "sa", "sb", "bias", *gemm_i8.VALUES)]


def _against_aiters_object(m, n, k, ks):
    """The same kernel-argument bytes into aiter's object (grid N/128 ks x ceil(M/128), as its
    launcher): the same bf16 bits, and with ks = 1 NumPy's."""
    cfg = (128, 128, 2, 2, 1)
    c, name = _ours(cfg)
    ours = c.load("emulator")[name]
    lib = rt.load(zipfile.ZipFile(require_aiter_wheel()).read(AITER_CO))
    theirs = lib.kernel(next(iter(lib.kernels)), layout=ours.layout)
    ins = _inputs(m, n, k, 7 * m + n + k)
    got, want = _run(ours, m, n, k, ks, cfg, ins), _run(theirs, m, n, k, ks, cfg, ins)
    if ks == 1:
        np.testing.assert_array_equal(want, gemm_i8.reference(*ins))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("m,n,k", [(100, 128, 256), (200, 128, 256), (64, 128, 128)])
def test_aiters_object_at_short_k(m, n, k):
    """K <= 256, ks 1: with a row pitch K below 260 bytes aiter's object steps its per-row VGPR
    buffer offsets by K - 260 < 0 and adds the rows back with the instruction offset, so rows 1-7
    of each wave reach their data only because the MUBUF offset sum wraps at 32 bits (before the
    range check and the base add: ops_mem._buffer_addr and its sources). Without the wrap those
    rows read zeros (7 rows of each 128-row tile wrong); with it the object matches NumPy."""
    _against_aiters_object(m, n, k, 1)


@pytest.mark.slow
@pytest.mark.parametrize("m,n,k,ks", [(100, 128, 512, 1), (128, 256, 384, 1), (64, 256, 1024, 2), (96, 128, 1024, 3)])
def test_gemm_i8_matches_aiters_object(m, n, k, ks):
    """K per split > 256 (offsets that never wrap), split-K included."""
    _against_aiters_object(m, n, k, ks)


def test_registry_dispatches_by_shape():
    """examples/configs/gemm_i8.csv: an exact hit at one of aiter's shapes; another shape goes to
    the heuristic, whose kernel (rebuilt from the row's parameters) at the chosen split-K and
    grid matches NumPy."""
    from pathlib import Path

    from gcnforge.runtime.registry import Registry

    table = Path(gemm_i8.__file__).parent / "configs" / "gemm_i8.csv"
    reg = Registry.from_csv(table, cu_count=80)
    r = _table_rows()[0]
    m, n, k = int(r["M"]), int(r["N"]), int(r["K"])
    hit = reg.select("gfx942", "i8", m, n, k, bias=True, preshuffle=True, out_dtype="bf16")
    assert hit.how == "tuned" and hit.entry.kernel == r["kernelName"] and hit.splitk == int(r["splitK"])
    assert hit.grid == gemm_i8.grid(m, n, hit.entry.tile_m, hit.entry.tile_n, hit.splitk)
    m, n, k = 100, 256, 640
    ch = reg.select("gfx942", "i8", m, n, k, bias=True, preshuffle=True, out_dtype="bf16")
    e = ch.entry
    assert ch.how == "heuristic" and ch.grid == gemm_i8.grid(m, n, e.tile_m, e.tile_n, ch.splitk)
    cfg = (e.tile_m, e.tile_n, *(int(w) for w in e.extra["waves"].split("x")), int(e.extra["depth"]))
    c, name = _ours(cfg)
    assert name == e.kernel
    ins = _inputs(m, n, k, 5)
    got = _run(c.load("emulator")[name], m, n, k, ch.splitk, cfg, ins)
    np.testing.assert_array_equal(_bf16(got), split_reference(*ins, ch.splitk))


def _table_rows() -> list[dict]:
    import csv
    from pathlib import Path

    table = Path(gemm_i8.__file__).parent / "configs" / "gemm_i8.csv"
    if not table.exists():
        return []
    rows = csv.DictReader([ln for ln in table.read_text().splitlines() if not ln.startswith("#")])
    return [r for r in rows if r["M"]]


@pytest.mark.slow
@pytest.mark.parametrize("r", _table_rows(), ids=lambda r: f"{r['M']}x{r['N']}x{r['K']}")
def test_registry_us_is_the_models(r):
    """Each tuned row's ``us``: the same kernel, launch and seeded inputs predicted again on the
    row's profile (benchmarks/bench_kernels_i8.py wrote them)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(gemm_i8.__file__).parents[1] / "benchmarks"))
    import bench_kernels_i8
    from gcnforge.perfmodel import profiles

    cfg = (int(r["tile_m"]), int(r["tile_n"]), *(int(w) for w in r["waves"].split("x")), int(r["depth"]))
    c, name = _ours(cfg)
    assert name == r["kernelName"]
    _, (_, res) = bench_kernels_i8.predict(gemm_i8, c.load("emulator")[name], cfg, int(r["M"]), int(r["N"]),
                                           int(r["K"]), int(r["splitK"]), profiles.get(r["profile"].lower()))
    assert res.timing.us == pytest.approx(float(r["us"]), rel=1e-3)


@pytest.mark.slow
def test_tune_family_checks_its_trials(monkeypatch):
    """examples/drivers/gemm_i8_tune.py: a trial of a split-K variant passes its checks (the
    emulated work-groups' tiles and the reduced whole grid against NumPy); the same trial with B
    launched unshuffled (the kernel then reads the wrong bytes of K) is a mismatch."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(gemm_i8.__file__).parent / "drivers"))
    import gemm_i8_tune as tune
    from gcnforge.perfmodel import profiles
    from gcnforge.runtime.devices import get_device
    from gcnforge.runtime.tune_types import run_trial

    monkeypatch.delenv("GEMM_I8_TRACES", raising=False)
    fam = tune.I8Gemm([(64, 128, 1, 4)], [1], [2])
    v = next(iter(fam.variants()))
    shape = (70, 256, 640)
    assert fam.supports(v, shape) and not fam.supports(v, (70, 256, 600))
    kern = rt.load(fam.build(v)).kernel(v.kernel)

    def trial():
        ins = fam.make_inputs(shape, np.random.default_rng(0))
        return run_trial(fam, kern, v, shape, ins, fam.reference(shape, ins), get_device("emulator", fam.target),
                         False, 1, timing=profiles.get("mi308x"))

    t = trial()
    assert t.status == "ok" and t.seconds > 0, t.message
    monkeypatch.setattr(tune, "_reduced", {})
    monkeypatch.setattr(gemm_i8, "preshuffle", lambda b: np.ascontiguousarray(b))
    bad = trial()
    assert bad.status == "mismatch" and bad.max_error > 0, bad.message

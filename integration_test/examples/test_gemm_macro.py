"""The macro-tile GEMM (examples/gemm_macro.py: AGPR accumulators, swizzled LDS, a two-tile
pipelined loop, M, N and K kernel arguments) on the emulator (and HIP) against NumPy, at small
and ragged shapes: M and N not multiples of the tile (buffer range checking zero-fills the loads
and drops the stores), K not a multiple of the tile (the masked front of the K window), an odd
number of K tiles, K below one tile, K = 0, split-K over a run-time K, f16 and bf16 inputs, f32
and bf16 outputs; one binary per tile variant serves every shape of a test. Tolerances as in test_gemm_lds: the f16/bf16 products are exact in f32,
only the accumulation order differs (K * eps32 * max|a| max|b|); bf16 output adds one
rounding (2^-8 relative)."""

import numpy as np
import pytest
from conftest import compiled
from test_gemm_lds import bf16_bits, bf16_value

import gemm_macro

EPS = float(np.finfo(np.float32).eps)

CASES = [  # m, n, k, dtype, out, tm, tn, wm, wn
    (100, 200, 96, "bf16", "f32", 256, 256, 2, 2),
    (300, 130, 160, "bf16", "bf16", 256, 128, 2, 2),
    (130, 64, 128, "f16", "f32", 64, 64, 2, 2),
    (64, 96, 32, "f16", "bf16", 128, 128, 2, 2),
    (300, 330, 96, "bf16", "f32", 256, 160, 4, 1),  # a B tile of 2.5 staging passes
    (100, 200, 8, "bf16", "f32", 256, 256, 2, 2),  # K = one 16-byte chunk
    (70, 50, 24, "bf16", "bf16", 64, 64, 2, 2),  # K below one tile
    (130, 70, 200, "f16", "f32", 64, 64, 2, 2),  # K tail: 6 tiles + 8 (the first partial)
    (64, 64, 1000, "bf16", "f32", 64, 64, 2, 2),  # 31 tiles + 8: a padded front tile
    (40, 300, 72, "bf16", "f32", 256, 160, 4, 1),
]


def _build(dtype, out, tm, tn, wm, wn, splitk=1, depth=1, anyk=False):
    return compiled(("macro", dtype, out, tm, tn, wm, wn, splitk, depth, anyk),
                    lambda: gemm_macro.build(dtype, out, tm, tn, wm, wn, splitk, depth, anyk=anyk), schedule=True)


def _inputs(m, n, k, dtype, seed):
    rng = np.random.default_rng(seed)
    a32, b32 = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((n, k)).astype(np.float32)
    if dtype == "f16":
        a, bt = a32.astype(np.float16), b32.astype(np.float16)
        return a, bt, a.astype(np.float64), bt.astype(np.float64)
    a, bt = bf16_bits(a32), bf16_bits(b32)
    return a, bt, bf16_value(a).astype(np.float64), bf16_value(bt).astype(np.float64)


@pytest.mark.parametrize("m,n,k,dtype,out,tm,tn,wm,wn", CASES)
def test_gemm_macro(m, n, k, dtype, out, tm, tn, wm, wn, device):
    c = _build(dtype, out, tm, tn, wm, wn)
    name = gemm_macro.kernel_name(dtype, out, tm, tn, wm, wn)
    assert c.asm.count("v_mfma") < 2 * 4 * (tm // 64) * (tn // 64) * 4 + 64  # a real loop, not unrolled
    a, bt, a64, b64 = _inputs(m, n, k, dtype, m + n + k)
    res = np.full((m, n), np.nan, np.float32) if out == "f32" else np.full((m, n), 0xFFFF, np.uint16)
    gemm_macro.launch(c.load(device)[name], a, bt, res, tm=tm, tn=tn, wm=wm, wn=wn)
    ref = a64 @ b64.T
    tol = k * EPS * np.abs(a64).max() * np.abs(b64).max()
    got = res.astype(np.float64) if out == "f32" else bf16_value(res).astype(np.float64)
    if out == "bf16":
        tol = tol + 2.0 ** -8 * np.abs(ref)
    assert np.all(np.abs(got - ref) <= tol)


def test_gemm_macro_uses_agprs_and_swizzled_reads():
    c = _build("bf16", "f32", 256, 256, 2, 2)
    regs = c.regs[gemm_macro.kernel_name("bf16", "f32", 256, 256)]
    assert regs["a"] == 256  # 16 32x32 accumulators per wave
    assert "ds_read_b128" in c.asm and "buffer_load_dwordx4" in c.asm


def test_gemm_macro_lds_reads_conflict_free():
    """The swizzle's promise, checked with the bank rule the timing mode uses (8 lanes per
    128-bit pass, 32 banks of 4 bytes): the operand reads and staging writes of one wave
    take the minimum 8 passes (64 lanes x 16 bytes / 128 bytes per pass)."""
    from gcnforge.emulator.timing_mode import lds_passes

    lane = np.arange(64)
    r32, h = lane % 32, lane // 32
    for kp in range(2):
        chunk = (2 * kp + h) ^ ((r32 >> 1) & 3)
        assert lds_passes(r32 * gemm_macro.TK + 16 * chunk, 16) == 8
    r, ch = lane // 4, lane % 4
    assert lds_passes(r * gemm_macro.TK + 16 * (ch ^ ((r >> 1) & 3)), 16) == 8
    # without the swizzle the reads are 4-way conflicted
    assert lds_passes(r32 * gemm_macro.TK + 16 * h, 16) == 32


def test_gemm_macro_sanitizer_clean():
    """Also at a K tail: the front chunks' offsets past the buffers are range-checked, not faults."""
    c = _build("bf16", "f32", 256, 256, 2, 2)
    for m, n, k in ((256, 256, 128), (200, 256, 104)):
        a, bt, a64, b64 = _inputs(m, n, k, "bf16", 5)
        res = np.zeros((m, n), np.float32)
        gemm_macro.launch(c.load("emulator")[gemm_macro.kernel_name("bf16", "f32", 256, 256)], a, bt, res,
                          sanitize=True)
        assert np.allclose(res, a64 @ b64.T, atol=1e-3)


SPLITK = [  # m, n, k, splitk, depth
    (100, 70, 192, 3, 1), (64, 256, 512, 4, 4), (130, 96, 96, 1, 2),
    (100, 70, 1000, 3, 1),  # 16 tiles (the first partial) over 3: 5, 5, 6
    (70, 64, 40, 3, 1),  # fewer tiles (2) than work-groups: one adds zeros
    (64, 130, 5128, 20, 4),  # 161 tiles over 20, four per trip: padded fronts
    (33, 64, 8, 4, 4),
    (70, 64, 1000, 2, 2),  # s = 2: the multiply-high by 2^31
]


@pytest.mark.parametrize("m,n,k,splitk,depth", SPLITK)
def test_gemm_macro_splitk(m, n, k, splitk, depth, device):
    """Split-K: work-group z adds its K tiles [z T / s, (z + 1) T / s) into the zeroed C with
    f32 atomics (the slices add in an unknown order: the same f32 bound); loads ``depth``
    tiles ahead; K at run time, so the ranges are uneven and a work-group may have none."""
    c = _build("bf16", "f32", 64, 64, 2, 2, splitk, depth)
    a, bt, a64, b64 = _inputs(m, n, k, "bf16", k)
    res = np.zeros((m, n), np.float32)
    gemm_macro.launch(c.load(device)[gemm_macro.kernel_name("bf16", "f32", 64, 64, 2, 2, splitk, depth)], a, bt,
                      res, tm=64, tn=64, splitk=splitk)
    tol = k * EPS * np.abs(a64).max() * np.abs(b64).max()
    assert np.all(np.abs(res - a64 @ b64.T) <= tol)


def test_gemm_macro_k_zero_and_one_binary_for_every_k():
    """K = 0 adds nothing (C = 0, zero loop trips); the same binary then runs K = 8, 32 (one
    tile), 40 and 264 (tails) against NumPy."""
    c = _build("bf16", "f32", 64, 64, 2, 2)
    kern = c.load("emulator")[gemm_macro.kernel_name("bf16", "f32", 64, 64)]
    res = np.full((70, 65), np.nan, np.float32)
    gemm_macro.launch(kern, np.zeros((70, 0), np.uint16), np.zeros((65, 0), np.uint16), res, tm=64, tn=64)
    assert np.all(res == 0)
    for k in (8, 32, 40, 264):
        a, bt, a64, b64 = _inputs(70, 65, k, "bf16", k)
        res = np.full((70, 65), np.nan, np.float32)
        gemm_macro.launch(kern, a, bt, res, tm=64, tn=64)
        assert np.all(np.abs(res - a64 @ b64.T) <= k * EPS * np.abs(a64).max() * np.abs(b64).max()), k


@pytest.mark.parametrize("k,esize,msg", [(1, 2, "K = 1 is not a multiple of 8"), (12, 2, "multiple of 8"),
                                         (8, 1, "K = 8 is not a multiple of 16")])
def test_gemm_macro_refuses_k_not_whole_chunks(k, esize, msg):
    """The one precondition on K (16-byte chunks) is refused before anything launches."""
    launched = []
    el = np.uint8 if esize == 1 else np.uint16
    with pytest.raises(ValueError, match=msg):
        gemm_macro.launch(lambda *a, **kw: launched.append(a), np.ones((4, k), el), np.ones((4, k), el),
                          np.zeros((4, 4), np.float32))
    assert not launched


@pytest.mark.parametrize("table", ["gemm_macro_skinny.csv", "gemm_macro_4096.csv", "gemm_macro_1280.csv"])
def test_tuned_tables_dispatch(table):
    """The committed tuned tables load in the runtime's registry, every row is an exact tuned
    hit for its own shape, and its kernel symbol is the one gemm_macro builds for the row's
    parameters (a table that drifted from the kernel's naming would load nothing)."""
    from pathlib import Path

    from gcnforge.runtime.registry import Registry

    path = Path(gemm_macro.__file__).parent / "configs" / table
    reg = Registry.from_csv(path)
    rows = [e for e in reg.entries if e.tuned]
    assert rows
    for e in rows:
        wm, wn = (int(x) for x in e.extra["waves"].split("x"))
        assert e.kernel == gemm_macro.kernel_name(e.dtype, "f32", e.tile_m, e.tile_n, wm, wn, e.splitk,
                                                  int(e.extra["depth"]))
        ch = Registry(reg.entries, cu_count=e.cu_num).select("gfx942", e.dtype, *e.shape)  # aiter keys rows by CUs
        assert ch.entry.kernel == e.kernel and ch.how != "heuristic"


@pytest.mark.parametrize("m,n,k,out,tm,tn", [(100, 200, 192, "bf16", 256, 256), (130, 64, 128, "f32", 64, 64),
                                            (70, 100, 208, "bf16", 64, 64), (64, 64, 16, "f32", 64, 64)])
def test_gemm_macro_fp8_scaled(m, n, k, out, tm, tn, device):
    """fp8 (e4m3 fnuz) with per-token and per-channel f32 scales. Products of 4-bit
    significands are exact in f32; the two scale multiplications add two f32 roundings; bf16
    output one rounding to 8 bits (2^-8 relative)."""
    from test_gemm_lds import fp8_e4m3fnuz_value

    c = compiled(("macro_fp8", out, tm, tn), lambda: gemm_macro.build("fp8", out, tm, tn), schedule=True)
    rng = np.random.default_rng(k + m)
    a = rng.integers(0, 256, (m, k), dtype=np.uint8)
    bt = rng.integers(0, 256, (n, k), dtype=np.uint8)
    a[a == 0x80], bt[bt == 0x80] = 0, 0  # 0x80 is NaN in fnuz
    sa = rng.uniform(0.5, 2, m).astype(np.float32)
    sb = rng.uniform(0.5, 2, n).astype(np.float32)
    res = np.zeros((m, n), np.float32 if out == "f32" else np.uint16)
    gemm_macro.launch(c.load(device)[gemm_macro.kernel_name("fp8", out, tm, tn)], a, bt, res, (sa, sb), tm=tm, tn=tn)
    a64, b64 = fp8_e4m3fnuz_value(a), fp8_e4m3fnuz_value(bt)
    ref = (a64 @ b64.T) * sa[:, None].astype(np.float64) * sb[None, :].astype(np.float64)
    got = res.astype(np.float64) if out == "f32" else bf16_value(res).astype(np.float64)
    tol = (k * EPS * np.abs(a64).max() * np.abs(b64).max() * 4 + 3 * EPS * np.abs(ref)
           + (2.0 ** -8 * np.abs(ref) if out == "bf16" else 0))
    assert np.all(np.abs(got - ref) <= tol)


def test_gemm_macro_output_index_past_2_24():
    """C's element index row N + col passes 2^24 once M N does (8192^2 did, and the 24-bit multiply
    of the byte offset wrote those rows elsewhere). M = 2^24 / 64 + 128 rows of N = 64: the timing
    mode runs the first and the last work-groups; the last one's tile is checked against NumPy."""
    m, n, k = (1 << 24) // 64 + 128, 64, 64
    c = _build("bf16", "f32", 64, 64, 2, 2)
    rng = np.random.default_rng(24)
    a, bt = bf16_bits(rng.standard_normal((m, k))), bf16_bits(rng.standard_normal((n, k)))
    res = np.full((m, n), np.nan, np.float32)
    r = gemm_macro.launch(c.load("emulator")[gemm_macro.kernel_name("bf16", "f32", 64, 64)], a, bt, res, tm=64, tn=64,
                          timing="mi300x")
    last = gemm_macro.grid(m, n, 64, 64)[1] - 1
    assert last in r.timing.sampled_ids
    rows = slice(64 * last, m)
    ref = bf16_value(a[rows]).astype(np.float64) @ bf16_value(bt).astype(np.float64).T
    assert np.all(np.abs(res[rows] - ref) <= k * EPS * 16 * np.abs(ref).max())


ANYK = [  # m, n, k, splitk, depth
    (70, 50, 1, 1, 1), (64, 64, 3, 1, 1), (100, 70, 131, 1, 1), (64, 64, 41, 1, 2), (65, 63, 203, 1, 1),
    (70, 64, 1001, 4, 4),  # split-K over 32 tiles, the first of 9 elements
    (33, 64, 7, 3, 1),  # one partial tile over three work-groups
]


@pytest.mark.parametrize("m,n,k,splitk,depth", ANYK)
def test_gemm_macro_anyk(m, n, k, splitk, depth):
    """The anyk variant takes any K: K = 1, odd K (rows 2 bytes off a dword: the dwordx4 starts
    2 bytes early, the tail ushort, v_alignbyte_b32), split-K over a run-time K, M and N odd,
    under the sanitizer (every load naturally aligned and inside its buffer, the front elements
    out of range rather than wrapped)."""
    c = _build("bf16", "f32", 64, 64, 2, 2, splitk, depth, anyk=True)
    a, bt, a64, b64 = _inputs(m, n, k, "bf16", k)
    res = np.zeros((m, n), np.float32)
    gemm_macro.launch(c.load("emulator")[gemm_macro.kernel_name("bf16", "f32", 64, 64, 2, 2, splitk, depth, True)],
                      a, bt, res, tm=64, tn=64, splitk=splitk, anyk=True, sanitize=True)
    tol = k * EPS * np.abs(a64).max() * np.abs(b64).max()
    assert np.all(np.abs(res - a64 @ b64.T) <= tol)


@pytest.mark.parametrize("m,n,k", [(70, 40, 1), (64, 64, 77), (130, 64, 200), (33, 65, 1003)])
def test_gemm_macro_anyk_fp8(m, n, k):
    """fp8 with any K (r = 0..3 bytes before the chunk, three tail bytes). Not sanitized: the
    sanitizer reports the epilogue's scale load overwriting a VGPR that the loop's last
    look-ahead load (never read) still writes, where the wait pass emits no wait between two
    buffer loads; the values are checked against NumPy."""
    from test_gemm_lds import fp8_e4m3fnuz_value

    c = compiled(("macro_fp8_anyk", 64, 64), lambda: gemm_macro.build("fp8", "bf16", 64, 64, anyk=True), schedule=True)
    rng = np.random.default_rng(k + m)
    a, bt = rng.integers(0, 256, (m, k), dtype=np.uint8), rng.integers(0, 256, (n, k), dtype=np.uint8)
    a[a == 0x80], bt[bt == 0x80] = 0x08, 0x08  # 0x80 is NaN in fnuz
    sa, sb = rng.uniform(0.5, 2, m).astype(np.float32), rng.uniform(0.5, 2, n).astype(np.float32)
    res = np.full((m, n), 0xFFFF, np.uint16)
    gemm_macro.launch(c.load("emulator")[gemm_macro.kernel_name("fp8", "bf16", 64, 64, anyk=True)], a, bt, res,
                      (sa, sb), tm=64, tn=64, anyk=True)
    a64, b64 = fp8_e4m3fnuz_value(a), fp8_e4m3fnuz_value(bt)
    ref = (a64 @ b64.T) * sa[:, None].astype(np.float64) * sb[None, :].astype(np.float64)
    tol = k * EPS * np.abs(a64).max() * np.abs(b64).max() * 4 + 3 * EPS * np.abs(ref) + 2.0 ** -8 * np.abs(ref)
    assert np.all(np.abs(bf16_value(res).astype(np.float64) - ref) <= tol)

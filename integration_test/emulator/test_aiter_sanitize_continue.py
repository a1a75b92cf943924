"""The sanitizer's continue mode on AMD's production kernels (issue 26): seven of aiter's
GEMM code objects (the four gfx942 bf16 tiles, both int8 per-token tiles, and gfx950's 32x64
bf16 tile) run sanitized to the end, every site (kind, pc) listed once with its count, none
stopping the run; a suppression file naming those sites silences all of them in the default
stop-at-first mode, and the outputs still match NumPy."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.emulator.suppressions import Suppressions
from gcnforge.runtime.kernargs import ArgLayout
from gcnforge.testing import require_aiter_wheel

BF16_SLOTS = (["D:f32*", "C:f32*", "A:u16*", "B:u16*", "alpha:f32", "beta:f32"]
              + [f"{s}:u32" for s in ("stride_D0", "stride_D1", "stride_C0", "stride_C1", "stride_A0", "stride_A1",
                                      "stride_B0", "stride_B1")] + ["M:u32", "N:u32", "K:u32", "splitk:u32"])
I8_SLOTS = ["C:u16*", "A:i8*", "B:i8*", "sa:f32*", "sb:f32*", "bias:f32*",
            "m:u32", "n:u32", "k:u32", "lda:u32", "ldb:u32", "ldc:u32", "ks:u32"]
KERNELS = [("gfx942", "bf16", 32), ("gfx942", "bf16", 48), ("gfx942", "bf16", 64), ("gfx942", "bf16", 96),
           ("gfx942", "i8", 128), ("gfx942", "i8", 192), ("gfx950", "bf16", 32)]


def _bf16(x):
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _f32(v):
    return (v.astype(np.uint32) << 16).view(np.float32)


def _preshuffle(b, n_block=32, k_block=16):
    n, k = b.shape
    kb = 2 * k_block
    return b.reshape(n // n_block, n_block, k // kb, kb // 16, 16).transpose(0, 2, 3, 1, 4).reshape(n, k)


def _launch(z, target, kind, tile, **kw):
    """Launch one kernel at a small shape; returns (result, output, NumPy reference)."""
    rng = np.random.default_rng(tile)
    if kind == "bf16":
        m, n, k = tile, 64, 128
        stem = f"bf16gemm_outf32_tn_{tile}x64_pf3"
        kern = rt.load(z.read(f"aiter_meta/hsa/{target}/bf16gemm/{stem}.co")).kernel(
            f"_ZN5aiter{len(stem)}{stem}E", layout=ArgLayout.slots16(BF16_SLOTS))
        a, b = _bf16(rng.standard_normal((m, k))), _bf16(rng.standard_normal((n, k)))
        c = np.zeros((m, n), np.float32)
        r = kern(c, np.zeros(m * n, np.float32), a, b, 1.0, 0.0, n * 4, n * 4, n * 4, n * 4, k * 2, k * 2, k * 2,
                 k * 2, m, n, k, 1, grid=(n // 64, 1, 1), block=(256,), device="emulator", **kw)
        return r, c, _f32(a) @ _f32(b).T, 1e-3
    m, n, k = tile, 128, 512  # the int8 kernel streams K in steps that need K >= 512 (aiter tunes K >= 1024)
    co = z.read(f"aiter_meta/hsa/gfx942/i8gemm/I8gemm_bf16_perTokenI8_BpreShuffle_{tile}x128.co")
    lib = rt.load(co)
    kern = lib.kernel(next(iter(lib.kernels)), layout=ArgLayout.slots16(I8_SLOTS))
    a, b = rng.integers(-20, 20, (m, k)).astype(np.int8), rng.integers(-20, 20, (n, k)).astype(np.int8)
    sa, sb = rng.uniform(0.5, 1.5, (m, 1)).astype(np.float32), rng.uniform(0.5, 1.5, (1, n)).astype(np.float32)
    bias = rng.uniform(-1, 1, (1, n)).astype(np.float32)
    out = np.zeros((m, n), np.uint16)
    r = kern(out, a, _preshuffle(b), sa, sb, bias, m, n, k, k, k, 2 * n, 1, grid=(1, 1, 1), block=(256,),
             device="emulator", **kw)
    ref = (a.astype(np.int64) @ b.astype(np.int64).T) * sa.astype(np.float64) * sb + bias
    return r, _f32(out), ref, 2**-7


@pytest.mark.slow  # seven sanitized production GEMMs, twice each (CI's full pass; --run-slow)
@pytest.mark.parametrize("target,kind,tile", KERNELS, ids=[f"{t}-{k}-{n}" for t, k, n in KERNELS])
def test_continue_mode_and_suppressions_on_aiter(target, kind, tile, tmp_path):
    z = zipfile.ZipFile(require_aiter_wheel())
    r, got, ref, tol = _launch(z, target, kind, tile, sanitize=True, sanitize_mode="continue")
    np.testing.assert_allclose(got, ref, rtol=tol, atol=0.05)  # ran to the end, right answer
    sites = [(rep.loc.pc, rep.kind) for rep in r.stats.reports]
    assert len(sites) == len(set(sites))  # every site once ...
    assert set(r.stats.report_counts) == set(sites) and all(n >= 1 for n in r.stats.report_counts.values())
    # ... and a suppression file naming them silences every one, in the stop-at-first mode
    f = tmp_path / "aiter.supp"
    f.write_text("".join(f"kind={kd} pc={pc:#x}\n" for pc, kd in sites))
    r2, got2, _, _ = _launch(z, target, kind, tile, sanitize=True, sanitize_suppress=Suppressions.load(str(f)))
    assert r2.stats.reports == [] and sum(r2.stats.suppressed.values()) == sum(r.stats.report_counts.values())
    np.testing.assert_allclose(got2, ref, rtol=tol, atol=0.05)

"""The kernel library's fast kernels, predicted by the timing model, against references run in
the same process.

1. Large GEMMs (examples/gemm_macro.py) on the MI300X profile: bf16 -> f32 at 4096^3, 8192^3,
   8192 x 1280 x 8192; fp8 with per-token / per-channel scales -> bf16 at 8192^3. Reference:
   the MFMA peak of the instruction (``DeviceProfile.mfma_peak_flops``) and, at 4096^3, the
   library's previous best GEMM (examples/gemm_lds.py, 64 x 64 tile) predicted in the same run.
2. aiter's skinny bf16 rows (``bf16_tuned_gemm.csv``, cu_num 80: M 64..384, N 256, K 5120,
   f32 out) on the MI308X profile. References: aiter's measured time from the table and the
   model's prediction for aiter's own kernel on the same shape (both from
   ``bench_timing_model.aiter_rows``, imported, not copied). Split-K variants add the same
   fill kernel aiter's launcher runs (``out.zero_()``). Ours: the best of the skinny tuning
   family (examples/drivers/gemm_tune.py) per row.
3. MoE top-k softmax (examples/topk_softmax.py), tokens x 128/256 experts, k 4..8, f32 logits, on
   MI300X. Reference: AMD's production code objects for the same job, aiter's
   ``hsa/gfx942/topksoftmax/topksoftmax_{subm}x{E}x{k}.co`` (ROCm/aiter repository, MIT; not in
   the amd-aiter wheels on PyPI up to 0.1.7.post2.dev18), launched as aiter's
   ``csrc/py_itfs_cu/asm_topksoftmax.cu`` does: 16-byte kernarg slots (indices, weights, logits,
   tokens, experts, k, renormalize, output row stride in bytes), ceil(T / subm) work-groups of
   256, subm 4 below 10,000 tokens, else 12 where that object exists. Both are first run whole on
   a few tokens against NumPy, then predicted on the same shapes in the same run. The objects are
   read from ``CACHE/topksoftmax``; ``--aiter-repo DIR`` (a clone of ROCm/aiter) fills it.
4. RMSNorm / LayerNorm bf16 (examples/norms.py ``build_bf16``), 8192 rows of 4096 and 8192, on
   MI300X. Reference: the bytes moved (x read once, y written once) at the profile's achievable
   (measured) HBM bandwidth, plus the launch overhead.
5. gfx950 (``--only gfx950``): examples/gemm_mfma_f16.py built for gfx950 (f16, bf16) and
   examples/gemm_mxfp.py (MXFP4) at 2048^3 (``--quick``: 1024^3, f16 only) on the MI355X profile.
   References: the MFMA peak of each instruction on MI355X and the gfx942 build of the f16
   example on MI300X, predicted in the same run.

For each kernel: registers (VGPR / AGPR / SGPR), LDS, occupancy and the model's limiter.
The same kernels and shapes as registry tables (aiter's column spelling, ``us`` = these predictions):
``python examples/drivers/kernel_tables.py -o examples/configs`` (plus the ``gcnforge tune`` tables gemm_macro_*.csv).

    python benchmarks/bench_kernels.py [--cache DIR] [--aiter-repo DIR] [--skip-aiter] [--quick] [--only PART]

``--quick``: 4096^3 (bf16 and fp8), two aiter rows, two top-k shapes and one norm size only; ``--only``
runs one part (gemm, skinny, topk, norms, gfx950). Figures are predictions of the model in
``gcnforge.perfmodel`` on the named profile, not measurements: each includes the profile's launch
overhead and runs at the profile's sustained clock (boost 2.1 GHz MI300X / 2.4 GHz MI355X, lower when
the matrix cores are busy: capped so no kernel exceeds AMD's published MAF; the report's mean clock
is printed), with measured HBM bandwidth. A prediction above the device's MAF would be printed with
the report's note.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "examples" / "drivers"))  # gemm_tune
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_timing_model as btm  # noqa: E402

LARGE = [  # dtype, out, m, n, k, tm, tn, wm, wn
    ("bf16", "f32", 4096, 4096, 4096, 256, 256, 2, 2),
    ("bf16", "f32", 8192, 8192, 8192, 256, 256, 2, 2),
    ("bf16", "f32", 8192, 1280, 8192, 256, 160, 4, 1),
    ("fp8", "bf16", 8192, 8192, 8192, 256, 256, 2, 2),  # per-token and per-channel scales
]
QUICK = [LARGE[0], ("fp8", "bf16", 4096, 4096, 4096, 256, 256, 2, 2)]
ROWS = []  # (kernel, shape, predicted us, rate, % of peak, reference, ratio, limiter, resources)


def _resources(c, name: str, rep) -> str:
    r = c.regs.get(name, {})
    o = rep.occupancy
    return (f"v{r.get('v', '?')} a{r.get('a', '?')} s{r.get('s', '?')}, LDS "
            f"{_lds(c.asm, name)} B, {o.waves_per_simd} waves/SIMD, {o.wgs_per_cu} WG/CU ({o.limiter})")


def _lds(asm: str, name: str) -> int:
    import re

    m = re.search(r"\.amdhsa_group_segment_fixed_size\s+(\d+)", asm)
    return int(m.group(1)) if m else 0


def large_gemms(quick: bool) -> None:
    import gemm_lds
    import gemm_macro
    from gcnforge.perfmodel import profiles
    from lib.compile import compile_module

    prof = profiles.get("mi300x")
    print(f"\nlarge GEMMs on MI300X; dense MFMA peak: bf16 "
          f"{prof.mfma_peak_flops(gemm_macro.MFMA['bf16']) / 1e12:.0f}, fp8 "
          f"{prof.mfma_peak_flops(gemm_macro.MFMA['fp8']) / 1e12:.0f} TFLOP/s")
    for dtype, o, m, n, k, tm, tn, wm, wn in QUICK if quick else LARGE:
        c = compile_module(gemm_macro.build(k, n, dtype, o, tm, tn, wm, wn), schedule=True)
        name = gemm_macro.kernel_name(dtype, o, tm, tn, wm, wn)
        kern = c.load("emulator")[name]
        el = np.uint8 if dtype == "fp8" else np.uint16
        a, bt = np.zeros((m, k), el), np.zeros((n, k), el)
        out = np.zeros((m, n), np.float32 if o == "f32" else np.uint16)
        scales = (np.ones(m, np.float32), np.ones(n, np.float32)) if dtype == "fp8" else ()
        t0 = time.perf_counter()
        rep = kern(a, bt, out, np.uint32(m), *scales, grid=gemm_macro.grid(m, n, tm, tn), block=(64 * wm * wn,),
                   timing=prof, flops=2.0 * m * n * k).timing
        wall = time.perf_counter() - t0
        ROWS.append((name, f"{m}x{n}x{k}", rep.us, f"{rep.tflops:.0f} TFLOP/s", rep.pct_mfma_peak, "MFMA peak",
                     rep.pct_mfma_peak / 100, rep.limiter, _resources(c, name, rep)))
        maf = prof.maf(rep.dtype) if rep.dtype else None
        print(f"  {m}x{n}x{k} {name}: {rep.us:.1f} us, {rep.tflops:.0f} TFLOP/s, {rep.pct_mfma_peak:.1f}% of peak "
              f"({rep.limiter}; kernel at {rep.clock_eff_hz / 1e6:.0f} MHz mean clock"
              f"{f', MAF {maf / 1e12:.0f} TFLOP/s' if maf else ''}; {wall:.0f} s to predict)")
        for note in rep.notes:
            if "MAF" in note:
                print(f"    note: {note}")
        if (dtype, m, n, k) == ("bf16", 4096, 4096, 4096):
            # the previous best GEMM of the library, same shape, same model
            c0 = compile_module(gemm_lds.build(k, n, "bf16", "f32", 2, 2))
            k0 = c0.load("emulator")[gemm_lds.kernel_name("bf16", "f32", 2, 2, 64)]
            r0 = k0(a, bt, out, grid=(n // 64, m // 64, 1), block=(256,), timing=prof, flops=2.0 * m * n * k).timing
            ROWS.append(("gemm_lds (previous best)", f"{m}x{n}x{k}", r0.us, f"{r0.tflops:.0f} TFLOP/s",
                         r0.pct_mfma_peak, "MFMA peak", r0.pct_mfma_peak / 100, r0.limiter, ""))
            print(f"    reference in this run: gemm_lds 64x64 {r0.us:.1f} us ({r0.pct_mfma_peak:.1f}% of peak): "
                  f"gemm_macro is {r0.us / rep.us:.2f}x faster")


def skinny(cache: Path, quick: bool) -> None:
    import gemm_tune
    import gcnforge.runtime as rt
    from gcnforge.binary import assemble
    from gcnforge.perfmodel import profiles
    from gcnforge.runtime.kernargs import ArgLayout
    from lib.compile import compile_module

    whl = btm.fetch_wheel(cache)
    if isinstance(whl, str):
        if os.environ.get("CI") == "true":
            raise SystemExit(f"error: {whl}")
        print(f"\nskipping aiter's skinny rows: {whl}")
        return
    prof = profiles.get("mi308x")
    ref = btm.aiter_rows(whl, 2 if quick else None)
    fam = gemm_tune.skinny
    built = {}
    for v in fam.variants():
        p = v.params
        wm, wn = (int(x) for x in p["waves"].split("x"))
        c = compile_module(gemm_tune.gemm_macro.build(fam.k, fam.n, "bf16", "f32", p["tile_m"], p["tile_n"], wm, wn,
                                                      p["splitk"], p["depth"]), schedule=True)
        built[v.name] = (v, c, c.load("emulator")[v.kernel])
    fill = rt.load(assemble(btm.micro("fill"))).kernel("fill", layout=ArgLayout.slots16(["out:u32*"]))
    print("\naiter's skinny bf16 rows (f32 out) on MI308X (80 CUs): ours = best gemm_macro variant per row")
    print(f"{'M':>4} {'N':>4} {'K':>5} {'ours us':>8} {'variant':>40} {'aiter meas':>10} {'aiter model':>11} "
          f"{'/meas':>6} {'/model':>7}  limiter")
    for x in ref:
        m, n, k = x["m"], x["n"], x["k"]
        best = None
        for name, (v, c, kern) in built.items():
            p = v.params
            a, bt, out = np.zeros((m, k), np.uint16), np.zeros((n, k), np.uint16), np.zeros((m, n), np.float32)
            rep = kern(a, bt, out, np.uint32(m), grid=gemm_tune.gemm_macro.grid(m, n, p["tile_m"], p["tile_n"],
                                                                                p["splitk"]),
                       block=(p["block"],), timing=prof, flops=2.0 * m * n * k).timing
            t_fill = 0.0
            if p["splitk"] > 1:
                t_fill = fill(np.zeros(m * n, np.uint32), grid=(m * n * 4 // 1024,), block=(64,), device="emulator",
                              timing=prof).timing.us
            tot = rep.us + t_fill
            if best is None or tot < best[0]:
                best = (tot, name, rep, c)
        tot, name, rep, c = best
        aiter_model = x["gemm"] + x["fill"]
        ROWS.append((name, f"{m}x{n}x{k} (MI308X)", tot, f"{2 * m * n * k / tot / 1e6:.0f} TFLOP/s",
                     100 * 2 * m * n * k / (tot * 1e-6) / prof.mfma_peak_flops("v_mfma_f32_32x32x8_bf16"),
                     f"aiter {x['measured']:.2f} meas / {aiter_model:.2f} model", tot / x["measured"], rep.limiter,
                     _resources(c, name, rep)))
        print(f"{m:>4} {n:>4} {k:>5} {tot:8.2f} {name:>40} {x['measured']:10.2f} {aiter_model:11.2f} "
              f"{tot / x['measured']:6.2f} {tot / aiter_model:7.2f}  {rep.limiter}")

TOPK = ([(t, e, k, False) for t in (4096, 32768) for e, k in ((128, 4), (128, 6), (128, 8), (256, 6), (256, 8))]
        + [(t, 256, 8, True) for t in (4096, 32768)])  # tokens, experts, k, renormalize
TOPK_QUICK = [(4096, 128, 8, False), (32768, 256, 8, True)]
AITER_TOPK = "hsa/gfx942/topksoftmax"  # in the ROCm/aiter repository


def topk_objects(cache: Path, repo: str | None) -> Path | str:
    """The directory of aiter's top-k softmax code objects (copied from ``repo`` when given),
    or why there is none."""
    import shutil
    import subprocess

    d = cache / "topksoftmax"
    if repo:
        d.mkdir(parents=True, exist_ok=True)
        src = Path(repo) / AITER_TOPK
        if src.is_dir():  # a work tree
            for f in src.iterdir():
                shutil.copy(f, d / f.name)
        else:  # a bare clone
            names = subprocess.run(["git", "-C", repo, "ls-tree", "--name-only", "HEAD", AITER_TOPK + "/"],
                                   capture_output=True, text=True, check=True).stdout.split()
            for n in names:
                (d / Path(n).name).write_bytes(subprocess.run(["git", "-C", repo, "show", f"HEAD:{n}"],
                                                              capture_output=True, check=True).stdout)
    if not (d / "topksoftmax.csv").is_file():
        return (f"no {d}/topksoftmax.csv: pass --aiter-repo DIR (a clone of ROCm/aiter; its {AITER_TOPK}/ "
                f"holds them, the amd-aiter wheels do not)")
    return d


def topk(cache: Path, repo: str | None, quick: bool) -> None:
    import csv

    import topk_softmax
    import gcnforge.runtime as rt
    from gcnforge.perfmodel import profiles
    from gcnforge.runtime.kernargs import ArgLayout
    from lib.compile import compile_module

    d = topk_objects(cache, repo)
    if isinstance(d, str):
        print(f"\nskipping top-k softmax: {d}")
        return
    prof = profiles.get("mi300x")
    table = [r for r in csv.DictReader(open(d / "topksoftmax.csv")) if r["dtype"] == "fp32"]
    layout = ArgLayout.slots16(["T:i32*", "W:f32*", "A:const f32*", "batch:u32", "expert:u32", "topk:u32",
                                "renormalize:u32", "out_stride:u32"])

    def aiter(e, k, renorm, tokens):
        subm = max(int(r["subm"]) for r in table if (int(r["num_experts"]), int(r["topk"])) == (e, k)
                   and int(r["subm"]) <= (4 if tokens < 10000 else 12))  # the launcher's choice
        r = next(r for r in table if (int(r["subm"]), int(r["num_experts"]), int(r["topk"])) == (subm, e, k))
        kern = rt.load((d / r["co_name"]).read_bytes()).kernel(r["knl_name"], layout=layout)
        return subm, r["co_name"], lambda x, w, i, **kw: kern(i, w, x, x.shape[0], e, k, int(renorm), 4 * k,
                                                              grid=(-(-x.shape[0] // subm),), block=(256,),
                                                              device="emulator", **kw)

    def ours(e, k, renorm):
        name = f"topk_softmax_e{e}_k{k}" + ("_renorm" if renorm else "")
        c = compile_module(topk_softmax.build(e, k, renorm))
        kern = c.load("emulator")[name]
        return name, c, lambda x, w, i, **kw: kern(x, w, i, grid=(x.shape[0],), block=(64,), **kw)

    def checked(run, e, k, renorm, tokens) -> bool:
        x = np.random.default_rng(e + k).standard_normal((tokens, e)).astype(np.float32)
        w, i = np.zeros((tokens, k), np.float32), np.zeros((tokens, k), np.int32)
        run(x, w, i)
        order = np.argsort(-x, axis=1, kind="stable")[:, :k]
        p = np.exp(x - x.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        p = np.take_along_axis(p, order, 1)
        if renorm:
            p /= p.sum(1, keepdims=True)
        return bool((i == order).all() and np.allclose(w, p, rtol=1e-4))

    print(f"\nMoE top-k softmax (f32 logits) on MI300X; reference: aiter's production "
          f"code objects from {d}")
    print(f"{'tokens':>6} {'E':>4} {'k':>2} {'renorm':>6} {'ours us':>8} {'aiter us':>9} {'ratio':>6}  aiter object; checks; limiter")
    for tokens, e, k, renorm in TOPK_QUICK if quick else TOPK:
        subm, co, ref = aiter(e, k, renorm, tokens)
        name, c, mine = ours(e, k, renorm)
        ok = checked(ref, e, k, renorm, 3 * subm + 1) and checked(mine, e, k, renorm, 5)
        x = np.random.default_rng(tokens + e + k).standard_normal((tokens, e)).astype(np.float32)  # aiter branches on data
        w, i = np.zeros((tokens, k), np.float32), np.zeros((tokens, k), np.int32)
        ra = ref(x, w, i, timing=prof).timing
        ro = mine(x, w, i, timing=prof).timing
        moved = x.nbytes + w.nbytes + i.nbytes
        ROWS.append((name, f"{tokens}x{e} k{k}", ro.us, f"{moved / ro.seconds / 1e12:.2f} TB/s",
                     100 * moved / ro.seconds / prof.hbm_bytes_per_s, f"aiter {co} {ra.us:.2f} us", ro.us / ra.us,
                     ro.limiter, _resources(c, name, ro)))
        print(f"{tokens:>6} {e:>4} {k:>2} {'yes' if renorm else 'no':>6} {ro.us:8.2f} {ra.us:9.2f} {ro.us / ra.us:6.2f}  {co}; "
              f"{'both match NumPy' if ok else 'MISMATCH vs NumPy'}; ours {ro.limiter}, aiter {ra.limiter}")


def norms_bf16(quick: bool) -> None:
    import norms
    from gcnforge.perfmodel import profiles
    from lib.compile import compile_module

    prof = profiles.get("mi300x")
    print(f"\nbf16 norms (f32 math) on MI300X; HBM achievable {prof.hbm_achievable / 1e12:.3f} TB/s (measured; "
          f"peak {prof.hbm_bytes_per_s / 1e12:.1f})")
    rows = 8192
    for cols in (4096,) if quick else (4096, 8192):
        for kind in ("rms", "layer"):
            c = compile_module(norms.build_bf16(kind, cols, 4))
            name = f"{kind}_norm_bf16"
            kern = c.load("emulator")[name]
            x = np.zeros((rows, cols), np.uint16)
            g = np.full(cols, 0x3F80, np.uint16)
            y = np.zeros_like(x)
            args = (x, g, np.zeros_like(g), y) if kind == "layer" else (x, g, y)
            rep = kern(*args, np.uint32(cols), np.float32(1e-5), grid=(rows, 1, 1), block=(256,), timing=prof).timing
            moved = 2 * x.nbytes
            floor_us = moved / prof.hbm_achievable * 1e6 + rep.launch_seconds * 1e6  # + the launch overhead
            pct = 100 * floor_us / rep.us
            ROWS.append((name, f"{rows}x{cols}", rep.us, f"{moved / rep.seconds / 1e12:.2f} TB/s", pct,
                         f"HBM floor {floor_us:.1f} us", rep.us / floor_us, rep.limiter, _resources(c, name, rep)))
            print(f"  {name} {rows}x{cols}: {rep.us:.1f} us, {moved / rep.seconds / 1e12:.2f} TB/s = {pct:.0f}% of "
                  f"the achievable-HBM floor + launch ({rep.limiter})")


def gfx950(quick: bool) -> None:
    """The gfx950 examples on the MI355X profile: examples/gemm_mfma_f16.py built for gfx950
    (one wave per 16x16 tile, ``v_mfma_f32_16x16x32_{f16,bf16}``) and examples/gemm_mxfp.py (MXFP4,
    ``v_mfma_scale_f32_16x16x128_f8f6f4``). References in the same run: each MFMA's peak on the
    device (``mfma_peak_flops``: the data sheet's 2.5 / 10 PFLOP/s, tests/perfmodel/
    test_profiles_gfx950.py) and the same f16 example built for gfx942 (32x32x8, one wave per 32x32
    tile) predicted on MI300X."""
    import gemm_mfma_f16
    import gemm_mxfp
    import gcnforge.runtime as rt
    from gcnforge.perfmodel import profiles
    from lib.compile import compile_module

    prof, mi300x = profiles.get("mi355x"), profiles.get("mi300x")
    m = n = k = 1024 if quick else 2048
    flops = 2.0 * m * n * k
    print(f"\ngfx950 examples on MI355X ({prof.cus} CUs, {prof.clock_hz / 1e9:.1f} GHz), {m}x{n}x{k}; dense MFMA peak: "
          f"f16 {prof.mfma_peak_flops('v_mfma_f32_16x16x32_f16') / 1e12:.0f}, MXFP4 "
          f"{prof.mfma_peak_flops('v_mfma_scale_f32_16x16x128_f8f6f4', (4, 4)) / 1e12:.0f} TFLOP/s")
    a, bt, out = np.zeros((m, k), np.uint16), np.zeros((n, k), np.uint16), np.zeros((m, n), np.float32)
    # the anchor: the gfx942 build of the same example on MI300X
    c0 = compile_module(gemm_mfma_f16.build(k, n))
    r0 = c0.load("emulator")["gemm_f16_32x32"](a, bt, out, grid=(n // 32, m // 32), block=(64,), timing=mi300x,
                                                flops=flops).timing
    ROWS.append(("gemm_f16_32x32 (gfx942)", f"{m}x{n}x{k}", r0.us, f"{r0.tflops:.0f} TFLOP/s", r0.pct_mfma_peak,
                 "MI300X MFMA peak", r0.pct_mfma_peak / 100, r0.limiter, _resources(c0, "gemm_f16_32x32", r0)))
    print(f"  gemm_f16_32x32 (gfx942) on MI300X: {r0.us:.1f} us, {r0.tflops:.0f} TFLOP/s, {r0.pct_mfma_peak:.1f}% of "
          f"peak ({r0.limiter})")
    for dtype in ("f16",) if quick else ("f16", "bf16"):
        name = f"gemm_{dtype}_16x16x32"
        c = compile_module(gemm_mfma_f16.build(k, n, target="gfx950", dtype=dtype))
        rep = c.load("emulator")[name](a, bt, out, grid=(n // 16, m // 16), block=(64,), timing=prof,
                                       flops=flops).timing
        ROWS.append((name + " (gfx950)", f"{m}x{n}x{k}", rep.us, f"{rep.tflops:.0f} TFLOP/s", rep.pct_mfma_peak,
                     "MI355X MFMA peak", rep.pct_mfma_peak / 100, rep.limiter, _resources(c, name, rep)))
        print(f"  {name} (gfx950) on MI355X: {rep.us:.1f} us, {rep.tflops:.0f} TFLOP/s, {rep.pct_mfma_peak:.1f}% of "
              f"peak ({rep.limiter}); {r0.us / rep.us:.2f}x the gfx942 build on MI300X")
    a4, sa = np.zeros((m, k // 2), np.uint8), np.full((m, k // 32), 127, np.uint8)
    b4, sb = np.zeros((n, k // 2), np.uint8), np.full((n, k // 32), 127, np.uint8)
    kern = rt.load(gemm_mxfp.code_object(m, n, k))[gemm_mxfp.NAME]
    rep = kern(a4, sa, b4, sb, out, grid=(n // 16, m // 16), block=(64, 1, 1), device="emulator", timing=prof,
               flops=flops).timing
    # % of the MXFP4 peak from the FLOPs over the kernel's time (the launch overhead apart); equals the
    # report's matrix-core busy share (FP4: 4 passes)
    pct = 100 * flops / rep.kernel_seconds / prof.mfma_peak_flops("v_mfma_scale_f32_16x16x128_f8f6f4", (4, 4))
    assert abs(pct - rep.pct_mfma_peak) < 1e-6 * max(1.0, pct), (pct, rep.pct_mfma_peak)
    ROWS.append((gemm_mxfp.NAME + " (gfx950)", f"{m}x{n}x{k}", rep.us, f"{rep.tflops:.0f} TFLOP/s", pct,
                 "MI355X MXFP4 peak", pct / 100, rep.limiter, ""))
    print(f"  {gemm_mxfp.NAME} (gfx950) on MI355X: {rep.us:.1f} us, {rep.tflops:.0f} TFLOP/s, {pct:.1f}% of the "
          f"MXFP4 peak ({rep.limiter})")


def summary() -> None:
    print("\nsummary (predicted):")
    print(f"{'kernel':>42} {'shape':>20} {'us':>9} {'rate':>14} {'% peak':>7} {'ratio':>6}  reference / limiter / "
          f"resources")
    for name, shape, us, rate, pct, refname, ratio, lim, res in ROWS:
        print(f"{name:>42} {shape:>20} {us:9.2f} {rate:>14} {pct:7.1f} {ratio:6.2f}  {refname}; {lim}"
              + (f"; {res}" if res else ""))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=str(Path.home() / ".cache" / "gcnforge" / "aiter"))
    ap.add_argument("--skip-aiter", action="store_true")
    ap.add_argument("--aiter-repo", help="a clone of ROCm/aiter: copy its top-k softmax code objects into the cache")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=("gemm", "skinny", "topk", "norms", "gfx950"))
    a = ap.parse_args(argv)
    if a.only in (None, "gemm"):
        large_gemms(a.quick)
    if a.only in (None, "skinny") and not a.skip_aiter:
        skinny(Path(a.cache), a.quick)
    if a.only in (None, "topk") and not a.skip_aiter:
        topk(Path(a.cache), a.aiter_repo, a.quick)
    if a.only in (None, "norms"):
        norms_bf16(a.quick)
    if a.only in (None, "gfx950"):
        gfx950(a.quick)
    summary()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Registry tables (aiter's column spelling, ``gcnforge.runtime.registry``) for the kernels of
``benchmarks/bench_kernels.py`` that ``gcnforge tune`` does not cover: one row per kernel and
shape, ``us`` = the timing model's prediction (``time_kind`` = ``modeled``) on a device profile.

* ``gemm_macro_large.csv``: bf16 -> f32 at 8192^3, 4096 x 4096 x 4000 and 1000^3 (the 4096^3 and
  8192 x 1280 x 8192 rows are ``gcnforge tune`` tables: gemm_macro_4096.csv, gemm_macro_1280.csv),
  fp8 (e4m3fnuz) with per-token / per-channel f32 scales -> bf16 at 4096^3 and 8192^3, and the
  ``anyk`` variant at 1000 x 1000 x 999 (examples/gemm_macro.py: M, N, K run-time, one code
  object per kernel for all its rows; constraints ``K%8`` / ``K%16``, none for ``anyk``, so the
  registry sends a K the fast kernels refuse to it; where both admit a shape with the same tile,
  the registry's tie-break by kernel name picks the fast one, whose name ``_anyk`` extends);
* ``norms_bf16.csv``: RMSNorm and LayerNorm, bf16 in / out, f32 math (examples/norms.py
  ``build_bf16``), 8192 rows of 4096 and 8192 (op ``rmsnorm`` / ``layernorm``: M rows of N);
* ``topk_softmax.csv``: MoE top-k softmax, f32 logits (examples/topk_softmax.py), 4096 and
  32768 tokens x 128 / 256 experts, k 4..8 (op ``topk_softmax`` or ``topk_softmax_renorm``:
  M tokens, N experts, K = k).

Shapes are bench_kernels.py's. Code objects are build outputs, written to ``<table>_co/``
beside each CSV. The committed tables were written by::

    python examples/drivers/kernel_tables.py -o examples/configs

(``--only gemm|norms|topk`` for one table; the 8192^3 GEMMs take minutes each to predict.)
The ``tflops`` / ``bw`` columns follow aiter: 2MNK flops for GEMMs (none for the others); bytes
of the inputs read once and the outputs written once (GEMM scales, norm gamma / beta not
counted), in GB/s.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the kernels and lib/

import gemm_macro  # noqa: E402
import norms  # noqa: E402
import topk_softmax  # noqa: E402
from gcnforge.runtime.registry import Entry, write_csv  # noqa: E402

COMMAND = "python examples/drivers/kernel_tables.py -o examples/configs"


@dataclass
class Row:
    """One table row: how to build its kernel and how to launch it for a prediction."""

    op: str
    dtype: str
    out_dtype: str
    shape: tuple[int, int, int]
    kernel: str
    co_name: str
    build: Callable[[], bytes]
    launch: Callable[..., object]  # (kernel, profile) -> LaunchResult
    tiles: tuple[int, int, int]
    block: int
    constraints: str
    moved: int  # bytes read + written
    flops: float | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _compile(mod, schedule=False) -> bytes:
    from lib.compile import compile_module

    return compile_module(mod, schedule=schedule).blob


def gemm_row(dtype: str, out: str, m: int, n: int, k: int, tm: int = 256, tn: int = 256, wm: int = 2,
             wn: int = 2, anyk: bool = False) -> Row:
    name = gemm_macro.kernel_name(dtype, out, tm, tn, wm, wn, anyk=anyk)
    el = np.uint8 if dtype == "fp8" else np.uint16

    def launch(kern, prof):  # random inputs (fp8: any code but the NaN 0x80; bf16: small integers)
        rng = np.random.default_rng(m + n + k)
        a, bt = rng.integers(0, 0x80, (m, k), dtype=el), rng.integers(0, 0x80, (n, k), dtype=el)
        if dtype != "fp8":
            a, bt = a | 0x4000, bt | 0x4000  # bf16 2 .. 4
        c = np.zeros((m, n), np.float32 if out == "f32" else np.uint16)
        scales = (rng.uniform(0.5, 2, m).astype(np.float32), rng.uniform(0.5, 2, n).astype(np.float32)) \
            if dtype == "fp8" else ()
        return gemm_macro.launch(kern, a, bt, c, scales, tm=tm, tn=tn, wm=wm, wn=wn, anyk=anyk, device="emulator",
                                 timing=prof, flops=2.0 * m * n * k)

    esz, osz = (1 if dtype == "fp8" else 2), (4 if out == "f32" else 2)
    # one binary per tile variant serves every M, N, K (K in whole 16-byte chunks; anyk: any K)
    return Row("gemm", dtype, out, (m, n, k), name, name,
               lambda: _compile(gemm_macro.build(dtype, out, tm, tn, wm, wn, anyk=anyk), schedule=True), launch,
               (tm, tn, gemm_macro.TK // gemm_macro.ESIZES[dtype]), 64 * wm * wn,
               "" if anyk else f"K%{gemm_macro.CHUNK // esz}",
               (m * k + n * k) * esz + m * n * osz, 2.0 * m * n * k,
               {"waves": f"{wm}x{wn}", "scales": "per-token,per-channel" if dtype == "fp8" else ""})


def norm_row(kind: str, rows: int, cols: int, waves: int = 4) -> Row:
    name = f"{kind}_norm_bf16_n{cols}"

    def launch(kern, prof):  # random bf16 x, gamma, beta in 1 .. 2 (exponent 0x3F8, random mantissa)
        rng = np.random.default_rng(rows + cols)
        x = (rng.integers(0, 0x80, (rows, cols), dtype=np.uint16) | 0x3F80).astype(np.uint16)
        g = (rng.integers(0, 0x80, cols, dtype=np.uint16) | 0x3F80).astype(np.uint16)
        b = np.full(cols, 0x3F80, np.uint16)
        y = np.zeros_like(x)
        args = (x, g, b, y) if kind == "layer" else (x, g, y)
        return kern(*args, np.uint32(cols), np.float32(1e-5), grid=(rows, 1, 1), block=(64 * waves,),
                    device="emulator", timing=prof)

    return Row("rmsnorm" if kind == "rms" else "layernorm", "bf16", "bf16", (rows, cols, 1), name, name,
               lambda: _compile(norms.build_bf16(kind, cols, waves, name)), launch, (1, cols, 1), 64 * waves,
               f"N<={cols};N%8", 2 * rows * cols * 2)


def topk_row(tokens: int, experts: int, k: int, renorm: bool) -> Row:
    name = f"topk_softmax_e{experts}_k{k}" + ("_renorm" if renorm else "")

    def launch(kern, prof):
        x = np.random.default_rng(tokens + experts + k).standard_normal((tokens, experts)).astype(np.float32)
        w, i = np.zeros((tokens, k), np.float32), np.zeros((tokens, k), np.int32)
        return kern(x, w, i, grid=(tokens,), block=(64,), device="emulator", timing=prof)

    return Row("topk_softmax_renorm" if renorm else "topk_softmax", "f32", "f32", (tokens, experts, k), name, name,
               lambda: _compile(topk_softmax.build(experts, k, renorm)), launch, (1, experts, k), 64,
               f"N={experts};K={k}", tokens * experts * 4 + tokens * k * 8)


# bench_kernels.py's shapes
GEMM = [("bf16", "f32", 8192, 8192, 8192), ("bf16", "f32", 4096, 4096, 4000), ("bf16", "f32", 1000, 1000, 1000),
        ("fp8", "bf16", 4096, 4096, 4096), ("fp8", "bf16", 8192, 8192, 8192),
        ("bf16", "f32", 1000, 1000, 999, 256, 256, 2, 2, True)]  # the anyk variant: K the others refuse
NORMS = [(kind, 8192, cols) for cols in (4096, 8192) for kind in ("rms", "layer")]
TOPK = ([(t, e, k, False) for t in (4096, 32768) for e, k in ((128, 4), (128, 6), (128, 8), (256, 6), (256, 8))]
        + [(t, 256, 8, True) for t in (4096, 32768)])


def tables() -> dict[str, list[Row]]:
    return {"gemm_macro_large": [gemm_row(*g) for g in GEMM],
            "norms_bf16": [norm_row(*x) for x in NORMS],
            "topk_softmax": [topk_row(*x) for x in TOPK]}


def write_table(path: Path, rows: Iterable[Row], profile: str = "mi300x", command: str = COMMAND,
                say: Callable[[str], None] = lambda s: None) -> list[Entry]:
    """Build every row's code object into ``<path stem>_co/``, predict it on ``profile`` and
    write the table; returns its entries."""
    import gcnforge.runtime as rt
    from gcnforge.perfmodel import profiles

    prof = profiles.get(profile)
    path = Path(path)
    co_dir = path.parent / f"{path.stem}_co"
    co_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    maf_notes = []
    for r in rows:
        co = co_dir / f"{r.co_name}.co"
        co.write_bytes(r.build())
        rep = r.launch(rt.load(co.read_bytes()).kernel(r.kernel), prof).timing
        us = rep.us
        say(f"{path.name}: {r.kernel} {'x'.join(map(str, r.shape))}: {us:.2f} us ({rep.limiter})")
        maf_notes += [f"{r.kernel} {'x'.join(map(str, r.shape))}: {n}" for n in rep.notes if n.startswith("ABOVE MAF")]
        entries.append(Entry(
            kernel=r.kernel, code_object=co, target="gfx942", dtype=r.dtype, tile_m=r.tiles[0], tile_n=r.tiles[1],
            tile_k=r.tiles[2], splitk=1, block=r.block, shape=r.shape, us=us, time_kind="modeled", op=r.op,
            out_dtype=r.out_dtype, cu_num=prof.cus, tflops=None if r.flops is None else r.flops / (us * 1e6),
            bw=r.moved / (us * 1e3), constraints=r.constraints,
            extra={"profile": prof.name, "limiter": rep.limiter.split(";")[0], **r.extra}))
    write_csv(path, entries, comments=(
        f"Rows of {', '.join(sorted({r.op for r in rows}))} (registry schema: gcnforge.runtime.registry, aiter's "
        f"column spelling first); us = the timing model's prediction on the {prof.name} profile ({prof.cus} CUs, "
        f"its sustained clock under load, {prof.launch_overhead_s * 1e6:.2f} us launch overhead included).",
        f"written by: {command}",
        f"The code objects are build outputs, written to {co_dir.name}/ beside this file.", *maf_notes))
    return entries


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out-dir", default=str(Path(__file__).resolve().parents[1] / "configs"))
    ap.add_argument("--only", choices=("gemm", "norms", "topk"))
    a = ap.parse_args(argv)
    for name, rows in tables().items():
        if a.only and not name.startswith(a.only if a.only != "gemm" else "gemm_macro"):
            continue
        write_table(Path(a.out_dir) / f"{name}.csv", rows, say=print)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Per example kernel of the library (examples/): compile time from Python process start,
instruction count, registers used against the allocator's lower bound, the issue model's
cycles and MFMA utilization, and emulator time against NumPy on the same problem.

Anchors (ratios printed beside the figures): compile CPU time (user + system of the whole
process, steadier than wall time on a shared machine) vs LLVM 22 compiling the same work
written in OpenCL C (``benchmarks/anchors/*.cl``: ``clang -O2 -c`` + ``ld.lld -shared``, whole
processes, measured in the same run; the column says "-" without LLVM); VGPR/SGPR use vs the most
registers simultaneously live (the passes' liveness lower bound); emulator time vs NumPy
computing the same result.

    python benchmarks/bench_examples.py [--only NAME]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

# one BLAS thread: on a shared machine threaded BLAS makes the NumPy anchor noisy
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

# name -> (build expression in examples/, kernel, runner)
EXAMPLES: dict[str, tuple[str, str]] = {
    "vector_add_global": ("vector_ops.build('add', 'global')", "vector_add_global"),
    "vector_add_buffer": ("vector_ops.build('add', 'buffer')", "vector_add_buffer"),
    "row_sum": ("row_softmax.build_reduce('add', 1024, 4)", "row_add_f32"),
    "row_softmax": ("row_softmax.build(1024, 4)", "row_softmax_f32"),
    "layer_norm": ("norms.build('layer', 1024, 4)", "layer_norm_f32"),
    "rms_norm": ("norms.build('rms', 1024, 4)", "rms_norm_f32"),
    "topk_e128_k8": ("topk_softmax.build(128, 8, False)", "topk_softmax_e128_k8"),
    "topk_e256_k4_renorm": ("topk_softmax.build(256, 4, True)", "topk_softmax_e256_k4_renorm"),
    "gemm_mfma_f16 (direct)": ("gemm_mfma_f16.build(128, 64)", "gemm_f16_32x32"),
    "gemm_lds f16 64x64": ("gemm_lds.build(128, 64, 'f16', 'f32', 2, 2)", "gemm_lds_f16_f32_64x64x32"),
    "gemm_lds bf16->bf16": ("gemm_lds.build(128, 64, 'bf16', 'bf16', 2, 2)", "gemm_lds_bf16_bf16_64x64x32"),
    "gemm_lds f16 splitk2": ("gemm_lds.build(128, 64, 'f16', 'f32', 2, 2, 64, 2)", "gemm_lds_f16_f32_64x64x32_splitk2"),
    "gemm_pipelined f16 64x64": ("gemm_pipelined.build(128, 64, 'f16', 2, 2)", "gemm_pipe_f16_f32_64x64x32"),
    "gemm_fp8 scaled": ("gemm_fp8.build(128, 64)", "gemm_lds_fp8_f32_64x64x64"),
}

CHILD = """
import sys; sys.path.insert(0, {ex!r})
import {mod}
from lib.compile import compile_module
blob = compile_module({expr}, schedule={sched}).blob
open({out!r}, 'wb').write(blob)
"""


ANCHORS = Path(__file__).resolve().parent / "anchors"
# example-name prefix -> the OpenCL kernel that does the same work
ANCHOR_OF = (("vector", "vector_add.cl"), ("row", "row_softmax.cl"), ("layer", "norms.cl"), ("rms", "norms.cl"),
             ("topk", "topk_softmax.cl"), ("gemm", "gemm_mfma.cl"))


def _clang_time(cl: str) -> float | None:
    """Whole-process clang -O2 + ld.lld CPU time for an anchor kernel (best of 2), None without LLVM."""
    from gcnforge.llvm_tools import find_tool

    clang, lld = find_tool("clang"), find_tool("ld.lld")
    if not clang or not lld:
        return None
    import tempfile

    best = float("inf")
    with tempfile.TemporaryDirectory() as td:
        for _ in range(2):
            t = _child_cpu()
            subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2",
                            "-w", "-c", str(ANCHORS / cl), "-o", f"{td}/k.o"], check=True)
            subprocess.run([lld, "-shared", f"{td}/k.o", "-o", f"{td}/k.so"], check=True)
            best = min(best, _child_cpu() - t)
    return best


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _proc_time(code: str) -> float:
    """CPU seconds of a whole Python process (user + system): on a shared machine wall time
    mostly measures the other tenants."""
    t = _child_cpu()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    return _child_cpu() - t


def _problem(name: str, rng):
    """(args, grid, block, numpy reference thunk) for a small problem of each example."""
    f32 = np.float32
    if name.startswith("vector"):
        n = 4000
        a, b = rng.standard_normal(n).astype(f32), rng.standard_normal(n).astype(f32)
        return (a, b, np.zeros(n, f32), np.uint32(n)), (-(-n // 256), 1, 1), 256, lambda: a + b
    if name.startswith(("row", "layer", "rms")):
        r, n = 8, 1000
        x = rng.standard_normal((r, n)).astype(f32)
        g, b = np.ones(n, f32), np.zeros(n, f32)
        if name == "row_sum":
            return (x, np.zeros(r, f32), np.uint32(n)), (r, 1, 1), 256, lambda: x.sum(1)
        if name == "row_softmax":
            def ref():
                e = np.exp(x - x.max(1, keepdims=True))
                return e / e.sum(1, keepdims=True)
            return (x, np.zeros_like(x), np.uint32(n)), (r, 1, 1), 256, ref
        if name == "layer_norm":
            return ((x, g, b, np.zeros_like(x), np.uint32(n), f32(1e-5)), (r, 1, 1), 256,
                    lambda: (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * g + b)
        return ((x, g, np.zeros_like(x), np.uint32(n), f32(1e-5)), (r, 1, 1), 256,
                lambda: x / np.sqrt((x * x).mean(1, keepdims=True) + 1e-5) * g)
    if name.startswith("topk"):
        e, kk = (128, 8) if "e128" in name else (256, 4)
        t = 16
        x = rng.standard_normal((t, e)).astype(f32)

        def ref():
            o = np.argsort(-x, 1, kind="stable")[:, :kk]
            p = np.exp(x - x.max(1, keepdims=True))
            return o, np.take_along_axis(p / p.sum(1, keepdims=True), o, 1)
        return (x, np.zeros((t, kk), f32), np.zeros((t, kk), np.int32)), (t, 1, 1), 64, ref
    m, n, k = 64, 64, 128
    if "fp8" in name:
        a = rng.integers(0, 0x7F, (m, k), dtype=np.uint8)
        bt = rng.integers(0, 0x7F, (n, k), dtype=np.uint8)
        af, bf = a.astype(f32), bt.astype(f32)  # (NumPy anchor: a GEMM of the same shape)
        return (a, bt, np.zeros((m, n), f32), f32(1), f32(1)), (1, 1, 1), 256, lambda: af @ bf.T
    a = rng.standard_normal((m, k)).astype(np.float16)
    bt = rng.standard_normal((n, k)).astype(np.float16)
    af, bf = a.astype(f32), bt.astype(f32)
    out = np.zeros((m, n), np.uint16 if "bf16->bf16" in name else f32)
    if "direct" in name:
        return (a, bt, out), (2, 2, 1), 64, lambda: af @ bf.T
    split = 2 if "splitk" in name else 1
    return (a, bt, out), (1, 1, split), 256, lambda: af @ bf.T


def _best(f, reps: int = 3) -> float:
    best = float("inf")
    for _ in range(reps):  # CPU seconds of this process, as for the compile column
        t = time.process_time()
        f()
        best = min(best, time.process_time() - t)
    return best


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default=None, help="substring of the example names to run")
    a = p.parse_args(argv)
    from rich.console import Console
    from rich.table import Table

    import gcnforge.runtime as rt
    from gcnforge.asm import disassemble
    from gcnforge.binary import read_code_object
    from gcnforge.cli.model_input import analyze_asm
    from lib.compile import compile_module

    anchors = {cl: _clang_time(cl) for cl in sorted({c for _, c in ANCHOR_OF})}
    tab = Table(title="gcnforge example kernels (compile anchor: clang -O2 + ld.lld on the same work in OpenCL C)")
    for col in ("kernel", "compile CPU s (x clang)", "insts", "VGPR/bound", "AGPR", "SGPR/bound",
                "modeled cycles", "MFMA util", "emulator CPU s (x NumPy)"):
        tab.add_column(col, justify="left" if col == "kernel" else "right")
    rng = np.random.default_rng(0)
    import tempfile

    for label, (expr, kname) in EXAMPLES.items():
        if a.only and a.only not in label:
            continue
        mod = expr.split(".")[0]
        sched = mod == "gemm_pipelined"
        with tempfile.TemporaryDirectory() as td:
            out = str(Path(td) / "k.co")
            ct = _proc_time(CHILD.format(ex=str(ROOT / "examples"), mod=mod, expr=expr, out=out, sched=sched))
        ns: dict = {}
        exec(f"import {mod}", ns)
        c = compile_module(eval(expr, ns), schedule=sched)
        co = read_code_object(c.blob)
        info = co.kernels[kname]
        ninst = len(disassemble(info.code))
        reps = analyze_asm(c.asm, kname)
        cycles = sum(r.cycles for r in reps)
        busy_mfma = sum(r.busy.get("mfma", 0) for r in reps)
        util = busy_mfma / cycles if cycles else 0.0
        used, bound = c.regs.get(kname, {}), c.bound.get(kname, {})
        args, grid, block, ref = _problem(label, rng)
        kern = rt.load(c.blob, device="emulator")[kname]
        emu = _best(lambda: kern(*args, grid=grid, block=(block, 1, 1)), 2)
        npt = _best(ref, 5)
        anchor = anchors[next(c for p, c in ANCHOR_OF if label.startswith(p))]
        tab.add_row(label, f"{ct:.2f} ({ct / anchor:.1f}x)" if anchor else f"{ct:.2f} (-)", str(ninst),
                    f"{used.get('v', '?')}/{bound.get('v', '?')}", str(used.get("a", 0)),
                    f"{used.get('s', '?')}/{bound.get('s', '?')}", str(cycles), f"{100 * util:.1f}%",
                    f"{emu:.3f} ({emu / npt:,.0f}x)")
    Console(width=160).print(tab)
    return 0


if __name__ == "__main__":
    sys.exit(main())

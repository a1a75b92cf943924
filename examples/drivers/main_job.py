"""The main job: a GEMM kernel from Python source to a checked result.

1. builds the library's best GEMM for the shape: ``examples/gemm_lds.py`` (MFMA f16, tiles
   staged through LDS with double buffering, 64x64 or 32x32 work-group tiles) when M, N and
   K fit its tiles, else ``examples/gemm_mfma_f16.py`` (one wave per 32x32 tile, operands
   straight from global memory),
2. runs the default pass pipeline (inline, ABI lowering, register allocation, waits,
   hazards), translates to assembly and assembles a gfx942 code object with the built-in
   toolchain,
3. prints compile time, registers used, and the issue model's cycles and MFMA utilization,
4. launches it through the runtime (an MI300 when one is present, else the emulator) on a
   small problem and checks the result against NumPy.

Run: ``python examples/drivers/main_job.py [--m 64 --n 64 --k 64] [--device emulator|hip]``.
Exit status 0 only when the result matches.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # examples/: the kernels and lib/


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=64)
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--k", type=int, default=64)
    p.add_argument("--device", default=None, help="emulator or hip (default: hip if an MI300 is present)")
    p.add_argument("-S", "--print-asm", action="store_true", help="print the kernel's assembly")
    p.add_argument("--timing", default="mi300x", help="device profile whose time the emulator's timing mode "
                   "predicts (mi300x, mi308x, mi325x; 'none' to skip)")
    a = p.parse_args(argv)

    t0 = time.perf_counter()
    from gcnforge.binary import assemble, read_code_object
    from gcnforge.passes import pipeline
    from gcnforge.cli.model_input import analyze_asm
    from gcnforge.translate import to_assembly
    import gemm_lds
    import gemm_mfma_f16

    wg = next((w for w in (2, 1) if a.m % (32 * w) == 0 and a.n % (32 * w) == 0), None)
    if wg is not None and a.k % 32 == 0:
        module = gemm_lds.build(a.k, a.n, "f16", "f32", wg, wg)
        grid, block = (a.n // (32 * wg), a.m // (32 * wg), 1), (64 * wg * wg, 1, 1)
    else:
        module = gemm_mfma_f16.build(a.k, a.n)
        grid, block = (a.n // 32, a.m // 32, 1), (64, 1, 1)
    pipeline.run(module.top, pipeline.parse(pipeline.DEFAULT))
    asm = to_assembly(module.top)
    blob = assemble(asm)
    compile_s = time.perf_counter() - t0

    co = read_code_object(blob)
    (name, info), = co.kernels.items()
    md = info.metadata
    print(f"kernel {name}: compiled in {compile_s:.2f} s (Python start of compile to code-object bytes), "
          f"{len(info.code)} bytes of code")
    print(f"  registers: {md['.vgpr_count']} VGPR, {md.get('.agpr_count', 0)} AGPR, {md['.sgpr_count']} SGPR")
    for report in analyze_asm(asm, name):
        print(f"  issue model: {report.cycles} modeled cycles, busiest pipe {report.busiest}, "
              f"MFMA utilization {100 * report.mfma_utilization:.1f}%")
    if a.print_asm:
        print(asm)

    import gcnforge.runtime as rt

    kernel = rt.load(blob, device=a.device)[name]
    rng = np.random.default_rng(0)
    A = rng.standard_normal((a.m, a.k)).astype(np.float16)
    B = rng.standard_normal((a.k, a.n)).astype(np.float16)
    C = np.zeros((a.m, a.n), np.float32)
    t1 = time.perf_counter()
    kernel(A, np.ascontiguousarray(B.T), C, grid=grid, block=block)
    run_s = time.perf_counter() - t1
    ref = A.astype(np.float32) @ B.astype(np.float32)
    # f16 products are exact in f32; only the f32 accumulation order differs from NumPy's,
    # so the error bound is a few ulps of the largest partial sum.
    tol = 4 * np.finfo(np.float32).eps * a.k * float(np.abs(A).max() * np.abs(B).max())
    err = float(np.abs(C - ref).max())
    ok = err <= tol
    print(f"  ran {a.m}x{a.n}x{a.k} on {kernel!r} in {run_s:.2f} s: max |C - A@B| = {err:.3g} "
          f"(tolerance {tol:.3g}) -> {'OK' if ok else 'MISMATCH'}")
    print(C[:2, :6])
    if a.timing != "none" and kernel.last_device is not None and kernel.last_device.name == "emulator":
        # a second launch under the timing mode: sampled work-groups, cycle-level CU model (perfmodel)
        res = kernel(A, np.ascontiguousarray(B.T), np.zeros_like(C), grid=grid, block=block,
                     timing=a.timing, flops=2.0 * a.m * a.n * a.k)
        print(res.timing.text())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

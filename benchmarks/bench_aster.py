"""Compile latency against ASTER: the same kernels written in both, each compiled to a code
object by a fresh process (start-up, imports, build, passes, assembly, link all included).

    python benchmarks/bench_aster.py [--rounds 7]

Kernels: ``out[i] = in[i] + 42`` (one load, one add, one store per lane) and a one-wave
f16 GEMM tile (2x2 ``v_mfma_f32_16x16x16_f16`` tiles, K = 64: 16 ``global_load_dwordx2``,
16 MFMAs, 4 ``global_store_dwordx4``). The peer is ASTER (iree-org/aster), the PyPI wheel
``aster-mlir==0.0.4``, driven through its ``KernelBuilder`` and default pass pipeline to
``compile_to_hsaco``. The wheel needs Python 3.12: a venv for it is made once under
``$XDG_CACHE_HOME/gcnforge-bench`` (``~/.cache`` by default; ``ASTER_PYTHON`` names the 3.12
interpreter); when it cannot be made the benchmark says why and skips.

Both sides run with bytecode caching on (pip compiled the wheel's ``.pyc`` at install; ours go
to a prefix under the same cache directory), one warm-up run each, then rounds that
alternate the two tools; the medians of wall and CPU time (user + system of the child) are
printed with the ratio gcnforge / ASTER (< 1 means gcnforge is faster). A last row times the two
bare interpreters (``-c pass``): start-up that neither tool controls (site-packages ``.pth``
files of the environment gcnforge runs in, none in ASTER's fresh venv).
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ASTER_WHEEL = "aster-mlir==0.0.4"

OURS_TINY = '''
from gcnforge.builder import Arg, Module

m = Module("add42")
with m.kernel("add42", [Arg.ptr("src", access="read_only"), Arg.ptr("dst", access="write_only")],
              workgroup_size=(64, 1, 1)) as k:
    src, dst = k.args()
    gid = k.v_add_u32(k.s_lshl_b32(k.block_id("x"), 6), k.thread_id("x"))
    off = k.v_lshlrev_b32(2, gid)
    x, t = k.global_load_dword(off, src)
    k.wait(t)
    k.global_store_dword(off, k.v_add_u32(42, x), dst)
    k.s_endpgm()
'''

OURS_GEMM = '''
from gcnforge.builder import Arg, Module

TM = TN = 2
KS = 4
m = Module("gemm")
args = [Arg.ptr("a", access="read_only"), Arg.ptr("b", access="read_only"), Arg.ptr("c", access="write_only")]
with m.kernel("gemm", args, workgroup_size=(64, 1, 1)) as k:
    pa, pb, pc = k.args()
    lane = k.thread_id("x")
    off8 = k.v_lshlrev_b32(3, lane)
    off16 = k.v_lshlrev_b32(4, lane)
    acc = [[k.concat(*[k.v_accvgpr_write_b32(0) for _ in range(4)]) for _ in range(TN)] for _ in range(TM)]
    frags, toks = [], []
    for s in range(KS):
        fa = []
        for t in range(TM):
            v, tok = k.global_load_dwordx2(off8, pa, offset=(s * TM + t) * 512)
            fa.append(v)
            toks.append(tok)
        fb = []
        for t in range(TN):
            v, tok = k.global_load_dwordx2(off8, pb, offset=(s * TN + t) * 512)
            fb.append(v)
            toks.append(tok)
        frags.append((fa, fb))
    k.wait(*toks)
    for fa, fb in frags:
        for i in range(TM):
            for j in range(TN):
                acc[i][j] = k.v_mfma_f32_16x16x16_f16(acc[i][j], fa[i], fb[j], acc[i][j])
    for i in range(TM):
        for j in range(TN):
            k.global_store_dwordx4(off16, acc[i][j], pc, offset=(i * TN + j) * 1024)
    k.s_endpgm()
'''

ASTER_PRELUDE = '''
from aster import ir
from aster.dialects.kernel_builder import KernelBuilder
from aster.dialects.amdgcn import AccessKind
from aster.compiler.core import compile_mlir_module_to_asm, compile_to_hsaco
from aster.test_pass_pipelines import DEFAULT_SROA_PASS_PIPELINE

ctx = ir.Context()
ctx.allow_unregistered_dialects = True
'''

ASTER_TINY = ASTER_PRELUDE + '''
with ctx:
    b = KernelBuilder("add42", "add42", target="gfx942", isa="cdna3")
    b.add_ptr_arg(AccessKind.ReadOnly)
    b.add_ptr_arg(AccessKind.WriteOnly)
    src, dst = b.load_args()
    off = b.affine_apply(ir.AffineExpr.get_dim(0) * 4, [b.global_thread_id()])
    x, tok = b.global_load_dword(b.global_addr(src, off))
    b.wait_deps(tok)
    y = b.vop2("v_add_u32", b.constant_i32(42), x)
    b.global_store_dword(y, b.global_addr(dst, off))
    b.set_block_dims(64)
    asm = compile_mlir_module_to_asm(b.build(), pass_pipeline=DEFAULT_SROA_PASS_PIPELINE)
    assert compile_to_hsaco(asm)
'''

ASTER_GEMM = ASTER_PRELUDE + '''
TM = TN = 2
KS = 4
with ctx:
    b = KernelBuilder("gemm", "gemm", target="gfx942", isa="cdna3")
    for access in (AccessKind.ReadOnly, AccessKind.ReadOnly, AccessKind.WriteOnly):
        b.add_ptr_arg(access)
    pa, pb, pc = b.load_args()
    lane = b.thread_id("x")
    d0 = ir.AffineExpr.get_dim(0)
    zero = b.constant_i32(0)
    acc = [[b.init_agprx4(zero) for _ in range(TN)] for _ in range(TM)]
    frags, toks = [], []
    for s in range(KS):
        fa = []
        for t in range(TM):
            v, tok = b.global_load_dwordx2(b.global_addr(pa, b.affine_apply(d0 * 8 + (s * TM + t) * 512, [lane])))
            fa.append(v)
            toks.append(tok)
        fb = []
        for t in range(TN):
            v, tok = b.global_load_dwordx2(b.global_addr(pb, b.affine_apply(d0 * 8 + (s * TN + t) * 512, [lane])))
            fb.append(v)
            toks.append(tok)
        frags.append((fa, fb))
    b.wait_deps(*toks)
    for fa, fb in frags:
        for i in range(TM):
            for j in range(TN):
                acc[i][j] = b.mfma("v_mfma_f32_16x16x16_f16", acc[i][j], fa[i], fb[j])
    for i in range(TM):
        for j in range(TN):
            b.global_store_dwordx4(acc[i][j], b.global_addr(pc, b.affine_apply(d0 * 16 + (i * TN + j) * 1024, [lane])))
    b.set_block_dims(64)
    asm = compile_mlir_module_to_asm(b.build(), pass_pipeline=DEFAULT_SROA_PASS_PIPELINE)
    assert compile_to_hsaco(asm)
'''


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gcnforge-bench"


def find_python312() -> str | None:
    if os.environ.get("ASTER_PYTHON"):
        return os.environ["ASTER_PYTHON"]
    found = shutil.which("python3.12")
    if found:
        return found
    pyenv = os.environ.get("PYENV_ROOT") or os.path.join(os.path.expanduser("~"), ".pyenv")
    for cand in sorted(glob.glob(os.path.join(pyenv, "versions", "3.12*", "bin", "python3.12")), reverse=True):
        return cand
    return None


def aster_python() -> tuple[str | None, str]:
    """The venv's interpreter with ASTER importable, or (None, why not)."""
    venv = cache_root() / "aster-venv"
    py = venv / "bin" / "python"
    probe = [str(py), "-c", "import aster.dialects.kernel_builder, aster.compiler.core"]
    if py.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return str(py), ""
    base = find_python312()
    if base is None:
        return None, "no Python 3.12 found (set ASTER_PYTHON), which the aster-mlir wheel needs"
    steps = ([base, "-m", "venv", str(venv)], [str(py), "-m", "pip", "install", "-q", ASTER_WHEEL])
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return None, f"`{' '.join(cmd)}` failed: {(r.stderr or r.stdout).strip().splitlines()[-1:]}"
    if subprocess.run(probe, capture_output=True).returncode != 0:
        return None, f"{ASTER_WHEEL} installed but does not import"
    return str(py), ""


def timed(cmd: list[str], env: dict, cwd: str) -> tuple[float, float]:
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    py312, why = aster_python()
    if py312 is None:
        print(f"skipped: ASTER is not available: {why}")
        return 0
    ours_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    ours_env["PYTHONPYCACHEPREFIX"] = str(cache_root() / "pycache")
    aster_env = {k: v for k, v in ours_env.items() if k != "PYTHONPATH"}
    print(f"{'kernel':<8} {'gcnforge wall/CPU (s)':>22} {'ASTER wall/CPU (s)':>20} {'ratio wall':>11} {'ratio CPU':>10}")
    with tempfile.TemporaryDirectory() as d:
        for name, ours_src, aster_src in (("tiny", OURS_TINY, ASTER_TINY), ("gemm", OURS_GEMM, ASTER_GEMM),
                                          ("start-up", None, "pass")):
            if ours_src is None:  # the bare interpreters (`-c pass`): what neither tool can change
                ours = [sys.executable, "-c", "pass"]
            else:
                kfile = Path(d) / f"{name}.py"
                kfile.write_text(ours_src)
                ours = [sys.executable, "-m", "gcnforge.cli.main", "compile", str(kfile), "-o", str(Path(d) / "out.hsaco")]
            theirs = [py312, "-c", aster_src]
            timed(ours, ours_env, d)  # warm-up: bytecode and the ISA table cache
            timed(theirs, aster_env, d)
            a, b = [], []
            for _ in range(args.rounds):
                a.append(timed(ours, ours_env, d))
                b.append(timed(theirs, aster_env, d))
            (ow, oc), (tw, tc) = ([statistics.median(x[i] for x in s) for i in (0, 1)] for s in (a, b))
            print(f"{name:<8} {ow:>11.3f} / {oc:<8.3f} {tw:>9.3f} / {tc:<8.3f} {ow / tw:>11.2f} {oc / tc:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Assembly text -> code-object bytes: built-in assembler + linker vs llvm-mc + ld.lld.

    python benchmarks/bench_codeobject.py [--repeat N]

Inputs: a small kernel (17 instructions, the shape clang emits) and two generated
20,000-instruction kernels (scalar, vector, memory, MFMA, branches to labels): an unrolled
one whose lines mostly repeat, and one with ~half its lines distinct (the built-in path
parses each distinct position-independent line once). The anchor is
llvm-mc -filetype=obj + ld.lld -shared run in the same script on the same text (process
start-up included, as a user of the LLVM toolchain pays it). Prints best-of-N wall times and
the ratio built-in / LLVM (< 1 means the built-in path is faster): first in-process
(``gcnforge.binary.assemble``), then as whole processes on both sides (``gcnforge as
file.s -o out`` against ``llvm-mc -filetype=obj`` then ``ld.lld -shared``; Python start-up,
imports and the ISA table included; bytecode caching on, as in an installed package), as
medians of paired runs, in wall time and in CPU time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gcnforge.binary import assemble, read_code_object
from gcnforge.binary.toolchain import llvm_mc_args
from gcnforge.binary.target_id import parse_target_id
from gcnforge.llvm_tools import require_tool

HEADER = '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n\t.amdhsa_code_object_version 5\n'

SMALL_BODY = """\ts_load_dword s3, s[0:1], 0x10
\tv_lshl_or_b32 v0, s2, 8, v0
\ts_waitcnt lgkmcnt(0)
\tv_cmp_gt_i32_e32 vcc, s3, v0
\ts_and_saveexec_b64 s[2:3], vcc
\ts_cbranch_execz .LBB0_2
\ts_load_dwordx4 s[0:3], s[0:1], 0x0
\tv_ashrrev_i32_e32 v1, 31, v0
\tv_lshlrev_b64 v[0:1], 2, v[0:1]
\ts_waitcnt lgkmcnt(0)
\tv_lshl_add_u64 v[2:3], s[0:1], 0, v[0:1]
\tv_lshl_add_u64 v[0:1], s[2:3], 0, v[0:1]
\tglobal_load_dword v4, v[0:1], off
\tglobal_load_dword v5, v[2:3], off
\ts_waitcnt vmcnt(0)
\tv_add_f32_e32 v0, v4, v5
\tglobal_store_dword v[2:3], v0, off
.LBB0_2:
\ts_endpgm
"""

# 20 instructions per block; 1000 blocks = 20,000 instructions.
BLOCK = """.Lblk{i}:
\ts_add_u32 s4, s4, 0x{i:x}
\ts_addc_u32 s5, s5, 0
\tv_mov_b32_e32 v2, s4
\tv_add_f32_e32 v3, 1.0, v2
\tv_fma_f32 v4, v3, v2, 0.5
\tv_mul_f32_e32 v5, v4, v4
\tglobal_load_dword v6, v[0:1], off offset:{off}
\tds_read_b32 v7, v8 offset:{off}
\ts_waitcnt vmcnt(0) lgkmcnt(0)
\tv_mfma_f32_32x32x8_f16 a[0:15], v[10:11], v[12:13], a[0:15]
\tv_add_u32_e32 v9, v6, v7
\tds_write_b32 v8, v9 offset:{off}
\tglobal_store_dword v[0:1], v5, off offset:{off}
\ts_cmp_lg_u32 s4, 0
\ts_cbranch_scc0 .Lblk{j}
\tv_cndmask_b32_e64 v14, v2, v3, s[6:7]
\ts_lshl_b32 s8, s4, 2
\tv_readfirstlane_b32 s9, v14
\ts_mul_i32 s10, s9, s8
\ts_nop 1
"""


def kernel(name: str, body: str, vgprs: int, agprs: int = 0) -> str:
    nv = vgprs + agprs
    return (f"\t.text\n\t.globl {name}\n\t.p2align 8\n\t.type {name},@function\n{name}:\n{body}"
            f".Lend_{name}:\n\t.size {name}, .Lend_{name}-{name}\n"
            f"\t.rodata\n\t.p2align 6\n\t.amdhsa_kernel {name}\n"
            f"\t\t.amdhsa_kernarg_size 24\n\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
            f"\t\t.amdhsa_next_free_vgpr {nv}\n\t\t.amdhsa_next_free_sgpr 12\n"
            f"\t\t.amdhsa_accum_offset {((vgprs + 3) // 4) * 4}\n\t.end_amdhsa_kernel\n")


def small_kernel() -> str:
    return HEADER + kernel("vadd", SMALL_BODY, 6)


def big_kernel(blocks: int = 1000) -> str:
    """Unrolled-loop shape: most lines repeat (offsets cycle through 64 values)."""
    body = "".join(BLOCK.format(i=i, j=(i + 7) % blocks, off=(i % 64) * 4) for i in range(blocks))
    return HEADER + kernel("big", body + "\ts_endpgm\n", 16, 16)


def distinct_kernel(blocks: int = 1000) -> str:
    """Offsets and constants unique per block: about half of the 20,000 lines are distinct."""
    body = "".join(BLOCK.format(i=i, j=(i + 7) % blocks, off=i * 4) for i in range(blocks))
    body = body.replace("1.0, v2", "0x3f800000, v2")
    lines = []
    for n, line in enumerate(body.splitlines()):
        if line.startswith("\tv_add_f32_e32 v3") or line.startswith("\tv_fma_f32") or line.startswith("\ts_nop"):
            line = {"\tv_a": f"\tv_add_f32_e32 v3, 0x{0x3f800000 + n:x}, v2",
                    "\tv_f": f"\tv_fma_f32 v4, v{n % 200 + 20}, v{(n * 7) % 200 + 20}, 0.5",
                    "\ts_n": f"\ts_mov_b32 s11, 0x{n:x}"}[line[:4]]
        elif line.startswith("\tv_mul_f32_e32") or line.startswith("\ts_lshl_b32") or line.startswith("\ts_mul_i32"):
            line = line + f"\n\ts_add_u32 s12, s12, 0x{n + 100000:x}"
            line = line.split("\n")[1] if n % 2 else line.split("\n")[0].replace("s4, 2", f"s4, {n % 31}")
        lines.append(line)
    return HEADER + kernel("distinct", "\n".join(lines) + "\n\ts_endpgm\n", 224, 16)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def whole_processes(cases, repeat: int) -> None:
    """Paired, interleaved runs (ours, then LLVM's, ``repeat`` times): medians of wall time and
    of the processes' CPU time (user + system, steadier than wall time on a shared machine)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                                     / "gcnforge-bench" / "pycache")
    mc, lld = require_tool("llvm-mc"), require_tool("ld.lld")
    mc_args = llvm_mc_args(parse_target_id("gfx942"))
    print(f"\n{'whole processes (medians)':<28} {'gcnforge as (s)':>15} {'llvm-mc+ld.lld (s)':>19} {'ratio':>7}"
          f" {'CPU: ours (s)':>14} {'LLVM (s)':>9} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as d:
        for label, text in cases:
            src, obj, out = Path(d) / "k.s", Path(d) / "k.o", Path(d) / "k.hsaco"
            src.write_text(text)
            ours = [[sys.executable, "-m", "gcnforge.cli.main", "as", str(src), "-o", str(out)]]
            theirs = [[mc, *mc_args, "-filetype=obj", str(src), "-o", str(obj)], [lld, "-shared", str(obj), "-o", str(out)]]

            def run(cmds) -> tuple[float, float]:
                c0, t0 = _children_cpu(), time.perf_counter()
                for c in cmds:
                    subprocess.run(c, check=True, env=env, capture_output=True)
                return time.perf_counter() - t0, _children_cpu() - c0

            run(ours)  # warm-up: bytecode, ISA table cache
            pairs = [(run(ours), run(theirs)) for _ in range(repeat)]
            w_ours = statistics.median(p[0][0] for p in pairs)
            w_llvm = statistics.median(p[1][0] for p in pairs)
            c_ours = statistics.median(p[0][1] for p in pairs)
            c_llvm = statistics.median(p[1][1] for p in pairs)
            print(f"{label:<28} {w_ours:>15.4f} {w_llvm:>19.4f} {w_ours / w_llvm:>7.2f}"
                  f" {c_ours:>14.4f} {c_llvm:>9.4f} {c_ours / c_llvm:>7.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(f"{'in-process':<28} {'built-in (s)':>13} {'llvm-mc+ld.lld (s)':>19} {'ratio':>7}")
    cases = (("small kernel (17 insts)", small_kernel()), ("20,000 insts, unrolled", big_kernel()),
             ("20,000 insts, 9.7k distinct", distinct_kernel()))
    for label, text in cases:
        ours = assemble(text)
        ref = assemble(text, toolchain="llvm")
        a, b = read_code_object(ours), read_code_object(ref)
        assert a.text == b.text and a.kernels.keys() == b.kernels.keys(), "outputs differ"
        assert all(a.kernels[k].descriptor == b.kernels[k].descriptor for k in a.kernels)
        t_ours = best(lambda: assemble(text), args.repeat)
        t_llvm = best(lambda: assemble(text, toolchain="llvm"), args.repeat)
        print(f"{label:<28} {t_ours:>13.4f} {t_llvm:>19.4f} {t_ours / t_llvm:>7.2f}")
    whole_processes(cases, args.repeat)


if __name__ == "__main__":
    main()

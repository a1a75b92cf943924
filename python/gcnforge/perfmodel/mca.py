"""Run the same blocks through LLVM's ``llvm-mca`` (an oracle we did not write) and read back
its totals, in one invocation for many blocks (``# LLVM-MCA-BEGIN/END`` regions).

Where llvm-mca and ``gcnforge.perfmodel`` differ, and why:

* **Units.** LLVM's AMDGPU scheduling model counts a wave64 VALU instruction as 1 cycle and
  an MFMA as its pass count (``v_mfma_f32_32x32x8_f16``: 8); gcnforge counts shader clocks
  of a wave64 on a 16-lane SIMD (4 per VALU op, 32 for that MFMA). ``MCA_CYCLE = 4``
  converts. With that factor the MFMA pipe occupancies agree (tests/perfmodel/test_mca.py
  checks every MFMA of the ISA table against llvm-mca live).
* **Memory latency.** LLVM's model uses fixed scheduling placeholders (LDS ~5, VMEM ~80 of
  its cycles); gcnforge uses 64 / 500 shader clocks (model assumptions of MI300X's
  measured order). Memory-bound blocks therefore differ by more than the unit factor.
* **Waits.** llvm-mca treats ``s_waitcnt`` as a 1-cycle instruction with side effects and
  does not model the counters; gcnforge stalls until the counted operations complete.
* **Issue.** llvm-mca dispatches one instruction per (its) cycle; gcnforge allows one per
  4-cycle issue window per wave and lets the MFMA, VALU and memory pipes run concurrently.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

from gcnforge.llvm_tools import require_tool

MCA_CYCLE = 4


@dataclass
class McaResult:
    name: str
    total_cycles: int
    pressure: dict[str, float]  # resource -> cycles per iteration (HWXDL, HWVALU, ...)


def run_mca(blocks: list[tuple[str, list[str]]], iterations: int = 1) -> list[McaResult]:
    exe = require_tool("llvm-mca")
    text = []
    for name, lines in blocks:
        text.append(f"# LLVM-MCA-BEGIN {name}")
        text += lines
        text.append("# LLVM-MCA-END")
    p = subprocess.run([str(exe), "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942", f"-iterations={iterations}"],
                       input="\n".join(text) + "\n", capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"llvm-mca failed: {p.stderr.strip()}")
    return parse_mca(p.stdout, [n for n, _ in blocks])


def parse_mca(out: str, names: list[str]) -> list[McaResult]:
    regions = re.split(r"\n\[\d+\] Code Region", out)
    regions = [r for r in regions if "Total Cycles:" in r]
    res: list[McaResult] = []
    for name, r in zip(names, regions, strict=True):
        total = int(re.search(r"Total Cycles:\s+(\d+)", r).group(1))  # type: ignore[union-attr]
        resources = re.findall(r"\[(\d+)\]\s+- (\w+)", r)
        m = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n", r)
        pressure: dict[str, float] = {}
        if m:
            vals = m.group(2).split()
            for (idx, rname), v in zip(resources, vals, strict=False):
                pressure[rname] = 0.0 if v == "-" else float(v)
        res.append(McaResult(name, total, pressure))
    return res

"""The counter model (``gcnforge.isa.counters``, used by the wait pass) against clang 22.

clang's SIInsertWaitcnts emits the weakest ``s_waitcnt`` its counter model allows, so on
kernels chosen to exercise each rule (``counter_kernels.cl``: LDS reads retiring in order,
VMEM loads and stores on one in-order vmcnt, SMEM pending beside LDS, FLAT on both counters)
the wait verifier must (1) find clang's code clean and (2) report a missing wait when any one
of clang's counts is raised by one. Waits right before ``s_barrier`` guard no register (they
make LDS writes visible to other waves); that rule is the sanitizer's
(``tests/emulator/test_sanitizer.py::unwaited_barrier``) and is skipped here.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.isa import waitcnt
from gcnforge.raising import raise_code_object
from gcnforge.raising.verify import verify_module
from gcnforge.testing import require_llvm

SRC = Path(__file__).with_name("counter_kernels.cl")
KERNELS = ("lds_in_order", "vmem_in_order", "smem_and_lds", "flat_both")
_WAIT = re.compile(r"^\s*s_waitcnt\s+(.*?)\s*$")


@pytest.fixture(scope="module")
def clang_s(tmp_path_factory) -> str:
    clang = require_llvm("clang")["clang"]
    out = tmp_path_factory.mktemp("counters") / "k.s"
    subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2",
                    "-S", str(SRC), "-o", str(out)], check=True, capture_output=True)
    return out.read_text()


def _weakened(text: str):
    """(kernel, description, text with one of clang's counts raised by one) for every wait
    inside a kernel body that does not precede ``s_barrier``."""
    lines = text.splitlines()
    kernel = None
    for i, ln in enumerate(lines):
        lab = re.match(r"^(\w+):", ln)
        if lab:
            kernel = lab.group(1) if lab.group(1) in KERNELS else None
            continue
        m = _WAIT.match(ln)
        if kernel is None or m is None or lines[i + 1].strip() == "s_barrier":
            continue
        counts = {k: int(v) for k, v in re.findall(r"(\w+)\((\d+)\)", m.group(1))}
        for c, n in counts.items():
            if n < waitcnt.MAX[c]:
                new = waitcnt.text(waitcnt.pack(**{**counts, c: n + 1}))
                yield kernel, f"{m.group(1)} -> {new}", "\n".join(lines[:i] + [f"\ts_waitcnt {new}"] + lines[i + 1:])


def _findings(text: str) -> list[str]:
    return verify_module(raise_code_object(read_code_object(assemble(text))), ["waits"])


def test_clang_waits_are_enough(clang_s):
    assert _findings(clang_s) == []


def test_each_clang_wait_is_exact(clang_s):
    cases = list(_weakened(clang_s))
    assert {k for k, _, _ in cases} == set(KERNELS)  # every rule has at least one wait to weaken
    for kernel, what, text in cases:
        found = [f for f in _findings(text) if f.startswith(f"@{kernel} ")]
        assert found, f"{kernel}: weakening s_waitcnt {what} went unnoticed"

"""Test support shared by pytest suites, lit and benchmarks.

Tests that need LLVM 22 call ``require_llvm``: they skip when the tools are absent,
except in CI (CI=true), where a missing oracle is a failure, not a skip.
"""

from __future__ import annotations

import os

import subprocess
import sys
from pathlib import Path

from gcnforge.llvm_tools import find_tool

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# AMD's aiter wheel (PyPI amd-aiter, MIT): its code objects are the emulator's form census and
# its measured tables the timing model's reference; ~40 MB, downloaded once into the cache
AITER = "amd-aiter==0.1.7.post2.dev18"
AITER_CACHE = Path.home() / ".cache" / "gcnforge" / "aiter"


def require_llvm(*tools: str) -> dict[str, str]:
    """Return {tool: path}; skip the calling test (or fail it in CI) when any is missing."""
    import pytest

    found = {t: find_tool(t) for t in tools}
    missing = [t for t, p in found.items() if p is None]
    if missing:
        msg = f"LLVM tools not found: {', '.join(missing)} (apt-get install llvm-22 lld-22 clang-22 mlir-22-tools)"
        if IN_CI:
            pytest.fail(msg + " -- required in CI")
        pytest.skip(msg)
    return found  # type: ignore[return-value]


def aiter_wheel(cache: Path | None = None) -> Path | str:
    """The cached aiter wheel (``pip download --no-deps`` into ``cache`` the first time), or
    the reason it cannot be had."""
    cache = Path(cache or AITER_CACHE)
    cache.mkdir(parents=True, exist_ok=True)
    have = sorted(cache.glob("amd_aiter-*.whl"))
    if have:
        return have[-1]
    r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", AITER, "-d", str(cache)],
                       capture_output=True, text=True)
    have = sorted(cache.glob("amd_aiter-*.whl"))
    if r.returncode != 0 or not have:
        return f"pip download {AITER} failed: {' '.join((r.stderr or r.stdout).strip().splitlines()[-1:])}"
    return have[-1]


def require_aiter_wheel() -> Path:
    """The aiter wheel; skip the calling test when it cannot be downloaded (fail in CI)."""
    import pytest

    got = aiter_wheel()
    if isinstance(got, str):
        if IN_CI:
            pytest.fail(got + " -- required in CI")
        pytest.skip(got)
    return got


def random_inst_word(rng, inst) -> bytes:
    """One random encoding of a table instruction for differential fuzzing: random bits in
    every field, the encoding's fixed bits and the opcode set, and multi-dword VGPR/AGPR
    tuples even-aligned (gfx90a+ requires it; LLVM's handling of odd tuples differs per
    operand class). Shared by the decoder fuzz test and ``fuzz/asm_diff.py``."""
    from gcnforge.isa.encodings import ENCODINGS
    from gcnforge.isa.schema import OperandKind

    e = ENCODINGS[inst.encoding]
    w = (rng.getrandbits(e.size * 8) & ~e.match_mask) | e.match_value
    w = e.opcode.put(w, inst.opcode)
    for op in inst.operands:
        if op.kind in (OperandKind.VGPR, OperandKind.AV, OperandKind.AGPR) and op.dwords > 1 and op.field:
            f = e.fields[op.field]
            w = f.put(w, f.get(w) & ~1)
    return w.to_bytes(e.size, "little")

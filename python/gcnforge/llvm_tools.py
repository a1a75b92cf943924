"""Find LLVM's AMDGPU-capable tools (llvm-mc, ld.lld, llvm-objdump, clang, mlir-opt, ...).

LLVM is an oracle for tests and an optional backend; gcnforge never needs it to compile or
run a kernel. Search order: $ROCM_PATH/llvm/bin, /opt/rocm/llvm/bin, /usr/lib/llvm-22/bin,
then PATH.
"""

from __future__ import annotations

import os
import shutil
from functools import cache
from pathlib import Path

from gcnforge.diagnostics import Diagnostic


def _search_dirs() -> list[Path]:
    dirs = []
    if rocm := os.environ.get("ROCM_PATH"):
        dirs.append(Path(rocm) / "llvm" / "bin")
    dirs += [Path("/opt/rocm/llvm/bin"), Path("/usr/lib/llvm-22/bin")]
    return dirs


@cache
def find_tool(name: str) -> str | None:
    """Path of LLVM tool ``name`` (``llvm-mc``, ``ld.lld``, ...), or None."""
    for d in _search_dirs():
        p = d / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    for candidate in (name, f"{name}-22"):
        if found := shutil.which(candidate):
            return found
    return None


def require_tool(name: str) -> str:
    """Like ``find_tool`` but raises a ``Diagnostic`` that says how to get it."""
    path = find_tool(name)
    if path is None:
        raise Diagnostic(
            f"LLVM tool '{name}' not found (looked in $ROCM_PATH/llvm/bin, /opt/rocm/llvm/bin, "
            "/usr/lib/llvm-22/bin and PATH); install it with "
            "'apt-get install llvm-22 lld-22 clang-22 mlir-22-tools' or use the built-in toolchain"
        )
    return path

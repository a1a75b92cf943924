"""``assemble(text, target, toolchain)``: the built-in assembler/linker or llvm-mc + ld.lld."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from gcnforge.binary.target_id import TargetId, parse_target_id
from gcnforge.diagnostics import Diagnostic
from gcnforge.llvm_tools import require_tool

TOOLCHAINS = ("builtin", "llvm")
_TARGET_DIRECTIVE = re.compile(r'^\s*\.amdgcn_target\s+"([^"]*)"', re.M)


def directive_target(text: str, filename: str) -> TargetId | None:
    """The target id of the text's ``.amdgcn_target`` directive (a bad one is a Diagnostic at it)."""
    m = _TARGET_DIRECTIVE.search(text)
    if m is None:
        return None
    from gcnforge.diagnostics import SourceLoc

    line = text.count("\n", 0, m.start(1)) + 1
    return parse_target_id(m.group(1), SourceLoc(filename, line, m.start(1) - text.rfind("\n", 0, m.start(1))))


def assemble(text: str, target: str = "gfx942", toolchain: str = "builtin", filename: str = "<asm>",
             metadata: dict | None = None) -> bytes:
    if toolchain == "builtin":
        from gcnforge.binary.assembler import assemble_builtin

        return assemble_builtin(text, target, filename, metadata)
    if toolchain == "llvm":
        if metadata is not None:  # llvm-mc reads metadata only as the text's YAML block
            raise ValueError("a metadata map is for the built-in assembler; give llvm-mc the YAML in the text")
        return assemble_llvm(text, target, filename)
    raise Diagnostic(f"unknown toolchain '{toolchain}' (choose from {', '.join(TOOLCHAINS)})")


def llvm_mc_args(tid: TargetId) -> list[str]:
    attrs = [f"{'+' if v == 'on' else '-'}{n}" for n, v in (("xnack", tid.xnack), ("sramecc", tid.sramecc)) if v in ("on", "off")]
    return ["-triple=amdgcn-amd-amdhsa", f"-mcpu={tid.processor}"] + ([f"-mattr={','.join(attrs)}"] if attrs else [])


def assemble_llvm(text: str, target: str = "gfx942", filename: str = "<asm>") -> bytes:
    """llvm-mc -filetype=obj, then ld.lld -shared (the reference toolchain)."""
    tid = parse_target_id(target)
    file_tid = directive_target(text, filename)
    if file_tid:  # the file's own target id (features included) wins, as in the built-in assembler
        if file_tid.processor != tid.processor:
            raise Diagnostic(f".amdgcn_target directive's target id {_TARGET_DIRECTIVE.search(text).group(1)} "
                             "does not match the specified "
                             f"target {tid}", filename)
        tid = file_tid
    mc, lld = require_tool("llvm-mc"), require_tool("ld.lld")
    with tempfile.TemporaryDirectory(prefix="gcnforge-") as d:
        src, obj, out = Path(d) / "in.s", Path(d) / "in.o", Path(d) / "out.hsaco"
        src.write_text(text)
        r = _run([mc, *llvm_mc_args(tid), "-filetype=obj", str(src), "-o", str(obj)], filename)
        if r.returncode:
            raise Diagnostic("llvm-mc failed:\n" + r.stderr.replace(str(src), filename).strip(), filename)
        r = _run([lld, "-shared", str(obj), "-o", str(out)], filename)
        if r.returncode:
            raise Diagnostic("ld.lld failed:\n" + r.stderr.strip(), filename)
        return out.read_bytes()


LLVM_TIMEOUT = 300  # seconds; llvm-mc 22 can spin forever (e.g. odd bytes before .p2align in .text)


def _run(cmd: list[str], filename: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=LLVM_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Diagnostic(f"{Path(cmd[0]).name} did not finish within {LLVM_TIMEOUT} s", filename) from None

"""Batch access to LLVM 22's llvm-mc for the vector-ALU table generator and corpus.

One llvm-mc process per batch (thousands of lines), never one per probe. Probes are
separated by a sentinel instruction (``s_trap 0x77``) so each probe's output lines can be
told apart even when a probe decodes to zero or several instructions.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field

from gcnforge.llvm_tools import require_tool

TRIPLE = "amdgcn-amd-amdhsa"
MCPU = "gfx942"
_SEP_BYTES = bytes([0x77, 0x00, 0x92, 0xBF])  # s_trap 0x77 (SOPP op 18)
_SEP_TEXT = "s_trap 0x77"
_ENC_RE = re.compile(r"^\s*(.*?)\s*; encoding: \[([^\]]*)\]")
_INST_RE = re.compile(r"<MCInst #\d+ (\S+)")
_OPND_RE = re.compile(r"<MCOperand (\w+):([^>]*)>")


@dataclass
class Decoded:
    text: str
    encoding: bytes
    llvm_name: str = ""
    mc_operands: list[tuple[str, str]] = field(default_factory=list)


def _mc(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    exe = require_tool("llvm-mc")
    return subprocess.run([exe, f"-triple={TRIPLE}", f"-mcpu={MCPU}", *args], input=stdin,
                          capture_output=True, text=True, check=False)


def _parse_show(lines: list[str]) -> list[Decoded]:
    out: list[Decoded] = []
    for ln in lines:
        m = _ENC_RE.match(ln)
        if m and m.group(1):
            enc = bytes(int(b, 16) for b in m.group(2).split(",") if b.strip())
            out.append(Decoded(" ".join(m.group(1).split()), enc))
            rest = ln[m.end():]
        else:
            rest = ln
        if not out:
            continue
        im = _INST_RE.search(rest)
        if im:
            out[-1].llvm_name = im.group(1)
        for om in _OPND_RE.finditer(rest):
            out[-1].mc_operands.append((om.group(1), om.group(2)))
    return out


def _split(stdout: str, sep: str) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    for ln in stdout.splitlines():
        s = ln.strip()
        if not s or s.startswith(".amdgcn_target") or s.startswith(".text"):
            continue
        if s.startswith(sep) and "; encoding:" in s:
            groups.append([])
            continue
        if s.startswith(";") and not groups[-1]:
            continue  # show-inst tail of the separator
        groups[-1].append(ln)
    return groups


def disassemble(probes: list[bytes], show_inst: bool = True) -> list[list[Decoded]]:
    """Disassemble each probe; returns per probe the list of decoded instructions (empty
    when LLVM reports an invalid encoding)."""
    lines = []
    for p in probes:
        lines.append(",".join(f"0x{b:02x}" for b in p))
        lines.append(",".join(f"0x{b:02x}" for b in _SEP_BYTES))
    args = ["--disassemble", "-show-encoding"] + (["-show-inst"] if show_inst else [])
    r = _mc(args, "\n".join(lines) + "\n")
    groups = _split(r.stdout, _SEP_TEXT)
    res = [_parse_show(g) for g in groups[: len(probes)]]
    if len(res) != len(probes):
        raise RuntimeError(f"llvm-mc output out of step: {len(res)} groups for {len(probes)} probes")
    return res


@dataclass
class Assembled:
    source: str
    text: str | None = None  # LLVM's printed form
    encoding: bytes | None = None
    error: str | None = None
    llvm_name: str = ""
    mc_operands: list[tuple[str, str]] = field(default_factory=list)


_ERR_RE = re.compile(r"^<stdin>:(\d+):(\d+): error: (.*)$")


def assemble(sources: list[str], show_inst: bool = False) -> list[Assembled]:
    """Assemble each single-instruction line; per line its text+bytes or its error."""
    lines = []
    for s in sources:
        lines.append(s)
        lines.append(_SEP_TEXT)
    args = ["-show-encoding"] + (["-show-inst"] if show_inst else [])
    r = _mc(args, "\n".join(lines) + "\n")
    errors: dict[int, str] = {}
    for ln in r.stderr.splitlines():
        m = _ERR_RE.match(ln)
        if m:
            errors.setdefault(int(m.group(1)), m.group(3))
    groups = _split(r.stdout, _SEP_TEXT)
    out: list[Assembled] = []
    for i, s in enumerate(sources):
        a = Assembled(s)
        err = errors.get(2 * i + 1)
        if err is not None:
            a.error = err
        else:
            g = _parse_show(groups[i]) if i < len(groups) else []
            if len(g) == 1:
                a.text, a.encoding = g[0].text, g[0].encoding
                a.llvm_name, a.mc_operands = g[0].llvm_name, g[0].mc_operands
            else:
                a.error = f"unexpected llvm-mc output: {g!r}"
        out.append(a)
    return out

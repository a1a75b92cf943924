"""Probing LLVM 22 in big batches: the reusable part of the ISA-table generator.

* ``disassemble(probes)``: one ``llvm-mc --disassemble -show-encoding -show-inst`` run over
  many byte strings; returns, per probe, what LLVM decoded at the probe's first byte
  (``Decoded``: text, mnemonic, operands, modifiers, LLVM opcode name, size) or None.
* ``assemble(lines)``: one ``llvm-mc -show-encoding`` run; per line the bytes or the error.
* ``word(enc, **fields)``: build an encoding's bytes from field values (sentinels).
* ``split_text(text)``: mnemonic, operand strings and modifier strings as LLVM prints them.
* ``reg_of(text)``: (file, index, dwords) of a printed register, else None.

Each probe is followed by a filler literal ``LIT``, separators and a numbered marker, so
an instruction that reads a trailing literal finds one and outputs map back to probes by
marker (LLVM re-encodes what it prints, so printed bytes cannot be used to align).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

from gcnforge.isa.encodings import ENCODINGS
from gcnforge.llvm_tools import require_tool

TRIPLE = "amdgcn-amd-amdhsa"
MCPU = "gfx942"  # the target probed; ``python -m tools.isa_gen --mcpu`` sets it before generating
LIT = 0xBF80_1234  # literal filler: decodes as "s_nop 0x1234" when not consumed as a literal
SEP = 0xBF80_0000  # "s_nop 0" separator


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str  # whole instruction text, single-spaced
    mnemonic: str
    operands: tuple[str, ...]
    modifiers: tuple[str, ...]
    llvm_name: str
    size: int
    encoding: bytes


def _run(args: list[str], text: str) -> tuple[str, str]:
    out, err, _ = _run_rc(args, text)
    return out, err


def _run_rc(args: list[str], text: str) -> tuple[str, str, int]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = subprocess.run([require_tool("llvm-mc"), *args, path], capture_output=True, text=True)
        return p.stdout, p.stderr, p.returncode
    finally:
        os.unlink(path)


# Probes on which llvm-mc crashed (LLVM 22 bug: ``-show-encoding`` segfaults re-encoding some
# decoded MFMAs with a misaligned AGPR tuple, on gfx942 and gfx950 alike:
#   echo 0x27,0x8a,0xc1,0xd3,0xc4,0x8c,0x1b,0xee | llvm-mc --disassemble \
#        -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding      -> exit 139
# without it, such a probe's whole batch was read as "not decoded").
CRASHED: list[bytes] = []


def word(enc: str, **fields: int) -> bytes:
    """Bytes of encoding ``enc`` with ``fields`` set (values are raw field bits)."""
    e = ENCODINGS[enc]
    w = e.match_value
    for name, v in fields.items():
        f = e.fields[name]
        w = (w & ~f.mask) | ((v & ((1 << f.width) - 1)) << f.lo)
    return w.to_bytes(e.size, "little")


def split_text(text: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Split LLVM's printed instruction into (mnemonic, operands, trailing modifiers).
    Operands are ``", "``-separated at bracket depth 0; the last segment's extra
    space-separated words are modifiers (a caller that knows an operand contains spaces,
    like ``vmcnt(0) lgkmcnt(0)``, re-joins them)."""
    mnem, _, rest = text.strip().partition(" ")
    if not rest:
        return mnem, (), ()
    segs: list[str] = []
    depth = 0
    cur = ""
    for c in rest:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            segs.append(cur.strip())
            cur = ""
        else:
            cur += c
    segs.append(cur.strip())
    words: list[str] = []
    depth = 0
    cur = ""
    for c in segs[-1]:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == " " and depth == 0:
            if cur:
                words.append(cur)
            cur = ""
        else:
            cur += c
    if cur:
        words.append(cur)
    if len(segs) == 1 and not words:
        return mnem, (), ()
    return mnem, tuple(segs[:-1]) + (words[0],), tuple(words[1:])


_REG_RE = re.compile(r"^(s|v|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$")


def reg_of(text: str) -> tuple[str, int, int] | None:
    m = _REG_RE.match(text)
    if not m:
        return None
    if m.group(2) is not None:
        return m.group(1), int(m.group(2)), 1
    lo, hi = int(m.group(3)), int(m.group(4))
    return m.group(1), lo, hi - lo + 1


_ENC_RE = re.compile(r"^\t(.*?)\s*; encoding: \[([^\]]*)\]\s*$")
_INST_RE = re.compile(r"<MCInst #\d+ (\w+)")


MARK_BASE = 0xB000_0000 | (101 << 16)  # "s_movk_i32 s101, N": the probe-N end marker


def _entries(out: str) -> list[tuple[str, bytes, str]]:
    entries: list[tuple[str, bytes, str]] = []
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        m = _ENC_RE.match(lines[i])
        if m:
            enc = bytes(int(x, 16) for x in m.group(2).split(",") if x.strip())
            name = ""
            j = i + 1
            while j < len(lines) and not _ENC_RE.match(lines[j]):
                mi = _INST_RE.search(lines[j])
                if mi and not name:
                    name = mi.group(1)
                j += 1
            entries.append((" ".join(m.group(1).split()), enc, name))
            i = j
        else:
            i += 1
    return entries


_WARN_RE = re.compile(r":(\d+):(\d+): warning: invalid instruction encoding")


def disassemble(probes: list[bytes], mcpu: str | None = None) -> list[Decoded | None]:
    """Decode each probe (bytes of one instruction, without literal) with llvm-mc.

    Layout per probe (one input line each): probe, LIT, 3 x SEP, marker. Garbage decoded
    from a probe's tail (at most 12 bytes) cannot reach the marker, so the output groups
    between markers map 1:1 to probes; a probe whose first byte LLVM rejected is reported
    in stderr at column 1 of its line (then the result is None)."""
    mcpu = mcpu or MCPU
    res: list[Decoded | None] = []
    for b0 in range(0, len(probes), 60000):
        res.extend(_disassemble_batch(probes[b0:b0 + 60000], mcpu))
    return res


def _disassemble_batch(probes: list[bytes], mcpu: str) -> list[Decoded | None]:
    lines = []
    tail = LIT.to_bytes(4, "little") + SEP.to_bytes(4, "little") * 3
    for i, p in enumerate(probes):
        b = p + tail + (MARK_BASE | i).to_bytes(4, "little")
        lines.append(",".join(f"0x{x:02x}" for x in b))
    out, err, rc = _run_rc(["--disassemble", f"-triple={TRIPLE}", f"-mcpu={mcpu}", "-show-encoding", "-show-inst"],
                           "\n".join(lines) + "\n")
    if rc < 0 or "Stack dump:" in err:  # crashed: find the probe(s) by halving the batch
        if len(probes) == 1:
            CRASHED.append(probes[0])
            return [None]
        half = len(probes) // 2
        return _disassemble_batch(probes[:half], mcpu) + _disassemble_batch(probes[half:], mcpu)
    bad = set()
    for ln in err.splitlines():
        m = _WARN_RE.search(ln)
        if m and m.group(2) == "1":
            bad.add(int(m.group(1)) - 1)
    groups: list[list[tuple[str, bytes, str]]] = [[]]
    for e in _entries(out):
        # a marker is "s_movk_i32 s101, <next probe index>"; checking the index keeps a
        # probe that happens to be an s_movk_i32 s101 from splitting the groups
        if e[2] == "S_MOVK_I32_vi" and e[0] == f"s_movk_i32 s101, 0x{len(groups) - 1:x}":
            groups.append([])
        else:
            groups[-1].append(e)
    res: list[Decoded | None] = []
    for i in range(len(probes)):
        g = groups[i] if i < len(groups) else []
        if i in bad or not g:
            res.append(None)
            continue
        t, enc, name = g[0]
        mnem, ops, mods = split_text(t)
        res.append(Decoded(t, mnem, ops, mods, name, len(enc), enc))
    return res


_ERR_RE = re.compile(r":(\d+):(\d+): error: (.*)$")


def assemble(lines: list[str], mcpu: str | None = None) -> list[tuple[bytes | None, str | None]]:
    """Assemble each line (one instruction each) with llvm-mc -show-encoding."""
    src = "\n".join(lines) + "\n"
    out, err = _run([f"-triple={TRIPLE}", f"-mcpu={mcpu or MCPU}", "-show-encoding"], src)
    errors: dict[int, str] = {}
    for ln in err.splitlines():
        m = _ERR_RE.search(ln)
        if m and "error" in ln:
            errors.setdefault(int(m.group(1)), m.group(3))
    encs = []
    for ln in out.splitlines():
        m = _ENC_RE.match(ln)
        if m:
            encs.append((" ".join(m.group(1).split()),
                         bytes(int(x, 16) for x in m.group(2).split(",") if x.strip())))
    res: list[tuple[bytes | None, str | None]] = []
    k = 0
    for n, line in enumerate(lines, 1):
        if n in errors or not line.strip():
            res.append((None, errors.get(n, "empty")))
        else:
            res.append((encs[k][1], None) if k < len(encs) else (None, "no output"))
            k += 1
    return res


def assemble_text(lines: list[str], mcpu: str | None = None) -> list[tuple[str | None, bytes | None, str | None]]:
    """Like ``assemble`` but also returns LLVM's echoed (canonical) text per line."""
    src = "\n".join(lines) + "\n"
    out, err = _run([f"-triple={TRIPLE}", f"-mcpu={mcpu or MCPU}", "-show-encoding"], src)
    errors: dict[int, str] = {}
    for ln in err.splitlines():
        m = _ERR_RE.search(ln)
        if m:
            errors.setdefault(int(m.group(1)), m.group(3))
    encs = []
    for ln in out.splitlines():
        m = _ENC_RE.match(ln)
        if m:
            encs.append((" ".join(m.group(1).split()),
                         bytes(int(x, 16) for x in m.group(2).split(",") if x.strip())))
    res = []
    k = 0
    for n, line in enumerate(lines, 1):
        if n in errors or not line.strip():
            res.append((None, None, errors.get(n, "empty")))
        else:
            res.append((encs[k][0], encs[k][1], None) if k < len(encs) else (None, None, "no output"))
            k += 1
    return res

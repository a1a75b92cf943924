"""Text-level helpers on top of the instruction codec: assemble a whole ``.s`` listing
(labels, comments, branches) into per-line encodings like ``llvm-mc -show-encoding``, and
print disassembly in ``llvm-objdump -d`` layout.

Directives (``.text``, ``.amdhsa_kernel`` blocks, ...) are passed through untouched here;
code-object output is ``gcnforge.binary.assemble``'s job."""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from gcnforge.asm import decode, disassemble, parse_instruction
from gcnforge.asm.core import ParsedInst
from gcnforge.diagnostics import MAX_ERRORS, Diagnostic, SourceLoc, collected
from gcnforge.isa import table

MAX_LINES = 5_000_000
_HEX = tuple(f"0x{b:02x}" for b in range(256))  # bound on input size the listing assembler accepts


@dataclass
class Line:
    loc: SourceLoc
    source: str  # the instruction text as written (comment and label removed)
    parsed: ParsedInst | None  # None for directives
    pc: int
    data: bytes = b""
    label: bool = False  # a label definition ("name:"; ``source`` is the name)


def _strip_comment(s: str) -> str:
    for marker in ("//", ";"):
        i = s.find(marker)
        if i >= 0:
            s = s[:i]
    return s


_LABEL = re.compile(r"\s*([A-Za-z_.$][\w.$@]*):(?!:)")


def _with_target(fn):
    """Adds ``target=`` (a processor or target id; default: the active table) to ``fn``."""
    @functools.wraps(fn)
    def run(*args, target: str | None = None, **kwargs):
        with table.use_target(target):
            return fn(*args, **kwargs)
    return run


@_with_target
def assemble_lines(text: str, filename: str = "<asm>") -> list[Line]:
    """Parse every instruction (two passes: sizes and labels, then encodings)."""
    lines: list[Line] = []
    labels: dict[str, int] = {}
    pc = 0
    errors: list[Diagnostic] = []
    in_metadata = False  # the .amdgpu_metadata YAML block is data, not instructions
    parsed: dict[str, ParsedInst] = {}  # label-free instructions: the same text parses the same
    for n, raw in enumerate(text.splitlines(), 1):
        if n > MAX_LINES:
            raise Diagnostic(f"input too large (more than {MAX_LINES} lines)", SourceLoc(filename, n, 1))
        word = raw.split(None, 1)[0] if raw.strip() else ""
        if in_metadata or word == ".amdgpu_metadata":
            in_metadata = word != ".end_amdgpu_metadata"
            if raw.strip():
                lines.append(Line(SourceLoc(filename, n, 1), raw.rstrip() if in_metadata else word, None, pc))
            continue
        body = _strip_comment(raw)
        col0 = 1
        # leading labels "name:" (several may share a line)
        while ":" in body:
            m = _LABEL.match(body)
            if m is None:
                break
            name = m.group(1)
            lcol = col0 + m.start(1)
            if name in labels:
                errors.append(Diagnostic(f"label '{name}' defined twice", SourceLoc(filename, n, lcol)))
            labels[name] = pc
            lines.append(Line(SourceLoc(filename, n, lcol), name, None, pc, label=True))
            col0 += m.end()
            body = body[m.end():]
        if not body.strip():
            continue
        lead = len(body) - len(body.lstrip())
        start_col = col0 + lead
        src = body.strip()
        loc = SourceLoc(filename, n, start_col)
        if src.startswith("."):
            lines.append(Line(loc, src, None, pc))
            continue
        pi = parsed.get(src)
        if pi is None:
            try:
                pi = parse_instruction(src, loc)
            except Diagnostic as d:
                errors.append(d)
                if len(errors) >= MAX_ERRORS:
                    break
                continue
            if not pi.label_refs:
                parsed[src] = pi
        lines.append(Line(loc, src, pi, pc))
        pc += pi.size
    if errors:
        raise collected(errors)

    def resolve(name: str) -> int:
        return labels[name]

    for ln in lines:
        if ln.parsed is not None:
            try:
                ln.data = ln.parsed.encode(ln.pc, resolve)
            except Diagnostic as d:  # an undefined label, a branch out of range: report every one
                errors.append(d)
    if errors:
        raise collected(errors)
    return lines


@_with_target
def show_encoding(text: str, filename: str = "<asm>") -> str:
    """``llvm-mc -show-encoding``-style listing: canonical text and bytes per instruction, each
    label on its own line at column 0 (where llvm-mc prints it), directives as written."""
    out = []
    done: dict[int, str] = {}  # id(shared label-free ParsedInst) -> its listing line
    for ln in assemble_lines(text, filename):
        if ln.label:  # at column 0, as llvm-mc prints a label
            out.append(f"{ln.source}:")
            continue
        if ln.parsed is None:
            out.append(f"\t{ln.source}")
            continue
        if ln.parsed.label_refs:
            shown = " ".join(ln.source.split())
        else:
            row = done.get(id(ln.parsed))
            if row is not None:  # a repeated line: its text and bytes do not depend on the address
                out.append(row)
                continue
            # branch offsets echo as signed numbers (the assembler's view), not the raw field
            pc = ln.pc
            shown = decode(ln.data).text(pc, lambda a: str((a - pc - 4) // 4))
        enc = ",".join(map(_HEX.__getitem__, ln.data))
        out.append(f"\t{shown:<39} ; encoding: [{enc}]")
        if not ln.parsed.label_refs:
            done[id(ln.parsed)] = out[-1]
    return "\n".join(out) + ("\n" if out else "")


def _words(data: bytes) -> str:
    padded = data + bytes(-len(data) % 4)
    return " ".join(f"{int.from_bytes(padded[i:i + 4], 'little'):08X}" for i in range(0, len(padded), 4))


@_with_target
def objdump_lines(code: bytes, base: int, symbols: list[tuple[int, str]] | None = None) -> list[str]:
    """Instructions in llvm-objdump -d layout; ``symbols`` (address, name) sorted by address
    start new blocks and symbolize branch targets (``<name+0x..>``)."""
    syms = sorted(symbols or [])
    addrs = [a for a, _ in syms]
    starts = {a: nm for a, nm in syms}

    def sym_of(addr: int) -> str | None:
        i = bisect.bisect_right(addrs, addr) - 1
        if i < 0:
            return None
        a, nm = syms[i]
        return f"<{nm}+0x{addr - a:x}>" if addr != a else f"<{nm}>"

    out: list[str] = []
    for pc, di in disassemble(code, base):
        if pc in starts:
            if out:
                out.append("")
            out.append(f"{pc:016x} <{starts[pc]}>:")
        text = di.text(pc)
        comment = f"// {pc:012X}: {_words(code[pc - base:pc - base + di.size])}"
        if di.inst is not None and any(o.kind.value == "label" for o in di.inst.operands):
            for o in di.operands:
                if o.value is not None and o.name == "simm16":
                    s = sym_of(pc + 4 + o.value * 4)
                    if s:
                        comment += f" {s}"
        out.append(f"\t{text:<59}{comment}")  # llvm-objdump: text padded to 59 columns, no gap when longer
    return out

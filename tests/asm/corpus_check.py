"""Shared driver for the LLVM corpus comparison (used by tests and by ``python -m``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gcnforge.asm import decode, parse_instruction
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.isa import table
from tools.isa_gen import common


@dataclass
class Report:
    forms: int = 0
    llvm_ok: int = 0
    bytes_mismatch: list = field(default_factory=list)
    accept_mismatch: list = field(default_factory=list)
    text_mismatch: list = field(default_factory=list)

    def problems(self) -> list:
        return self.bytes_mismatch + self.accept_mismatch + self.text_mismatch


def norm(t: str) -> str:
    return " ".join(t.split())


def check(lines: list[str], mcpu: str = "gfx942") -> Report:
    with table.use_target(mcpu):
        return _check(lines, mcpu)


def _check(lines: list[str], mcpu: str) -> Report:
    rep = Report(forms=len(lines))
    llvm = common.assemble(lines, mcpu)
    ok_bytes = []
    for n, (line, (lb, lerr)) in enumerate(zip(lines, llvm), 1):
        try:
            ours = parse_instruction(line, SourceLoc("<corpus>", n)).encode(0)
            oerr = None
        except Diagnostic as d:
            ours, oerr = None, str(d)
        if lb is None and ours is None:
            continue
        if lb is None or ours is None:
            rep.accept_mismatch.append((line, f"llvm: {lerr or 'ok'}", f"gcnforge: {oerr or 'ok'}"))
            continue
        rep.llvm_ok += 1
        if lb != ours:
            rep.bytes_mismatch.append((line, lb.hex(), ours.hex()))
            continue
        ok_bytes.append((line, lb))
    dis = common.disassemble([b for _, b in ok_bytes], mcpu)
    for (line, b), d in zip(ok_bytes, dis):
        want = d.text if d is not None else None
        got = decode(b).text()
        if want is None or norm(want) != norm(got):
            rep.text_mismatch.append((line, b.hex(), want, got))
    return rep

"""The gfx942 instruction table: loads and merges every ``isa/data/gfx942_*.json`` once
(lazily, cached) into ``Instruction`` records with lookup dicts built up front, so the
assembler and disassembler never scan linearly.

JSON layout (written by ``tools/isa_gen``): ``{"instructions": [ {record}, ... ]}`` where a
record has the ``Instruction`` fields and ``operands`` is a list of ``Operand`` dicts;
enum values are their strings; tuples are lists; defaults may be omitted.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Counter, Encoding, Instruction, Operand, OperandKind, Role

DATA_DIR = Path(__file__).parent / "data"
TARGET = "gfx942"


def operand_from_dict(d: dict) -> Operand:
    return Operand(
        name=d["name"], kind=OperandKind(d["kind"]), field=d.get("field"), dwords=d.get("dwords", 1),
        role=Role(d.get("role", "use")), inline_const=d.get("inline_const", False),
        literal=d.get("literal", False), text=d.get("text"), files=d.get("files", ""),
        optype=d.get("optype", ""), optional=d.get("optional", False),
    )


def instruction_from_dict(d: dict) -> Instruction:
    return Instruction(
        mnemonic=d["mnemonic"], base=d["base"], encoding=d["encoding"], opcode=d["opcode"],
        llvm_name=d.get("llvm_name", ""), operands=tuple(operand_from_dict(o) for o in d.get("operands", ())),
        modifiers=tuple(d.get("modifiers", ())), implicit_uses=tuple(d.get("implicit_uses", ())),
        implicit_defs=tuple(d.get("implicit_defs", ())), counter=tuple(Counter(c) for c in d.get("counter", ())),
        sem=d.get("sem", ""), notes=tuple(d.get("notes", ())), zero_fields=tuple(d.get("zero_fields", ())),
    )


def operand_to_dict(o: Operand) -> dict:
    d: dict = {"name": o.name, "kind": str(o.kind), "field": o.field}
    if o.dwords != 1:
        d["dwords"] = o.dwords
    if o.role != Role.USE:
        d["role"] = str(o.role)
    for k in ("inline_const", "literal", "optional"):
        if getattr(o, k):
            d[k] = True
    for k in ("text", "files", "optype"):
        if getattr(o, k):
            d[k] = getattr(o, k)
    return d


def instruction_to_dict(i: Instruction) -> dict:
    d: dict = {"mnemonic": i.mnemonic, "base": i.base, "encoding": i.encoding, "opcode": i.opcode,
               "llvm_name": i.llvm_name, "operands": [operand_to_dict(o) for o in i.operands]}
    for k in ("modifiers", "implicit_uses", "implicit_defs", "notes", "zero_fields"):
        if getattr(i, k):
            d[k] = list(getattr(i, k))
    if i.counter:
        d["counter"] = [str(c) for c in i.counter]
    if i.sem:
        d["sem"] = i.sem
    return d


class _Table:
    def __init__(self) -> None:
        insts: list[Instruction] = []
        for path in sorted(DATA_DIR.glob(f"{TARGET}_*.json")):
            data = json.loads(path.read_text())
            insts.extend(instruction_from_dict(d) for d in data["instructions"])
        self.instructions = tuple(insts)
        self.by_mnemonic: dict[str, Instruction] = {}
        self.variants: dict[str, list[Instruction]] = {}
        self.by_opcode: dict[tuple[str, int], Instruction] = {}
        for i in insts:
            self.by_mnemonic.setdefault(i.mnemonic, i)
            self.variants.setdefault(i.base, []).append(i)
            self.by_opcode.setdefault((i.encoding, i.opcode), i)


@cache
def _table() -> _Table:
    return _Table()


def reload() -> None:
    """Forget the cached table (after regenerating the JSON in-process)."""
    _table.cache_clear()


def instructions() -> tuple[Instruction, ...]:
    return _table().instructions


def by_mnemonic(m: str) -> Instruction | None:
    return _table().by_mnemonic.get(m)


def variants(base: str) -> tuple[Instruction, ...]:
    return tuple(_table().variants.get(base, ()))


def by_opcode(encoding: str, opcode: int) -> Instruction | None:
    return _table().by_opcode.get((encoding, opcode))


def encodings() -> dict[str, Encoding]:
    return ENCODINGS


def mnemonics() -> tuple[str, ...]:
    return tuple(_table().by_mnemonic)

"""Decoded machine code as the issue model's input: ``issue.Item`` per instruction and
straight-line ``Block``s, classified by the ISA table's ``Instruction.sem`` (never by mnemonic
patterns). Used by the emulator's timing mode (``item_from_decoded`` on what it executes)
and by ``gcnforge.cli.model_input``, which reads ``.s`` text, code objects and IR into blocks
(it needs ``asm``, ``binary`` and ``dialect``; this package depends only on ``isa``).

* ``item_from_decoded``: registers are keys ``("v", 7)`` per dword (AGPRs ``"a"``,
  SGPRs ``"s"``), implicit registers (vcc, exec, scc, m0) by name; ``s_waitcnt`` and
  ``s_nop`` decoded from their immediates.
* ``split_blocks``: basic blocks of decoded records, each with whether it branches back to
  its own start (a loop body).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from gcnforge.isa import mfma as isa_mfma
from gcnforge.perfmodel.issue import Item, decode_waitcnt

_REG_FILES = ("v", "s", "a")


class Block(NamedTuple):
    """A straight-line block; ``iteration`` is set for loop bodies (see ``simulate_loop``)."""

    name: str
    items: list[Item]
    iteration: Callable[[int], list[Item]] | None = None

    def report(self, prof=None):
        """The issue model's report; memory latencies from the device profile ``prof``."""
        from gcnforge.perfmodel.issue import simulate, simulate_loop

        if self.iteration is not None:
            return simulate_loop(self.iteration, self.name, prof=prof)
        return simulate(self.items, self.name, prof)


def _data_dwords(inst, by_name: dict) -> int:
    for n in ("vdst", "vdata", "sdata", "sdst"):
        if n in by_name:
            return max(1, by_name[n])
    return 1


def item_from_decoded(d) -> Item | None:
    inst = d.inst
    if inst is None:
        return None
    roles = {o.name: str(o.role) for o in inst.operands}
    reads: list = []
    writes: list = []
    widths: dict[str, int] = {}
    imm = None
    for ov in d.operands:
        if ov.file in _REG_FILES:
            keys = [(ov.file, ov.index + k) for k in range(ov.dwords)]
            role = roles.get(ov.name, "use")
            if role in ("use", "defuse"):
                reads += keys
            if role in ("def", "defuse"):
                writes += keys
            widths[ov.name] = ov.dwords
        elif ov.file is not None:  # vcc, exec, m0 ... named
            (writes if roles.get(ov.name) == "def" else reads).append(("x", ov.file))
        elif ov.name == "simm16":
            imm = ov.value
    reads += [("x", r) for r in inst.implicit_uses]
    writes += [("x", r) for r in inst.implicit_defs]
    it = Item(d.text(), inst.sem or "valu", inst.base, reads, writes, _data_dwords(inst, widths))
    if inst.sem == "waitcnt" and inst.base == "s_waitcnt" and imm is not None:
        it.waitcnt = decode_waitcnt(imm)
    if inst.base == "s_nop" and imm is not None:
        it.nop = imm & 0xF
    if inst.sem == "mfma":
        it.formats = isa_mfma.formats_of(isa_mfma.base_name(inst.base), d.modifiers)
    return it


def branch_targets(pc: int, d) -> set[int]:
    """Byte addresses a branch may jump to: the decoder's target, else the SOPP simm16
    (signed dwords relative to the next instruction, ISA guide 4.5)."""
    if d.inst is None or d.inst.sem != "branch":
        return set()
    out = set()
    for ov in d.operands:
        if getattr(ov, "target", None) is not None:
            out.add(ov.target)
        elif ov.name == "simm16" and ov.value is not None:
            v = ov.value - 0x10000 if ov.value >= 0x8000 else ov.value
            out.add(pc + 4 + 4 * v)
    return out


def split_blocks(decoded: Iterable[tuple[int, object]], targets: set[int] = frozenset()) -> list[tuple[list[Item], bool]]:
    """Basic blocks, each with whether it branches back to its own start (a loop body)."""
    blocks: list[tuple[list[Item], int, list]] = []
    cur: list[Item] = []
    start = 0
    for pc, d in decoded:
        if pc in targets and cur:
            blocks.append((cur, start, [False]))
            cur = []
        if not cur:
            start = pc
        it = item_from_decoded(d)
        if it is None:
            continue
        cur.append(it)
        if it.sem == "branch" or it.base == "s_endpgm":
            loop = start in branch_targets(pc, d)
            blocks.append((cur, start, [loop]))
            cur = []
    if cur:
        blocks.append((cur, start, [False]))
    return [(b, flag[0]) for b, _, flag in blocks]

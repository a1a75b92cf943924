"""The register allocator's own small program model, independent of the dialect.

The allocator, its liveness analysis and the checker work over this model so they can be
tested by themselves (property tests build random programs directly); the dialect binding
(``regalloc.bind``) translates an ``amdgcn.kernel`` into it and writes the answer back.

* ``Group``  one allocation unit: a range of ``width`` consecutive registers of one file
  (``v``, ``a``, ``s``) whose first index must be a multiple of ``align``; optionally pinned
  to a physical first index (an ``amdgcn.alloca`` with a register, an ABI preload).
  Values that must form one range (``make_range`` parts, ``split_range`` results, an MFMA
  accumulator written in place) are one group addressed at different offsets.
* ``Ref``    a register operand: ``width`` registers of a group starting at ``offset``.
* ``Op``     one instruction: the refs it reads (``uses``) and writes (``defs``). An
  ``early_clobber`` op may not place a def on a register one of its uses reads (MFMA
  results must not partially overlap their sources).
* ``Block``  a basic block: ops in order and successor block indices.
* ``Program`` blocks (entry first) and the refs defined on entry (preloaded registers).

Registers are counted in dwords ("units"); group ``g``'s units are numbered
``g.first_unit .. g.first_unit + width - 1`` so live sets are Python int bitmasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

FILES = ("v", "a", "s")


@dataclass(eq=False)
class Group:
    file: str
    width: int
    align: int = 1
    pin: int | None = None
    name: str = ""  # what the user calls it (%x), for diagnostics
    origin: str = ""  # the op that defines it, for diagnostics
    loc: object | None = None  # where it was defined (an op / SourceLoc), for diagnostics
    first_unit: int = -1  # assigned by Program.number()
    reg: int | None = None  # the allocation's answer: first physical index
    want: int | None = None  # placement hint (compaction's layout): this first register if it is free

    def __repr__(self) -> str:
        where = f"@{self.reg}" if self.reg is not None else (f"pin {self.pin}" if self.pin is not None else "")
        return f"<{self.name or 'group'} {self.file}x{self.width} {where}>"

    def describe(self) -> str:
        rng = f"{self.file}[{self.width}]" if self.width > 1 else self.file
        return f"{self.name or '<unnamed>'} ({rng}) defined by {self.origin or '?'}"


@dataclass(frozen=True, eq=False)
class Ref:
    group: Group
    offset: int = 0
    width: int = -1  # -1: the whole group

    @property
    def w(self) -> int:
        return self.group.width - self.offset if self.width < 0 else self.width

    def mask(self) -> int:
        return ((1 << self.w) - 1) << (self.group.first_unit + self.offset)


@dataclass(eq=False)
class Op:
    defs: tuple[Ref, ...] = ()
    uses: tuple[Ref, ...] = ()
    text: str = ""
    early_clobber: bool = False
    loc: object | None = None
    copy_src: Ref | None = None  # a register copy: its def may share the source's registers
    tied: tuple[Ref, ...] = ()  # refs read and written through one operand (not renamable apart)
    origin: object | None = None  # the dialect op it stands for (the binding's, for splitting)
    def_args: tuple[int, ...] = ()  # per def / use: the operand index in ``origin``
    use_args: tuple[int, ...] = ()
    # a parallel copy (compaction's): defs[i] = uses[i] for every i at once (all reads happen
    # before any write, so two values may exchange registers); wants[i]: the register
    # compaction's layout gives defs[i]'s group (a hint)
    parallel: bool = False
    wants: tuple[int | None, ...] = ()


@dataclass(eq=False)
class Block:
    ops: list[Op] = field(default_factory=list)
    succs: list[int] = field(default_factory=list)
    name: str = ""


@dataclass(eq=False)
class Program:
    blocks: list[Block]
    entry_defs: tuple[Ref, ...] = ()
    groups: list[Group] = field(default_factory=list)

    def number(self) -> None:
        """Collect the groups (in first-appearance order) and give each its unit numbers."""
        seen: dict[int, Group] = {}
        order: list[Group] = []

        def add(g: Group) -> None:
            if id(g) not in seen:
                seen[id(g)] = g
                order.append(g)

        for g in self.groups:
            add(g)
        for r in self.entry_defs:
            add(r.group)
        for b in self.blocks:
            for op in b.ops:
                for r in (*op.defs, *op.uses):
                    add(r.group)
        unit = 0
        for g in order:
            g.first_unit = unit
            unit += g.width
        self.groups = order
        self.nunits = unit
        self.unit_group = [g for g in order for _ in range(g.width)]

    def file_mask(self, file: str) -> int:
        m = 0
        for g in self.groups:
            if g.file == file:
                m |= ((1 << g.width) - 1) << g.first_unit
        return m

    def groups_in(self, mask: int) -> list[Group]:
        """The groups with at least one unit in ``mask`` (in unit order)."""
        out: list[Group] = []
        last = None
        while mask:
            low = mask & -mask
            g = self.unit_group[low.bit_length() - 1]
            if g is not last:
                out.append(g)
                last = g
            # skip the rest of this group's units at once
            mask &= ~(((1 << g.width) - 1) << g.first_unit)
        return out

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

FILES = ("v", "a", "s")


class Group:
    """One value's registers: ``width`` consecutive registers of ``file``, aligned to
    ``align``, optionally pinned. (Plain slotted classes here and below, compared by identity:
    ``@dataclass`` generated and compiled code for each at import, ~0.5 ms a class of a small
    compile's start-up, issue 15.)"""

    __slots__ = ("file", "width", "align", "pin", "name", "origin", "loc", "first_unit", "reg", "want")

    def __init__(self, file: str, width: int, align: int = 1, pin: int | None = None, name: str = "",
                 origin: str = "", loc: object | None = None, first_unit: int = -1, reg: int | None = None,
                 want: int | None = None):
        self.file = file
        self.width = width
        self.align = align
        self.pin = pin
        self.name = name  # what the user calls it (%x), for diagnostics
        self.origin = origin  # the op that defines it, for diagnostics
        self.loc = loc  # where it was defined (an op / SourceLoc), for diagnostics
        self.first_unit = first_unit  # assigned by Program.number()
        self.reg = reg  # the allocation's answer: first physical index
        self.want = want  # placement hint (compaction's layout): this first register if it is free

    def __repr__(self) -> str:
        where = f"@{self.reg}" if self.reg is not None else (f"pin {self.pin}" if self.pin is not None else "")
        return f"<{self.name or 'group'} {self.file}x{self.width} {where}>"

    def describe(self) -> str:
        rng = f"{self.file}[{self.width}]" if self.width > 1 else self.file
        return f"{self.name or '<unnamed>'} ({rng}) defined by {self.origin or '?'}"


class Ref:
    """Registers ``offset`` .. ``offset + width`` of ``group`` (width -1: to its end); not
    changed once made."""

    __slots__ = ("group", "offset", "width")

    def __init__(self, group: Group, offset: int = 0, width: int = -1):
        self.group = group
        self.offset = offset
        self.width = width  # -1: the whole group

    def __repr__(self) -> str:
        return f"Ref({self.group!r}, {self.offset}, {self.width})"

    @property
    def w(self) -> int:
        return self.group.width - self.offset if self.width < 0 else self.width

    def mask(self) -> int:
        return ((1 << self.w) - 1) << (self.group.first_unit + self.offset)


class Op:
    __slots__ = ("defs", "uses", "text", "early_clobber", "loc", "copy_src", "tied", "origin", "def_args",
                 "use_args", "parallel", "wants")

    def __init__(self, defs: tuple[Ref, ...] = (), uses: tuple[Ref, ...] = (), text: str = "",
                 early_clobber: bool = False, loc: object | None = None, copy_src: Ref | None = None,
                 tied: tuple[Ref, ...] = (), origin: object | None = None, def_args: tuple[int, ...] = (),
                 use_args: tuple[int, ...] = (), parallel: bool = False, wants: tuple[int | None, ...] = ()):
        self.defs = defs
        self.uses = uses
        self.text = text
        self.early_clobber = early_clobber
        self.loc = loc
        self.copy_src = copy_src  # a register copy: its def may share the source's registers
        self.tied = tied  # refs read and written through one operand (not renamable apart)
        self.origin = origin  # the dialect op it stands for (the binding's, for splitting)
        self.def_args = def_args  # per def / use: the operand index in ``origin``
        self.use_args = use_args
        # a parallel copy (compaction's): defs[i] = uses[i] for every i at once (all reads happen
        # before any write, so two values may exchange registers); wants[i]: the register
        # compaction's layout gives defs[i]'s group (a hint)
        self.parallel = parallel
        self.wants = wants

    def __repr__(self) -> str:
        return f"Op({self.text!r}, defs={self.defs!r}, uses={self.uses!r})"


class Block:
    __slots__ = ("ops", "succs", "name")

    def __init__(self, ops: list[Op] | None = None, succs: list[int] | None = None, name: str = ""):
        self.ops = [] if ops is None else ops
        self.succs = [] if succs is None else succs
        self.name = name

    def __repr__(self) -> str:
        return f"Block({self.name!r}, {len(self.ops)} ops, succs={self.succs!r})"


class Program:
    __slots__ = ("blocks", "entry_defs", "groups", "nunits", "unit_group")  # the last two: number()

    def __init__(self, blocks: list[Block], entry_defs: tuple[Ref, ...] = (), groups: list[Group] | None = None):
        self.blocks = blocks
        self.entry_defs = entry_defs
        self.groups = [] if groups is None else groups

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

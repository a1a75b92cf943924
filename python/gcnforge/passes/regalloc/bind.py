"""Binding of the allocator core to the ``amdgcn`` dialect.

An ``amdgcn.kernel`` body becomes a ``model.Program``:

* every ``amdgcn.alloca`` is a storage node (``!amdgcn.vgpr`` a fresh value's placeholder,
  ``!amdgcn.vgpr<?>`` storage the allocator places, ``!amdgcn.vgpr<5>`` a pin);
* an instruction's results are its destination operands' storage (destination passing:
  the op writes the register in place); ``defuse`` slots are read and written;
* ``amdgcn.make_range`` joins its parts into one node at consecutive offsets (they are
  allocated together); ``amdgcn.split_range`` results are sub-ranges of their range;
* storage nodes are joined with a union-find carrying offsets, so a range, its parts and
  every value written into them resolve to (root, offset, width).

Copies (``v_mov_b32``, ``s_mov_b32``, ``s_mov_b64``, ``v_accvgpr_mov_b32``) whose source
and fresh destination do not interfere are coalesced: the destination joins the source's
node and the move is erased.

Pre: ABI ops lowered (``amdgcn-lower-abi``), functions inlined. Post (``apply``): every
register-typed value has an allocated type; moves coalesced away are gone.
"""

from __future__ import annotations

from functools import cache

from xdsl.ir import Block, Operation, SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.dialect.structure_ops import (
    AllocaOp,
    BlockIdOp,
    BranchOp,
    CallOp,
    LoadArgOp,
    MakeRangeOp,
    SplitRangeOp,
    ThreadIdOp,
)
from gcnforge.dialect.types import RegisterType
from gcnforge.isa.moves import MOVES
from gcnforge.passes.regalloc.model import Block as MBlock
from gcnforge.passes.regalloc.model import Group, Op, Program, Ref

# the register-to-register move per (file, dwords) that inserted copies use (isa.moves)
COPY_MNEMONIC = {(f, w): m for (f, src, w), m in MOVES.items() if f == src}


def _data_only(op: InstOp) -> bool:
    """A buffer atomic without sc0 returns nothing: its vdata (a ``defuse`` slot) is only the
    data it sends, read like any source, even when it is an earlier instruction's result
    (the builder allows that form; without the read the value looked dead at its producer
    and the allocator gave its register to the next value: the atomic sent an address)."""
    return op.mnemonic.startswith("buffer_atomic") and not op.modifiers.get("sc0")


@cache
def copies() -> frozenset[str]:
    """The moves the pass coalesces: isa.moves' same-file moves in each of their plain
    encodings (e32 and e64, not DPP or SDWA: those read another lane or part of a register)."""
    from gcnforge.isa.table import by_mnemonic, variants

    out = set()
    for m in COPY_MNEMONIC.values():
        out.update(v.mnemonic for v in variants(by_mnemonic(m).base)
                   if not v.encoding.endswith(("_DPP", "_SDWA")))
    return frozenset(out)


def inst_op(mnemonic: str, args: list[SSAValue]) -> InstOp:
    """An instruction op of ``mnemonic``'s family over ``args`` (destinations first)."""
    from gcnforge.dialect.inst_ops import FAMILY_OPS
    from gcnforge.dialect.isa_info import family_of
    from gcnforge.isa.table import by_mnemonic

    inst = by_mnemonic(mnemonic)
    assert inst is not None, mnemonic
    return FAMILY_OPS[family_of(inst)](mnemonic, args)


def copy_op(dst: SSAValue, src: SSAValue) -> InstOp:
    """``dst = src`` for two register values of one file and width (``COPY_MNEMONIC``)."""
    t = src.type
    return inst_op(COPY_MNEMONIC[(t.FILE, t.width)], [dst, src])


class Node:
    """A value's place in the union-find of values that must share registers (a plain
    slotted class, compared by identity, as the model's: see ``model.Group``)."""

    __slots__ = ("file", "width", "align", "pin", "name", "origin", "loc", "parent", "offset", "group", "written")

    def __init__(self, file: str, width: int, align: int, pin: int | None, name: str, origin: str,
                 loc: object | None, parent: Node | None = None, offset: int = 0, group: Group | None = None,
                 written: bool = False):
        self.file = file
        self.width = width
        self.align = align
        self.pin = pin
        self.name = name
        self.origin = origin
        self.loc = loc
        self.parent = parent
        self.offset = offset  # offset of this node inside its parent
        self.group = group
        self.written = written

    def find(self) -> tuple[Node, int]:
        off = 0
        n = self
        while n.parent is not None:
            off += n.offset
            n = n.parent
        return n, off


def _short(op: Operation) -> str:
    m = getattr(op, "mnemonic", None)
    return f"{op.name} {m}" if m else op.name


class _AllocaText:
    """``amdgcn.alloca : <type>`` (a group's origin in diagnostics), printed only when shown:
    printing an xDSL type costs ~10 us and most compiles show none (issue 15)."""

    __slots__ = ("type",)

    def __init__(self, t) -> None:
        self.type = t

    def __str__(self) -> str:
        return f"amdgcn.alloca : {self.type}"


class Binding:
    """Maps the kernel's register values to union-find nodes and builds the model."""

    def __init__(self, region_op: Operation, copy_parts: bool = False):
        self.op = region_op
        # every make_range part that a move can copy is copied into the range first (the
        # allocator's last resort: a part read again after its range then need not keep
        # the range's alignment)
        self.copy_parts = copy_parts
        self.where: dict[SSAValue, tuple[Node, int, int]] = {}  # value -> (node, offset, width)
        self.names: dict[SSAValue, str] = {}
        self.copies: list[InstOp] = []
        # MFMAs whose fresh result may take its accumulator's registers (dst == SrcC is
        # allowed, a partial overlap is not): (op, result, SrcC)
        self.accumulates: list[tuple[InstOp, SSAValue, SSAValue]] = []
        n = 0
        for block in region_op.regions[0].blocks:
            for a in block.args:
                self.names[a] = f"%{n}"
                n += 1
            for op in block.ops:
                for r in op.results:
                    self.names[r] = f"%{r.name_hint}" if r.name_hint else f"%{n}"
                    n += 1
        for block in region_op.regions[0].blocks:
            for a in block.args:
                self._leaf(a, a.type, "a block argument", None)
            for op in block.ops:
                self._visit(op)
        self._alias_pins()

    def _alias_pins(self) -> None:
        """Pinned storage names physical registers: every pinned range and pinned
        sub-register of it (``s[2:3]`` and ``s2``, ``v[0:15]`` and ``v0``) are the same
        registers, so overlapping pins of one file join one node spanning them all."""
        roots: dict[int, Node] = {}
        for node, _off, _w in self.where.values():
            root, _ = node.find()
            if root.pin is not None:
                roots[id(root)] = root
        by_file: dict[str, list[Node]] = {}
        for r in roots.values():
            by_file.setdefault(r.file, []).append(r)
        for file, rs in by_file.items():
            rs.sort(key=lambda r: (r.pin, -r.width))
            span: list[Node] = []
            hi = -1
            for r in [*rs, None]:
                if r is not None and r.pin < hi:
                    span.append(r)
                    hi = max(hi, r.pin + r.width)
                    continue
                if len(span) > 1:
                    lo = span[0].pin
                    whole = Node(file, hi - lo, 1, lo, span[0].name, span[0].origin, span[0].loc)
                    for s in span:
                        s.parent, s.offset = whole, s.pin - lo
                if r is not None:
                    span, hi = [r], r.pin + r.width

    # -- union-find construction ------------------------------------------------------------
    def _leaf(self, v: SSAValue, t, origin: str, loc) -> None:
        if not isinstance(t, RegisterType):
            return
        pin = t.begin.data if t.is_allocated else None
        node = Node(t.FILE, t.width, t.align.data, pin, self.names.get(v, "%?"), origin, loc)
        self.where[v] = (node, 0, t.width)

    def ref_of(self, v: SSAValue) -> tuple[Node, int, int] | None:
        w = self.where.get(v)
        if w is None:
            return None
        node, off, width = w
        root, o = node.find()
        return root, off + o, width

    def _visit(self, op: Operation) -> None:
        if isinstance(op, InstOp):  # by far the most common op: tested first
            self._visit_inst(op)
            return
        if isinstance(op, (LoadArgOp, ThreadIdOp, BlockIdOp)):
            raise Diagnostic(f"{op.name} must be lowered before register allocation (run amdgcn-lower-abi)", _loc(op))
        if isinstance(op, CallOp):
            raise Diagnostic(f"call to {op.callee} must be inlined before register allocation (run amdgcn-inline)",
                             _loc(op))
        if isinstance(op, AllocaOp):
            self._leaf(op.result, op.result.type, _AllocaText(op.result.type), _loc(op))  # type: ignore[arg-type]
            return
        if isinstance(op, SplitRangeOp):
            src = self.where.get(op.range)
            if src is None:
                return
            node, off, _ = src
            for r in op.parts:
                self.where[r] = (node, off, r.type.width)
                off += r.type.width
            return
        if isinstance(op, MakeRangeOp):
            t = op.result.type
            root = Node(t.FILE, t.width, t.align.data, t.begin.data if t.is_allocated else None,
                        self.names[op.result], "amdgcn.make_range", _loc(op))
            off = 0
            for i, p in enumerate(op.parts):
                pt = p.type
                # (a part that is a copy already is not copied again)
                copy = self.copy_parts and isinstance(pt, RegisterType) and (pt.FILE, pt.width) in COPY_MNEMONIC \
                    and not any(c is p.owner for c in self.copies)
                problem = "every part is copied" if copy else self._join(p, root, off, op)
                if problem is not None:
                    # the part cannot sit in this range where it is (it is in another
                    # range already, appears twice, or is misaligned there): copy it
                    c = self._copy(p, op, problem)
                    ops = list(op.operands)
                    ops[i] = c
                    op.operands = ops
                    again = self._join(c, root, off, op)
                    assert again is None, again
                off += p.type.width
            self.where[op.result] = (root, 0, t.width)

    def _visit_inst(self, op: InstOp) -> None:
        inf = op.info
        if inf is None:
            return
        offs = set(op.off_slots)
        present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs]
        ri = 0
        for slot, arg in zip(present, op.args):
            if not slot.is_def:
                continue
            if ri < len(op.outs):
                res = op.outs[ri]
                t = arg.type
                if isinstance(t, RegisterType) and t.is_value:
                    # a value-typed destination names no storage: the result is a
                    # fresh value, placed by the allocator (the placeholder may be shared)
                    self._leaf(res, t, _short(op), _loc(op))
                    self.where[res][0].written = True
                elif arg in self.where:
                    # storage (unallocated or pinned): the op writes it in place
                    self.where[res] = self.where[arg]
            ri += 1
        if op.mnemonic in copies() and len(op.args) == 2 and op.outs:
            d, src = op.args[0].type, op.args[1].type
            if isinstance(d, RegisterType) and d.is_value and isinstance(src, RegisterType) \
                    and src.FILE == d.FILE and src.width == d.width:
                self.copies.append(op)
        if inf.family == "mfma" and op.outs:
            c = op.operand_for("src2")
            d = op.operand_for("vdst")
            if c is not None and d is not None and isinstance(c.type, RegisterType) \
                    and isinstance(d.type, RegisterType) and d.type.is_value \
                    and c.type.FILE == d.type.FILE and c.type.width == d.type.width:
                self.accumulates.append((op, op.outs[0], c))

    def _join(self, part: SSAValue, root: Node, off: int, op: Operation) -> str | None:
        """Place ``part`` at ``off`` inside ``root``; a reason when it cannot stay where it is."""
        w = self.where.get(part)
        if w is None:
            raise Diagnostic(f"amdgcn.make_range part {self.names.get(part)} is not a register value", _loc(op))
        node, poff, width = w
        pr, ro = node.find()
        if pr is root:
            return None if ro + poff == off else "it appears twice in the range"
        if poff + ro != 0 or width != pr.width or pr.parent is not None:
            return "it is already part of another range"
        if pr.file != root.file:
            raise Diagnostic("amdgcn.make_range parts must be of one register file", _loc(op))
        if pr.align > 1 and off % pr.align:
            return f"it needs alignment {pr.align} but sits at offset {off}"
        if pr.pin is not None:
            want = pr.pin - off
            if want < 0 or want % max(root.align, 1) or (root.pin is not None and root.pin != want):
                return "it is pinned where the range cannot start"
        root.align = max(root.align, pr.align)
        if pr.pin is not None:
            root.pin = pr.pin - off
        pr.parent, pr.offset = root, off
        return None

    def _copy(self, part: SSAValue, before: Operation, why: str) -> SSAValue:
        """A move of ``part`` into a fresh value, inserted before ``before``."""
        t = part.type
        if (t.FILE, t.width) not in COPY_MNEMONIC:
            raise Diagnostic(f"{self.names.get(part)} must be copied to join this range ({why}), but a "
                             f"{t.width}-dword {t.FILE} copy is not supported; copy it explicitly", _loc(before))
        dst = AllocaOp(type(t).value(t.width))
        mv = copy_op(dst.result, part)
        mnemonic = mv.mnemonic
        block = before.parent_block()
        block.insert_op_before(dst, before)
        block.insert_op_before(mv, before)
        res = mv.outs[0]
        self.names[res] = f"{self.names.get(part, '%?')}.copy"
        self._leaf(res, res.type, f"{mnemonic} (inserted: {why})", _loc(mv))
        return res

    # -- the model ----------------------------------------------------------------------------
    def program(self) -> tuple[Program, dict[int, Op]]:
        groups: dict[int, Group] = {}

        def group(root: Node) -> Group:
            g = groups.get(id(root))
            if g is None:
                g = Group(root.file, root.width, root.align, root.pin, root.name, root.origin, root.loc)
                groups[id(root)] = g
                root.group = g
            return g

        def ref(v: SSAValue) -> Ref | None:
            r = self.ref_of(v)
            if r is None:
                return None
            root, off, width = r
            return Ref(group(root), off, width)

        blocks = list(self.op.regions[0].blocks)
        index = {id(b): i for i, b in enumerate(blocks)}
        mblocks: list[MBlock] = []
        by_op: dict[int, Op] = {}
        for b in blocks:
            mb = MBlock(name=f"bb{index[id(b)]}")
            pkey, prev = None, None
            for op in b.ops:
                m = self._model_op(op, ref)
                if m is None:
                    pkey = None
                    continue
                # a run of moves tagged with one key is one parallel copy (regalloc.pcopy)
                a = op.attributes.get("regalloc.pcopy")
                k = a.value.data if a is not None else None
                if k is not None and k == pkey and prev is op.prev_op:
                    last = mb.ops[-1]
                    last.defs += m.defs
                    last.uses += m.uses
                    last.origin += (op,)
                    last.def_args += m.def_args
                    last.use_args += m.use_args
                elif k is not None:
                    m.parallel, m.origin, m.tied = True, (op,), ()
                    mb.ops.append(m)
                else:
                    mb.ops.append(m)
                pkey, prev = k, op
                by_op[id(op)] = mb.ops[-1]
            term = b.last_op
            if isinstance(term, BranchOp):
                mb.succs = [index[id(s)] for s in term.dests]
            mblocks.append(mb)
        p = Program(mblocks)
        p.groups = list(groups.values())
        return p, by_op

    def _model_op(self, op: Operation, ref) -> Op | None:
        if isinstance(op, RawInstOp):
            # an instruction kept as text: every register it names may be read and written
            regs = tuple(r for r in (ref(v) for v in op.regs) if r is not None)
            return Op(regs, regs, op.text.data, False, _loc(op), tied=regs, origin=op)
        if not isinstance(op, InstOp) or op.info is None:
            return None
        inf = op.info
        offs = set(op.off_slots)
        present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs]
        defs: list[Ref] = []
        uses: list[Ref] = []
        def_args: list[int] = []
        use_args: list[int] = []
        tied: list[Ref] = []
        ri = 0
        for ai, (slot, arg) in enumerate(zip(present, op.args)):
            if slot.is_def:
                res = op.outs[ri] if ri < len(op.outs) else None
                ri += 1
                r = ref(res) if res is not None else None
                if r is not None:
                    defs.append(r)
                    def_args.append(ai)
                if slot.operand.role == "defuse" and (not (isinstance(arg.type, RegisterType) and arg.type.is_value)
                                                      or _data_only(op)):
                    u = ref(arg)
                    if u is not None:
                        uses.append(u)
                        use_args.append(ai)
                        tied.append(u)
                continue
            r = ref(arg)
            if r is not None:
                uses.append(r)
                use_args.append(ai)
        text = _short(op)
        # an MFMA result must not partially overlap its sources (ISA guide 7.x; LLVM early-clobber)
        clobber = inf.family == "mfma"
        return Op(tuple(defs), tuple(uses), text, clobber, _loc(op), tied=tuple(tied), origin=op,
                  def_args=tuple(def_args), use_args=tuple(use_args))


def _loc(op: Operation) -> object:
    loc = op.attributes.get("loc") if hasattr(op, "attributes") else None
    return loc if loc is not None else _OpLoc(op)


class _OpLoc:
    """Names an op in diagnostics (the IR has no file positions after building)."""

    def __init__(self, op: Operation):
        self.op = op

    def __str__(self) -> str:
        from gcnforge.diagnostics import SourceLoc, op_place

        if isinstance(p := op_place(self.op), SourceLoc):  # parsed / built ops know their line
            return str(p)
        m = getattr(self.op, "mnemonic", None)
        return f"'{self.op.name}{(' ' + m) if m else ''}'"


def write_back(binding: Binding) -> None:
    """Give every register value its allocated type."""
    for v, (node, off, width) in binding.where.items():
        root, o = node.find()
        g = root.group
        if g is None or g.reg is None:
            continue
        t = v.type
        begin = g.reg + o + off
        align = t.align.data
        if begin % align:
            align = 1 << ((begin & -begin).bit_length() - 1) if begin else align
        nt = type(t)._make(begin, t.width, max(align, 1))
        if (msg := nt.problem()) is not None:
            raise Diagnostic(f"allocation of {binding.names.get(v)} gives an invalid register: {msg}", None)
        v._type = nt  # noqa: SLF001 - xDSL has no public setter for value types
    _materialize_destinations(binding.op)


def _materialize_destinations(region_op: Operation) -> None:
    """After allocation an instruction writes its destination in place, so a value-typed
    placeholder destination becomes the register its result got: one
    ``amdgcn.alloca : !amdgcn.vgpr<N>`` per register range, at the top of the entry block
    (shared by every instruction writing it); placeholders left without uses are erased."""
    placeholders: set[Operation] = set()
    storage: dict = {}
    entry = region_op.regions[0].blocks[0]
    anchor = entry.first_op

    def alloca_for(t) -> SSAValue:
        a = storage.get(t)
        if a is None:
            op = AllocaOp(t)
            entry.insert_op_before(op, anchor)
            a = storage[t] = op.result
        return a

    for op in list(region_op.walk()):
        if not isinstance(op, InstOp):
            continue
        inf = op.info
        if inf is None or not inf.def_slots:
            continue
        offs = op.off_slots
        present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs] if offs else inf.ssa_slots
        args = None
        outs = op.outs
        ri = 0
        for i, slot in enumerate(present):
            if not slot.is_def:
                continue
            res = outs[ri] if ri < len(outs) else None
            ri += 1
            if res is None:
                continue
            if args is None:
                args = list(op.args)
            arg = args[i]
            t = arg.type
            if not isinstance(t, RegisterType) or not t.is_value or not res.type.is_allocated:
                continue
            if isinstance(arg.owner, AllocaOp):
                placeholders.add(arg.owner)
            args[i] = alloca_for(res.type)
        if args is not None and any(a is not b for a, b in zip(args, op.args)):
            op.operands = args
    for p in placeholders:
        if not p.result.uses:
            p.detach()
            p.erase()


__all__ = ["Binding", "write_back", "copies", "COPY_MNEMONIC", "copy_op", "Block"]

"""Parallel copies in the kernel: compaction's copies at one point, mirrored as moves and
put in a safe order once registers are known.

Compaction (``compact``) copies the values live at a range's definition all at once: one
model ``Op`` with ``parallel`` set, whose ``i``-th definition is a copy of its ``i``-th use
(every source read before any destination is written). In the kernel it is a run of moves
(``isa.moves``) tagged with one ``regalloc.pcopy`` key; the binding reads the run back as one
parallel op. After write-back, ``sequence`` replaces each run with moves in an order that
reads every register before overwriting it (the standard sequentialisation of a parallel
copy): a move whose destination no pending move still reads goes first; what is left are
cycles, each broken by saving one register in a free register of the file (for AccVGPRs, a
free VGPR through ``v_accvgpr_read/write``), or for VGPRs with ``v_swap_b32`` when none is
free. SGPRs have no exchange instruction: an ``s_xor_b32`` swap would clobber SCC, legal only
where SCC is dead, which this pass does not track, so an SGPR cycle without a free SGPR is an
error. Moves are per dword (``s_mov_b64`` / ``v_mov_b64`` again where both halves of an
aligned pair move together).

Vector moves copy the active lanes only: like splitting, compaction moves no VGPR/AGPR in a
kernel that writes EXEC (``split_ir.eligible``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Operation, SSAValue

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import AllocaOp
from gcnforge.dialect.types import REGISTER_TYPES
from gcnforge.isa.moves import SWAPS, move
from gcnforge.passes.regalloc.bind import Binding, copy_op, inst_op
from gcnforge.passes.regalloc.liveness import Liveness
from gcnforge.passes.regalloc.model import Op, Program

ATTR = "regalloc.pcopy"

Reg = tuple[str, int]  # (file, physical register)


def whole_values(b: Binding) -> dict[int, SSAValue]:
    """id(group) -> an IR value naming the whole group (after ``Binding.program``)."""
    out: dict[int, SSAValue] = {}
    for v, (node, off, width) in b.where.items():
        root, o = node.find()
        if root.group is not None and off + o == 0 and width == root.width:
            out.setdefault(id(root.group), v)
    return out


def mirror(b: Binding, copy: Op, before: Operation, key: int) -> list[InstOp] | None:
    """Insert one move per definition of the parallel ``copy`` before ``before`` (operands
    are placeholders: splitting renames both to versions), tie them to the model op; None
    (nothing inserted) when a definition is only part of its group or no value names it."""
    whole = whole_values(b)
    vals = []
    for r in copy.defs:
        v = whole.get(id(r.group))
        if r.offset != 0 or r.w != r.group.width or v is None or move(r.group.file, r.group.file, r.group.width) is None:
            return None
        vals.append(v)
    block = before.parent_block()
    moves = []
    for v in vals:
        mv = copy_op(v, v)
        mv.attributes[ATTR] = IntegerAttr(key, i64)
        block.insert_op_before(mv, before)
        moves.append(mv)
    copy.origin = tuple(moves)
    copy.def_args = (0,) * len(moves)
    copy.use_args = (1,) * len(moves)
    return moves


def erase(moves: list[InstOp]) -> None:
    for mv in moves:
        mv.detach()
        mv.erase()


def key_of(op: Operation) -> int | None:
    a = op.attributes.get(ATTR)
    return a.value.data if isinstance(a, IntegerAttr) else None


def occupied(prog: Program) -> dict[int, set[Reg]]:
    """id(first move of a parallel copy) -> the registers live before or after it (the
    others are free to use as a temporary there)."""
    out: dict[int, set[Reg]] = {}
    if not any(op.parallel for blk in prog.blocks for op in blk.ops):
        return out  # the common case: no liveness pass spent on it
    live = Liveness(prog)
    for bi, blk in enumerate(prog.blocks):
        for i, d, u, after in live.op_points(bi):
            op = blk.ops[i]
            if not op.parallel or not isinstance(op.origin, tuple):
                continue
            mask = after | (after & ~d) | u
            regs: set[Reg] = set()
            for g in prog.groups_in(mask):
                for k in range(g.width):
                    if mask >> (g.first_unit + k) & 1:
                        regs.add((g.file, g.reg + k))
            out[id(op.origin[0])] = regs
    return out


def order(pending: dict[Reg, Reg], free: dict[str, list[int]], where: object,
          used: dict[str, int] | None = None) -> list[tuple[str, tuple[Reg, ...]]]:
    """Sequence the parallel copy ``pending`` (destination -> source, per dword): a list of
    ("move", (dst, src)) and ("swap", (a, b)); ``free`` lists registers per file that hold
    nothing live there (a temporary is taken from it, the lowest first). With ``used``
    (registers used per file), a VGPR cycle prefers ``v_swap_b32`` to a temporary that
    would raise the count."""
    pending = {d: s for d, s in pending.items() if d != s}
    out: list[tuple[str, tuple[Reg, ...]]] = []
    while pending:
        read = set(pending.values())
        ready = [d for d in pending if d not in read]
        if ready:
            for d in ready:
                out.append(("move", (d, pending.pop(d))))
            continue
        # only cycles are left: every pending destination is still some move's source
        d = min(pending)
        s = pending[d]
        files = [d[0]] + (["v"] if d[0] == "a" else [])  # an AccVGPR may be saved in a VGPR
        tmp = next(((f, free[f][0]) for f in files if free.get(f)), None)
        if tmp is not None and used is not None and d[0] in SWAPS and tmp[1] >= used.get(tmp[0], 0):
            tmp = None  # an exchange costs no register
        if tmp is not None:
            # the temporary is reused for the next cycle: a cycle is broken only when no move
            # is ready, and then no pending move reads it any more (its readers sit on no cycle,
            # so they were ready before)
            out.append(("move", (tmp, d)))  # save d; its readers read the temporary
            pending = {x: (tmp if y == d else y) for x, y in pending.items()}
        elif d[0] in SWAPS:
            out.append(("swap", (d, s)))  # d gets s's value, s gets d's old value
            del pending[d]
            pending = {x: (s if y == d else d if y == s else y) for x, y in pending.items()}
            pending = {x: y for x, y in pending.items() if x != y}
        else:
            raise Diagnostic(f"cannot exchange {d[0]}{d[1]} and {s[0]}{s[1]}: no free register of the file there "
                             f"(an s_xor swap would clobber SCC); raise the register limit", where)
    return out


def _pairs(steps: list[tuple[str, tuple[Reg, ...]]]) -> list[tuple[str, tuple[Reg, ...], int]]:
    """Join adjacent moves of both halves of an aligned pair into one 64-bit move."""
    out: list[tuple[str, tuple[Reg, ...], int]] = []
    i = 0
    while i < len(steps):
        kind, regs = steps[i]
        if kind == "move" and i + 1 < len(steps) and steps[i + 1][0] == "move":
            (d, s), (d2, s2) = regs, steps[i + 1][1]
            if d[0] == s[0] == d2[0] == s2[0] and d[1] % 2 == 0 and s[1] % 2 == 0 and d2[1] == d[1] + 1 \
                    and s2[1] == s[1] + 1 and move(d[0], s[0], 2) and s[1] != d2[1]:
                out.append(("move", (d, s), 2))
                i += 2
                continue
        out.append((kind, regs, 1))
        i += 1
    return out


def sequence(region_op: Operation, occ: dict[int, set[Reg]], limits: dict[str, int], used: dict[str, int]) -> int:
    """Replace every run of tagged moves (one parallel copy) with moves in a safe order;
    ``used`` grows when a temporary lies above the registers used so far. Returns the
    number of instructions emitted."""
    entry = region_op.regions[0].blocks[0]
    regs: dict[tuple[str, int, int], SSAValue] = {}

    def reg(r: Reg, w: int) -> SSAValue:
        v = regs.get((*r, w))
        if v is None:
            a = AllocaOp(REGISTER_TYPES[r[0]]._make(r[1], w, 1))
            entry.insert_op_before(a, entry.first_op)
            v = regs[(*r, w)] = a.result
        return v

    runs: list[list[InstOp]] = []
    for op in region_op.walk():
        if isinstance(op, InstOp) and key_of(op) is not None:
            prev = runs[-1][-1] if runs else None
            if prev is not None and prev.next_op is op and key_of(prev) == key_of(op):
                runs[-1].append(op)
            else:
                runs.append([op])
    emitted = 0
    for run in runs:
        pending: dict[Reg, Reg] = {}
        for mv in run:
            d, s = mv.args[0].type, mv.args[1].type
            for k in range(d.width):
                pending[(d.FILE, d.begin.data + k)] = (s.FILE, s.begin.data + k)
        busy = occ.get(id(run[0]))
        if busy is None:  # not known: no temporary (a swap or an error, never a guess)
            free: dict[str, list[int]] = {}
        else:
            busy = busy | set(pending) | set(pending.values())
            free = {f: sorted(r for r in range(limits.get(f, 0)) if (f, r) not in busy) for f in "vas"}
        for f in free:  # registers already counted first: a temporary costs nothing there
            free[f].sort(key=lambda r: (r >= used.get(f, 0), r))
        steps = order(pending, free, run[0], used)
        block, anchor = run[0].parent_block(), run[0]
        for kind, (a, b), w in _pairs(steps):
            if kind == "swap":
                new = inst_op(SWAPS[a[0]], [reg(a, 1), reg(b, 1)])
            else:
                new = inst_op(move(a[0], b[0], w), [reg(a, w), reg(b, w)])
            for r in (a, b):
                used[r[0]] = max(used.get(r[0], 0), r[1] + w)
            block.insert_op_before(new, anchor)
            emitted += 1
        erase(run)
    return emitted


__all__ = ["ATTR", "mirror", "erase", "occupied", "order", "sequence", "whole_values", "key_of"]

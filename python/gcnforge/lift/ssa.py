"""Pinned registers of raised code -> SSA values and allocatable storage, then re-allocation.

Each register operand of a raised kernel names a physical tuple (``v[4:5]``). Per tuple,
reaching definitions over the blocks connect definitions with the uses they reach into
*webs* (the union of every def-use chain; as in a classic register renamer):

* a web with one definition that reaches its uses alone (so it dominates them) becomes an
  SSA value: the definition writes a fresh value (placeholder ``!amdgcn.vgpr<[? + 2]>``
  destination) and the uses read that result;
* a web with several definitions (a loop-carried register, a join of two branches, a
  read-modify-write slot) becomes one unallocated storage (``!amdgcn.vgpr<[? : ? + 2]>``)
  that every op of the web writes in place (no block arguments are needed: the dialect's
  branches carry none, storage is how values cross joins);
* a web stays pinned when the register is read before any write (an ABI-preloaded
  register: kernarg pointer, workgroup and workitem ids), when its register is also
  accessed with another width (``v0`` and ``v[0:1]``: the halves must stay together), when
  an opaque ``lift.inst`` touches it, or when the kernel has calls (``s_swappc_b64``).

Vector writes honour EXEC, so lanes a VALU / memory write skips keep the register's older
value: a vector definition under a narrowed EXEC (after any EXEC write on some path) is
treated as also reading the register (it joins the webs that reach it); before the first
EXEC write, EXEC is the entry mask and lanes off then never turn on, so there a vector
write is a whole definition. Special registers (exec, vcc, scc,
m0) are not renamed.

``reallocate`` then runs ``amdgcn-regalloc`` and marks the kernel ``lift.recount`` so the
emitter recomputes the descriptor's register counts from the new allocation.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp as BuiltinModule, UnitAttr, i32
from xdsl.ir import Operation, SSAValue

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import AllocaOp, BranchOp, KernelOp
from gcnforge.dialect.types import RegisterType
from gcnforge.lift.ops import RawInstOp

ENTRY = "entry"
CALLS = ("s_swappc_b64", "s_setpc_b64", "s_call_b64")


class _Site:
    __slots__ = ("op", "arg_index", "key", "is_def", "is_use", "partial", "result")

    def __init__(self, op, arg_index, key, is_def, is_use, partial, result):
        self.op, self.arg_index, self.key = op, arg_index, key
        self.is_def, self.is_use, self.partial, self.result = is_def, is_use, partial, result


def _preloaded(k: KernelOp) -> set[tuple[str, int]]:
    """Registers holding ABI values at entry (user + system SGPRs, workitem-id VGPRs)."""
    d = {n: v.value.data for n, v in k.attributes["lift.amdhsa"].data.items()} if "lift.amdhsa" in k.attributes \
        else {}
    ns = d.get("user_sgpr_count", 16) + sum(d.get(f"system_sgpr_workgroup_{x}", 1) for x in ("id_x", "id_y", "id_z",
                                                                                               "info"))
    nv = d.get("system_vgpr_workitem_id", 2) + 1
    return {("s", i) for i in range(ns)} | {("v", i) for i in range(nv)}


def _writes_exec(op: Operation) -> bool:
    from gcnforge.passes.machine import minst

    if isinstance(op, RawInstOp):
        return True
    m = minst(op)
    return m is not None and bool({("x", "exec_lo"), ("x", "exec_hi")} & m.all_writes)


def _key(v) -> tuple | None:
    t = v.type
    return (t.FILE, t.begin.data, t.width) if isinstance(t, RegisterType) and t.is_allocated else None


def _exec_step(op: Operation, full: bool, saved: frozenset) -> tuple[bool, frozenset]:
    """EXEC after ``op``: ``full`` = it still covers every lane live at entry; ``saved`` = SGPR
    pairs holding such a mask (written by ``s_and_saveexec_b64`` while full and untouched
    since). ``s_or_b64 exec, exec, sX`` / ``s_mov_b64 exec, sX`` with a saved ``sX`` makes
    EXEC full again (the usual end of a divergent region)."""
    from gcnforge.passes.machine import minst

    m = minst(op) if isinstance(op, InstOp) else None
    writes = m.all_writes if m is not None else frozenset()
    if isinstance(op, InstOp) and m is not None:
        touched = {("s", i) for f, i in writes if f == "s"}
        saved = frozenset(k for k in saved if not any(("s", i) in touched for i in range(k[1], k[1] + k[2])))
    if not _writes_exec(op):
        return full, saved
    mn = op.mnemonic if isinstance(op, InstOp) else ""
    args = list(op.args) if isinstance(op, InstOp) else []
    if mn == "s_and_saveexec_b64" and full and (k := _key(args[0])) is not None:
        return False, saved | {k}
    if mn == "s_or_b64" and len(args) == 3:
        srcs = [_key(a) for a in args[1:]]
        names = [getattr(a.type, "reg", None) for a in args[1:]]
        if any(n is not None and n.data == "exec" for n in names) and any(k in saved for k in srcs if k):
            return True, saved
    if mn == "s_mov_b64" and len(args) == 2 and _key(args[1]) in saved:
        return True, saved
    return False, saved


def _full_exec_ops(k: KernelOp) -> set[int]:
    """Ops that run with EXEC covering every lane live at entry (lanes off at entry never
    turn on), where a vector write is a whole-register write."""
    blocks = list(k.body.blocks)
    index = {id(b): i for i, b in enumerate(blocks)}
    state_in: list[tuple[bool, frozenset] | None] = [None] * len(blocks)
    state_in[0] = (True, frozenset())
    work, rounds = [0], 0
    while work and rounds < 64 * (len(blocks) + 1):
        rounds += 1
        i = work.pop(0)
        full, saved = state_in[i]  # type: ignore[misc]
        for op in blocks[i].ops:
            full, saved = _exec_step(op, full, saved)
        t = blocks[i].last_op
        for sb in (t.dests if isinstance(t, BranchOp) else ()):
            j = index[id(sb)]
            cur = state_in[j]
            new = (full, saved) if cur is None else (cur[0] and full, cur[1] & saved)
            if new != cur:
                state_in[j] = new
                if j not in work:
                    work.append(j)
    out: set[int] = set()
    for i, b in enumerate(blocks):
        full, saved = state_in[i] or (False, frozenset())
        for op in b.ops:
            if full:
                out.add(id(op))
            full, saved = _exec_step(op, full, saved)
    return out


def _sites(k: KernelOp) -> tuple[list[list[_Site]], set, bool]:
    """Register operand sites per block, the tuples opaque ops touch, whether the kernel calls."""
    per_block, opaque, calls = [], set(), False
    full_exec = _full_exec_ops(k)
    for b in k.body.blocks:
        sites: list[_Site] = []
        for op in b.ops:
            if isinstance(op, RawInstOp):
                for r in op.regs:
                    t = r.type
                    if isinstance(t, RegisterType) and t.is_allocated:
                        opaque.add((t.FILE, t.begin.data, t.width))
                continue
            if not isinstance(op, InstOp) or op.info is None:
                continue
            if op.mnemonic in CALLS:
                calls = True
            inf = op.info
            offs = set(op.off_slots)
            present = [s for i, s in enumerate(inf.ssa_slots) if i not in offs]
            ri = 0
            uses, defs = [], []
            for ai, (slot, arg) in enumerate(zip(present, op.args)):
                t = arg.type
                res = None
                if slot.is_def:
                    res = op.outs[ri] if ri < len(op.outs) else None
                    ri += 1
                if not (isinstance(t, RegisterType) and t.is_allocated):
                    continue
                key = (t.FILE, t.begin.data, t.width)
                if slot.is_def:
                    # an EXEC-masked vector write keeps the other lanes' older value
                    partial = t.FILE in "va" and (id(op) not in full_exec or inf.family == "mfma")
                    defs.append(_Site(op, ai, key, True, slot.operand.role == "defuse", partial, res))
                else:
                    uses.append(_Site(op, ai, key, False, True, False, None))
            sites += uses + defs  # an op reads its sources before it writes
        per_block.append(sites)
    return per_block, opaque, calls


class _UF:
    def __init__(self):
        self.p: dict = {}

    def find(self, x):
        self.p.setdefault(x, x)
        while self.p[x] is not x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.p[ra] = rb


def lift_kernel(k: KernelOp) -> dict[str, int]:
    """Rename the kernel's registers in place; returns counts of webs by outcome."""
    blocks = list(k.body.blocks)
    index = {id(b): i for i, b in enumerate(blocks)}
    per_block, opaque, calls = _sites(k)
    stats = {"ssa": 0, "storage": 0, "pinned": 0}
    if calls or opaque:
        # a call's callee, or an opaque lift.inst, touches registers the allocator cannot see
        stats["pinned"] = -1
        return stats
    keys = {s.key for sites in per_block for s in sites}
    units: dict[tuple[str, int], set] = {}
    for key in keys:
        for u in range(key[1], key[1] + key[2]):
            units.setdefault((key[0], u), set()).add(key)
    mixed = {key for key in keys if any(len(units[(key[0], u)]) > 1 for u in range(key[1], key[1] + key[2]))}
    tied: dict = {}
    if mixed:
        tied = _tie_overlaps(k, mixed)
        if tied is None:
            stats["pinned"] = -1  # overlapping tuples span too far to tie together: keep the kernel as it is
            return stats
        per_block, opaque, calls = _sites(k)
        mixed |= set(tied)
    pre = _preloaded(k)
    succs = []
    for b in blocks:
        t = b.last_op
        succs.append([index[id(s)] for s in t.dests] if isinstance(t, BranchOp) else [])
    # reaching definitions per block: key -> frozenset of def sites (or ENTRY)
    n = len(blocks)
    ins: list[dict | None] = [None] * n
    ins[0] = {key: frozenset([ENTRY]) for key in keys}
    work, rounds = [0], 0
    outs: list[dict | None] = [None] * n

    def transfer(i: int, state: dict, visit=None) -> dict:
        s = dict(state)
        for site in per_block[i]:
            if site.is_use or site.partial:
                if visit is not None:
                    visit(site, s.get(site.key, frozenset()))
            if site.is_def:
                s[site.key] = frozenset([site]) | (s.get(site.key, frozenset()) if site.partial else frozenset())
        return s

    while work:
        rounds += 1
        if rounds > 64 * (n + 1):
            return stats  # did not settle: leave the kernel pinned (cannot happen for a finite lattice)
        i = work.pop(0)
        out = transfer(i, ins[i] or {})
        outs[i] = out
        for j in succs[i]:
            cur = ins[j]
            new = dict(cur) if cur is not None else {}
            changed = cur is None
            for key, ds in out.items():
                merged = new.get(key, frozenset()) | ds
                if merged != new.get(key):
                    new[key] = merged
                    changed = True
            if changed:
                ins[j] = new
                if j not in work:
                    work.append(j)
    uf = _UF()
    entry_read: set = set()

    def visit(site: _Site, reaching: frozenset) -> None:
        uf.find(site)
        for d in reaching:
            if d == ENTRY:
                # a partial (EXEC-masked) write only keeps older lanes: at entry those
                # are meaningful only for preloaded registers
                if site.is_use or any((site.key[0], u) in pre for u in range(site.key[1], site.key[1] + site.key[2])):
                    entry_read.add(uf.find(site))
                continue
            uf.union(site, d)

    for i in range(n):
        if ins[i] is not None:
            transfer(i, ins[i], visit)
    all_sites = [s for sites in per_block for s in sites]
    for s in all_sites:
        uf.find(s)
    webs: dict = {}
    for s in all_sites:
        webs.setdefault(uf.find(s), []).append(s)
    entry_roots = {uf.find(r) for r in entry_read}
    for root, sites in webs.items():
        key = sites[0].key
        if root in entry_roots or key in mixed or key in opaque:
            stats["pinned"] += 1
            continue
        entry = k.body.blocks[0]  # placeholders and storage go to the top of the entry block
        defs = [s for s in sites if s.is_def]
        t0 = sites[0].op.args[sites[0].arg_index].type
        ftype = type(t0)
        # one definition, not read-modify-write: it alone reaches every use of the web (an
        # EXEC-masked one too: no older value joins this web, else it would be a second def)
        if len(defs) == 1 and not defs[0].is_use:
            d = defs[0]
            if d.result is None:
                stats["pinned"] += 1
                continue
            ph = AllocaOp(ftype.value(key[2]))
            entry.insert_op_before(ph, entry.first_op)
            _set_arg(d.op, d.arg_index, ph.result)
            d.result._type = ftype.value(key[2])  # noqa: SLF001 - the fresh value's type
            for s in sites:
                if s is not d:
                    _set_arg(s.op, s.arg_index, d.result)
            stats["ssa"] += 1
        else:
            st = AllocaOp(ftype.unallocated(key[2]))
            entry.insert_op_before(st, entry.first_op)
            for s in sites:
                _set_arg(s.op, s.arg_index, st.result)
                if s.is_def and s.result is not None:
                    s.result._type = st.result.type  # noqa: SLF001
            stats["storage"] += 1
    stats["ranges"] = _free_ranges(tied, webs, entry_roots)
    _refresh_result_types(k)
    _drop_unused_pins(k)
    return stats


def _free_ranges(tied: dict, webs: dict, entry_roots: set) -> int:
    """A range tying overlapping tuples becomes one unallocated storage range (moved as a
    whole by the allocator) unless one of its registers is read before written."""
    from gcnforge.dialect.types import default_align

    pinned_keys = {sites[0].key for root, sites in webs.items() if root in entry_roots}
    by_whole: dict = {}
    for key, (whole, sp) in tied.items():
        by_whole.setdefault(whole, []).append((key, sp))
    freed = 0
    for whole, parts in by_whole.items():
        if any(key in pinned_keys for key, _ in parts):
            continue
        t = whole.result.type
        align = max([default_align(t.FILE, t.width)] + [p.type.align.data for _, sp in parts for p in sp.parts])
        whole.result._type = type(t).unallocated(t.width, align)  # noqa: SLF001
        for _, sp in parts:
            for p in sp.parts:
                p._type = type(p.type).unallocated(p.type.width, p.type.align.data)  # noqa: SLF001
        freed += 1
    return freed


def _spans(mixed: set) -> list[tuple[str, int, int]] | None:
    """Overlapping tuples grouped into aligned, valid ranges (file, begin, count)."""
    from gcnforge.dialect.types import VALID_COUNTS, default_align

    spans = sorted({(f, b, b + w) for f, b, w in mixed})
    changed = True
    rounds = 0
    while changed:
        rounds += 1
        if rounds > 4 * len(mixed) + 8:
            return None
        changed = False
        out: list[list] = []
        for f, lo, hi in sorted(spans):
            if out and out[-1][0] == f and lo < out[-1][2]:
                out[-1][2] = max(out[-1][2], hi)
                changed = True
            else:
                out.append([f, lo, hi])
        fixed = []
        for f, lo, hi in out:
            count = next((c for c in VALID_COUNTS if c >= hi - lo), None)
            if count is None:
                return None
            a = default_align(f, count)
            lo2 = lo - lo % a
            count = next((c for c in VALID_COUNTS if c >= hi - lo2), None)
            if count is None:
                return None
            a = default_align(f, count)
            if lo2 % a:
                lo2 -= lo2 % a
                count = next((c for c in VALID_COUNTS if c >= hi - lo2), None)
                if count is None or lo2 % default_align(f, count):
                    return None
            if (lo2, lo2 + count) != (lo, hi):
                changed = True
            fixed.append((f, lo2, lo2 + count))
        spans = fixed
    return [(f, lo, hi - lo) for f, lo, hi in spans]


def _tie_overlaps(k: KernelOp, mixed: set) -> dict | None:
    """Make every pinned tuple of an overlapping group a part (``amdgcn.split_range``) of
    one pinned range, so the allocator sees them as the same registers."""
    from gcnforge.dialect.structure_ops import SplitRangeOp
    from gcnforge.dialect.types import FILE_LIMIT, REGISTER_TYPES

    spans = _spans(mixed)
    if spans is None or any(b + n > FILE_LIMIT[f] for f, b, n in spans):
        return None
    tied: dict = {}  # key -> (the range's alloca, its split_range)
    entry = k.body.blocks[0]
    pins = {}
    for op in entry.ops:
        if isinstance(op, AllocaOp) and isinstance(op.result.type, RegisterType) and op.result.type.is_allocated:
            t = op.result.type
            pins[(t.FILE, t.begin.data, t.width)] = op
    # every pinned tuple inside a span (mixed or not) joins it
    for f, b, n in spans:
        rt = REGISTER_TYPES[f]
        whole = AllocaOp(rt.allocated(b, n))
        entry.insert_op_before(whole, entry.first_op)
        pos = whole
        for key, a in list(pins.items()):
            kf, kb, kw = key
            if kf != f or not (b <= kb and kb + kw <= b + n):
                continue
            parts = [rt.allocated(i, 1) for i in range(b, kb)] + [rt.allocated(kb, kw)] + \
                [rt.allocated(i, 1) for i in range(kb + kw, b + n)]
            sp = SplitRangeOp(whole.result, parts)
            entry.insert_op_after(sp, pos)
            pos = sp
            a.result.replace_all_uses_with(sp.parts[kb - b])
            tied[key] = (whole, sp)
            a.detach()
            a.erase()
            del pins[key]
    return tied


def _set_arg(op: Operation, i: int, v: SSAValue) -> None:
    args = list(op.operands)
    args[i] = v
    op.operands = args


def _refresh_result_types(k: KernelOp) -> None:
    """Results follow their destination operands' types (destination-passing style)."""
    for op in k.walk():
        if isinstance(op, InstOp):
            want = op.derive_result_types(op.mnemonic, [a.type for a in op.args], op.off_slots)
            for r, t in zip(op.outs, want):
                if r.type != t:
                    r._type = t  # noqa: SLF001


def _drop_unused_pins(k: KernelOp) -> None:
    for op in list(k.body.blocks[0].ops):
        if isinstance(op, AllocaOp) and not op.result.uses:
            op.detach()
            op.erase()


def lift_to_ssa(module: Operation) -> dict[str, dict[str, int]]:
    return {k.sym_name.data: lift_kernel(k) for k in list(module.walk()) if isinstance(k, KernelOp)}


def original_counts(k: KernelOp) -> dict[str, int]:
    d = {n: v.value.data for n, v in k.attributes["lift.amdhsa"].data.items()}
    return {"vgpr": d["next_free_vgpr"], "sgpr": d["next_free_sgpr"]}


def reallocate(module: BuiltinModule) -> list[str]:
    """Lift to SSA, run ``amdgcn-regalloc``, mark kernels for recounting; report lines."""
    from gcnforge.target.asm import register_counts

    before = {k.sym_name.data: (original_counts(k), register_counts(k))
              for k in module.walk() if isinstance(k, KernelOp)}
    from gcnforge.passes.regalloc.kernel import allocate_region_op

    stats = lift_to_ssa(module)
    lines = []
    for k in module.walk():
        if not isinstance(k, KernelOp):
            continue
        name = k.sym_name.data
        if stats[name]["pinned"] < 0 or not (stats[name]["ssa"] or stats[name]["storage"]
                                             or stats[name].get("ranges")):
            lines.append(f"@{name}: kept as raised (calls, opaque lift.inst ops, or overlapping register tuples too wide to tie)")
            continue
        res = allocate_region_op(k, {"v": 256, "a": 256, "s": 96}, True)
        k.attributes["regalloc"] = DictionaryAttr({f: IntegerAttr(res.allocation.used[f], i32) for f in "vas"})
        k.attributes["lift.recount"] = UnitAttr()
        (orig, c0), c1 = before[name], register_counts(k)
        s = stats[name]
        k.attributes["lift.webs"] = DictionaryAttr({n: IntegerAttr(v, i32) for n, v in s.items()})
        lines.append(f"@{name}: webs ssa {s['ssa']} storage {s['storage']} pinned {s['pinned']}, "
                     f"tied ranges freed {s.get('ranges', 0)}; "
                     f"VGPRs {c0.vgprs} -> {c1.vgprs}, AGPRs {c0.agprs} -> {c1.agprs}, SGPRs {c0.sgprs} -> {c1.sgprs} "
                     f"(descriptor next_free_vgpr {orig['vgpr']})")
    return lines

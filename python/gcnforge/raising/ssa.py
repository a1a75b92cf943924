"""Pinned registers of raised code -> SSA values and allocatable storage, then re-allocation.

Each register operand of a raised kernel names a physical tuple (``v[4:5]``). Reaching
definitions per register (per dword) over the blocks connect each read with the writes it
may see; the union of those def-use chains gives *webs* (as in a classic register renamer):

* a web with one definition (not read-modify-write) becomes an SSA value: the definition
  writes a fresh value (placeholder ``!amdgcn.vgpr<[? + 2]>`` destination) and the uses
  read that result;
* a web with several definitions (a loop-carried register, a join of two branches, a
  read-modify-write slot) becomes one unallocated storage (``!amdgcn.vgpr<[? : ? + 2]>``)
  that every op of the web writes in place (the dialect's branches carry no block
  arguments; storage is how a value crosses a join);
* a web whose tuples differ (``v0`` and ``v1`` written apart, ``v[0:1]`` read) becomes one
  unallocated range with each tuple a part (``amdgcn.split_range``) at its offset;
* a web stays pinned when it reads a register's value from kernel entry (ABI-preloaded
  registers: kernarg pointer, workgroup and workitem ids); pinned tuples that overlap are
  the same registers to the allocator (``regalloc.bind``). A kernel with calls (``s_swappc_b64``) or opaque
  ``lift.inst`` ops (whose registers the allocator cannot see) is left as raised.

Vector writes honour EXEC, so lanes a VALU / memory write skips keep the register's older
value: a vector definition under a narrowed EXEC is treated as also reading the register
(it joins the webs that reach it). EXEC counts as full (covering every lane live at entry,
since lanes off at entry never turn on) until its first write, and again after
``s_or_b64 exec, exec, sX`` / ``s_mov_b64 exec, sX`` restores a mask that
``s_and_saveexec_b64 sX`` saved while full. Special registers (exec, vcc, scc, m0) are not
renamed.

``reallocate`` then runs the ``amdgcn-regalloc`` allocator on each renamed kernel and marks
it ``lift.recount`` so the emitter recomputes the descriptor's register counts.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp as BuiltinModule, UnitAttr, i32
from xdsl.ir import Operation, SSAValue

from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import AllocaOp, KernelOp
from gcnforge.dialect.types import RegisterType
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.passes.dataflow import forward, successors

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

    def transfer(i: int, state: tuple[bool, frozenset]) -> tuple[bool, frozenset]:
        full, saved = state
        for op in blocks[i].ops:
            full, saved = _exec_step(op, full, saved)
        return full, saved

    state_in = forward(successors(blocks), (True, frozenset()), transfer,
                       lambda a, b: (a[0] and b[0], a[1] & b[1])) or [None] * len(blocks)  # unsettled: no block full
    out: set[int] = set()
    for i, b in enumerate(blocks):
        full, saved = state_in[i] or (False, frozenset())
        for op in b.ops:
            if full:
                out.add(id(op))
            full, saved = _exec_step(op, full, saved)
    return out


def _keeps_old_value(op: InstOp) -> bool:
    """Whether a vector write by ``op`` may keep part of the destination's older value even
    with every lane on: DPP (lanes with an invalid source keep ``old``; ISA guide 12.x DPP),
    SDWA (``UNUSED_PRESERVE`` / sub-dword destinations), ``v_writelane`` (one lane), D16 loads
    (one half), 16-bit VALU results and VOP3 ``op_sel`` destination halves."""
    inst = op.info.inst
    mods = op.modifiers
    base = inst.base
    if inst.encoding.endswith(("_DPP", "_SDWA")) or "dpp_ctrl" in mods:
        return True
    if base.startswith("v_writelane") or "d16" in base:
        return True
    if isinstance(mods.get("op_sel"), list) and inst.encoding.startswith("VOP3") and any(mods["op_sel"]):
        return True
    if inst.encoding != "VOP3P" and any(t in base for t in ("_f16", "_u16", "_i16", "_b16", "16_")):
        return True
    return False


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
                    partial = t.FILE in "va" and (id(op) not in full_exec or inf.family == "mfma"
                                                  or _keeps_old_value(op))
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


def _units(key) -> list[tuple[str, int]]:
    return [(key[0], u) for u in range(key[1], key[1] + key[2])]


def _reaching_webs(blocks, per_block, pre) -> tuple[dict, set] | None:
    """Webs by per-register (per dword) reaching definitions: sites joined with the
    definitions they read (a ``v[0:1]`` use joins the ``v0`` and ``v1`` definitions).
    Returns (root -> sites, roots that read a register's value from kernel entry)."""
    at_entry = frozenset([ENTRY])
    # a register not in the map still holds its entry value

    def transfer(i: int, state: dict, visit=None) -> dict:
        s = dict(state)
        for site in per_block[i]:
            us = _units(site.key)
            if (site.is_use or site.partial) and visit is not None:
                visit(site, frozenset().union(*(s.get(u, at_entry) for u in us)))
            if site.is_def:
                for u in us:
                    s[u] = frozenset([site]) | (s.get(u, at_entry) if site.partial else frozenset())
        return s

    def merge(cur: dict, out: dict) -> dict:
        return {u: cur.get(u, at_entry) | out.get(u, at_entry) for u in set(cur) | set(out)}

    ins = forward(successors(blocks), {}, transfer, merge)
    if ins is None:
        return None
    uf = _UF()
    entry_read: set = set()

    def visit(site: _Site, reaching: frozenset) -> None:
        uf.find(site)
        for d in reaching:
            if d == ENTRY:
                # a partial (EXEC-masked) write keeps older lanes: at entry those are
                # meaningful only for preloaded registers
                if site.is_use or any(u in pre for u in _units(site.key)):
                    entry_read.add(site)
                continue
            uf.union(site, d)

    for i, state in enumerate(ins):
        if state is not None:
            transfer(i, state, visit)
    webs: dict = {}
    for sites in per_block:
        for s in sites:
            webs.setdefault(uf.find(s), []).append(s)
    return webs, {uf.find(r) for r in entry_read}


def _range_shape(keys: set) -> tuple[int, int, int] | None:
    """(first, count, align) of one range holding every tuple of a web, or None."""
    from gcnforge.dialect.types import VALID_COUNTS, default_align

    f = next(iter(keys))[0]
    lo = min(k[1] for k in keys)
    hi = max(k[1] + k[2] for k in keys)
    count = next((c for c in VALID_COUNTS if c >= hi - lo), None)
    if count is None:
        return None
    if any((k[1] - lo) % default_align(f, k[2]) for k in keys):
        return None
    align = max([default_align(f, count)] + [default_align(f, k[2]) for k in keys])
    return lo, count, align


def lift_kernel(k: KernelOp) -> dict[str, int]:
    """Rename the kernel's registers in place; returns counts of webs by outcome."""
    from gcnforge.dialect.structure_ops import SplitRangeOp
    from gcnforge.dialect.types import REGISTER_TYPES

    blocks = list(k.body.blocks)
    per_block, opaque, calls = _sites(k)
    stats = {"ssa": 0, "storage": 0, "ranges": 0, "pinned": 0}
    if calls or opaque:
        # a call's callee, or an opaque lift.inst, touches registers the allocator cannot see
        stats["pinned"] = -1
        return stats
    found = _reaching_webs(blocks, per_block, _preloaded(k))
    if found is None:
        stats["pinned"] = -1
        return stats
    webs, entry_roots = found
    plan = []
    for root, sites in webs.items():
        keys = {s.key for s in sites}
        shape = _range_shape(keys) if len(keys) > 1 else None
        if root in entry_roots or (len(keys) > 1 and shape is None):
            stats["pinned"] += 1
        else:
            plan.append((sites, keys, shape))
    entry = k.body.blocks[0]  # placeholders and storage go to the top of the entry block
    for sites, keys, shape in plan:
        key = sites[0].key
        ftype = type(sites[0].op.args[sites[0].arg_index].type)
        defs = [s for s in sites if s.is_def]
        if len(keys) > 1:
            # tuples of different widths sharing values (v0, v1 written, v[0:1] read): one
            # unallocated range, each tuple a part of it at its offset
            lo, count, align = shape
            rt = REGISTER_TYPES[key[0]]
            whole = AllocaOp(rt.unallocated(count, align))
            entry.insert_op_before(whole, entry.first_op)
            part_of = {}
            for kk in sorted(keys):
                parts = [rt.unallocated(1) for _ in range(lo, kk[1])] + [rt.unallocated(kk[2])] + \
                    [rt.unallocated(1) for _ in range(kk[1] + kk[2], lo + count)]
                sp = SplitRangeOp(whole.result, parts)
                entry.insert_op_after(sp, whole)
                part_of[kk] = sp.parts[kk[1] - lo]
            for s in sites:
                _set_arg(s.op, s.arg_index, part_of[s.key])
                if s.is_def and s.result is not None:
                    s.result._type = part_of[s.key].type  # noqa: SLF001
            stats["ranges"] += 1
        elif len(defs) == 1 and not defs[0].is_use and defs[0].result is not None:
            # one definition, not read-modify-write: it alone reaches every use of the web
            d = defs[0]
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
    _refresh_result_types(k)
    _drop_unused_pins(k)
    return stats


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
    from gcnforge.translate.asm import register_counts

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
                                             or stats[name]["ranges"]):
            lines.append(f"@{name}: kept as raised (calls or opaque lift.inst ops)")
            continue
        res = allocate_region_op(k, {"v": 256, "a": 256, "s": 96}, True)
        # new registers can meet where the raised code's s_nops did not expect them (a VALU
        # writing a wide store's data registers, say): pad what the allocation created
        pad_hazards(k)
        k.attributes["regalloc"] = DictionaryAttr({f: IntegerAttr(res.allocation.used[f], i32) for f in "vas"})
        k.attributes["lift.recount"] = UnitAttr()
        (orig, c0), c1 = before[name], register_counts(k)
        s = stats[name]
        k.attributes["lift.webs"] = DictionaryAttr({n: IntegerAttr(v, i32) for n, v in s.items()})
        lines.append(f"@{name}: webs ssa {s['ssa']} storage {s['storage']} pinned {s['pinned']} "
                     f"ranges {s['ranges']}; "
                     f"VGPRs {c0.vgprs} -> {c1.vgprs}, AGPRs {c0.agprs} -> {c1.agprs}, SGPRs {c0.sgprs} -> {c1.sgprs} "
                     f"(descriptor next_free_vgpr {orig['vgpr']})")
    return lines


def pad_hazards(kernel: KernelOp) -> int:
    """The hazard pass's insert mode on one re-allocated kernel, with its module's target's
    rows; returns the number of ``s_nop``s added."""
    from gcnforge.passes.hazards import insert_wait_states

    return insert_wait_states(kernel)

"""The sanitizer: checks an execution for the bugs hardware turns into silent garbage.

Enabled with ``Device.run(..., sanitize=True)``. Each report is a ``SanitizerReport``
(a ``Diagnostic``) located at kernel, pc, instruction text, workgroup, wave and lane, with
a ``kind``:

* ``unmapped`` / ``oob`` / ``misaligned`` — global, flat, buffer (``num_records``),
  scratch and LDS accesses outside what is mapped/allocated, or not naturally aligned
  (to min(size, 4) bytes; atomics to their full size);
* ``unwaited`` — a register read while a load that writes it is still outstanding.
  vmcnt and lgkmcnt are modelled as in-order queues (ISA guide 4.4 "Data Dependency
  Resolution"); SMEM returns out of order, so SMEM results count as waited only by
  ``lgkmcnt(0)``; FLAT raises both counters;
* ``uninit`` — a register read (in an active lane) that nothing in this wave wrote;
* ``lds-race`` — two waves of a workgroup touch the same LDS dword inside one barrier
  interval and at least one writes (atomics excepted);
* ``hazard`` — an instruction executed fewer wait states after a producer than the ISA
  guide (4.5 "Manually Inserted Wait States (NOPs)", gfx940 table) requires;
* ``budget`` — the instruction budget ran out (endless loop).

Mode ``stop`` raises the first report; ``continue`` collects each (pc, kind) once in
``RunStats.reports`` and goes on (bad lanes of a memory access are dropped).
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.executor import EmulationError, ExecLoc
from gcnforge.emulator.program import EXEC, M0, VCC

U64 = np.uint64
NS = 128  # scalar register space


class SanitizerReport(EmulationError):
    pass


def _reg_slots(op, accum_offset):
    """Flat register ids of an operand: SGPR space 0..127, VGPRs from NS."""
    if op.kind == "s":
        return list(range(op.index, op.index + op.dwords))
    if op.kind == "v":
        return [NS + op.index + i for i in range(op.dwords)]
    if op.kind == "a":
        return [NS + accum_offset + op.index + i for i in range(op.dwords)]
    return []


def operand_roles(ins):
    """(defs, uses) as lists of operand indices, from the ISA table when it matches the
    printed operands, else from the instruction's family."""
    try:
        from gcnforge.isa import table

        inst = table.by_mnemonic(ins.mnemonic)
    except Exception:  # pragma: no cover - the table is part of gcnforge
        inst = None
    n = len(ins.ops)
    b = ins.base
    if inst is not None and len(inst.operands) == n:
        defs = [i for i, o in enumerate(inst.operands) if o.role.value in ("def", "defuse")]
        uses = [i for i, o in enumerate(inst.operands) if o.role.value in ("use", "defuse")]
        return defs, uses
    stores = b.startswith(("global_store", "flat_store", "scratch_store", "buffer_store", "ds_write", "s_store")) \
        or "_lds_" in b or (b.startswith("buffer_load") and "lds" in ins.mods)
    atomic_rtn = ("sc0" in ins.mods or "glc" in ins.mods or "_rtn_" in b) and "atomic" in b or b.startswith("ds_") and "_rtn_" in b
    if stores or ("atomic" in b and not atomic_rtn) or b.startswith(("s_cmp", "s_bitcmp", "s_cbranch", "s_branch")):
        return [], list(range(n))
    if b in ("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_mad_u64_u32", "v_mad_i64_i32") \
            or b.startswith(("v_div_scale", "v_addc_co", "v_subb_co", "v_subbrev_co")):
        return [0, 1], list(range(2, n))
    if b.startswith(("v_mac_", "v_fmac_", "v_dot2c", "v_dot4c", "v_dot8c")):
        return [0], list(range(n))
    return ([0], list(range(1, n))) if n else ([], [])


class Sanitizer:
    def __init__(self, image, prog, stats, mode="stop"):
        if mode not in ("stop", "continue"):
            raise ValueError(f"sanitize_mode must be 'stop' or 'continue', not {mode!r}")
        self.image, self.prog, self.stats, self.mode = image, prog, stats, mode
        self.seen = set()
        self._roles = {}

    def attach(self, ex):
        self.ex = ex
        W, NV = ex.W, ex.nv
        R = NS + NV
        # definedness (like Valgrind's memcheck, simplified): bit-precise for SGPRs (lane masks
        # are built bit by bit from compares), per lane for VGPRs. Undefined values may flow
        # through ALU ops (compilers leave IMPLICIT_DEF registers uninitialized); a report is
        # made only where one reaches a sink: a memory address or stored value, or a branch
        # condition. (EXEC is not a sink: compilers merge lane masks whose inactive-lane bits
        # start undefined, SILowerI1Copies-style, and rely on them being masked.)
        self.sdef = np.zeros((W, NS), np.uint32)
        self.sdef[:, : ex.init_sgprs] = 0xFFFFFFFF
        self.sdef[:, EXEC : EXEC + 2] = 0xFFFFFFFF
        self.sdef[:, 102:104] = 0xFFFFFFFF  # flat_scratch (architected on gfx942)
        self.sdef[:, 125] = 0xFFFFFFFF  # null
        self.vdef = np.zeros((W, NV, 64), bool)
        self.vdef[:, 0, :] = True  # work-item ids
        # outstanding loads: per-register sequence numbers, per-wave issue/completion
        self.pend = np.zeros((3, W, R), np.int64)  # 0 vm, 1 lgkm (in order), 2 smem (lgkmcnt(0) only)
        self.pend_pc = np.zeros((W, R), np.int64)
        self.issued = np.zeros((3, W), np.int64)
        self.done = np.zeros((3, W), np.int64)
        # hazards: wait-state clock and the clock of the last relevant writes
        self.ws = np.zeros(W, np.int64)
        self.valu_sgpr = np.full((W, NS), -100, np.int64)
        self.valu_vgpr = np.full((W, NV), -100, np.int64)
        self.valu_exec = np.full(W, -100, np.int64)
        self.salu_m0 = np.full(W, -100, np.int64)
        self.mfma_w = np.full((W, NV), -100, np.int64)  # wait-state clock of an MFMA's write
        self.mfma_p = np.zeros((W, NV), np.int64)  # its pass count
        self.mfma_dst = np.full((W, NV), -1, np.int64)  # first register of its destination range
        self.trans_w = np.full((W, NV), -100, np.int64)
        # LDS race tracking per workgroup (dword granularity)
        G = len(ex.wgs)
        nd = max(ex.lds_bytes // 4, 1)
        self.epoch = np.zeros(G, np.int64)
        self.lw_wave = np.full((G, nd), -1, np.int64)
        self.lw_epoch = np.full((G, nd), -1, np.int64)
        self.lr_wave = np.full((G, nd), -1, np.int64)
        self.lr_epoch = np.full((G, nd), -1, np.int64)

    # ---- reporting ---------------------------------------------------------------------------------
    def report(self, kind, message, ins, wave, lane=None, notes=()):
        ex = self.ex
        loc = ExecLoc(ex.kernel, ins.pc, ins.text, ex.wgs[ex.wg_of[wave]], int(ex.wave_slot[wave]), lane)
        rep = SanitizerReport(f"sanitizer: {message}", loc, notes, kind=kind)
        if self.mode == "stop":
            raise rep
        key = (ins.pc, kind)
        if key not in self.seen:
            self.seen.add(key)
            self.stats.reports.append(rep)

    def roles(self, ins):
        r = self._roles.get(ins.pc)
        if r is None:
            defs, uses = operand_roles(ins)
            ao = self.ex.accum_offset
            d = [s for i in defs for s in _reg_slots(ins.ops[i], ao)]
            u = [s for i in uses for s in _reg_slots(ins.ops[i], ao)]
            r = (d, u)
            self._roles[ins.pc] = r
        return r

    # ---- per instruction ------------------------------------------------------------------------------
    def before(self, ins, w):
        defs, uses = self.roles(ins)
        self._w = w
        if ins.base.startswith("s_"):
            ex = self.ex
            self._pre_def_rows = self.sdef[w].copy()
            self._pre_exec_def = self.sdef[w, EXEC].astype(U64) | (self.sdef[w, EXEC + 1].astype(U64) << U64(32))
            self._pre_exec = ex.exec_mask(w)
            if len(ins.ops) == 2 and ins.ops[1].kind in ("s", "imm"):
                self._pre_src = ex.sread(ins.ops[1], w, 2).astype(U64)
            if len(ins.ops) == 3:
                n = 2 if ins.base.endswith("64") else 1
                try:
                    self._pre_vals = (ex.sread(ins.ops[1], w, n).astype(U64), ex.sread(ins.ops[2], w, n).astype(U64))
                except Exception:
                    self._pre_vals = (np.zeros(len(w), U64), np.zeros(len(w), U64))
        if uses:
            self._check_pending(ins, w, uses)
        if defs and ins.base != "s_waitcnt":
            self._check_pending(ins, w, defs, overwrite=True)
        self._in_def = self._input_def(ins, w, uses)
        self._hazards(ins, w, uses)

    def after(self, ins, w):
        defs, uses = self.roles(ins)
        ex = self.ex
        sem = ins.sem
        self._propagate(ins, w, defs, uses)
        # outstanding results of memory instructions
        ctr = self._counters(ins)
        for c in ctr:
            self.issued[c, w] += 1
            for r in defs:
                self.pend[c, w, r] = self.issued[c, w]
                self.pend_pc[w, r] = ins.pc
        # hazard bookkeeping
        step = (ins.ops[0].value + 1) if ins.base == "s_nop" and ins.ops else 1
        self.ws[w] += step
        if sem in ("valu", "valu_dp", "trans", "mfma") or ins.base.startswith("v_"):
            for r in defs:
                if r < NS:
                    self.valu_sgpr[w, r] = self.ws[w]
                else:
                    self.valu_vgpr[w, r - NS] = self.ws[w]
            if ins.base.startswith("v_cmpx"):
                self.valu_exec[w] = self.ws[w]
            vd = [r - NS for r in defs if r >= NS]
            if vd and sem == "mfma":
                self.mfma_w[np.ix_(w, vd)] = self.ws[w][:, None]
                self.mfma_p[np.ix_(w, vd)] = _passes(ins)
                self.mfma_dst[np.ix_(w, vd)] = vd[0]
            elif vd and sem == "trans":
                self.trans_w[np.ix_(w, vd)] = self.ws[w][:, None]
        elif ins.base.startswith("s_") and M0 in defs:
            self.salu_m0[w] = self.ws[w]

    # ---- definedness ---------------------------------------------------------------------------------
    def _is_mem(self, ins):
        b = ins.base
        return b.startswith(("global_", "flat_", "scratch_", "buffer_", "ds_", "s_load", "s_buffer_load", "s_store",
                             "s_atomic", "s_scratch"))

    def _input_def(self, ins, w, uses):
        """Per-lane definedness of the instruction's inputs (k, 64) and a scalar summary;
        reports undefined values reaching sinks."""
        ex = self.ex
        b = ins.base
        vector = b.startswith(("v_", "global_", "flat_", "scratch_", "buffer_", "ds_"))
        lanes = ex.exec_lanes(w) if vector else None
        sd = np.ones(len(w), bool)
        vd = np.ones((len(w), 64), bool)
        s_uses = [r for r in uses if r < NS]
        v_uses = [r - NS for r in uses if r >= NS]
        if s_uses:
            sd = np.all(self.sdef[w][:, s_uses] == 0xFFFFFFFF, axis=1)
        if v_uses:
            vv = self.vdef[w][:, v_uses, :]
            if b in ("v_readlane_b32", "v_readfirstlane_b32"):
                src = self.vdef[w, v_uses[0]]
                if b == "v_readfirstlane_b32":
                    em = ex.exec_mask(w)
                    lane = np.where(em == 0, 0, np.argmax(ex.exec_lanes(w), axis=1))
                else:
                    lane = (ex.sread(ins.ops[2], w, 1).astype(np.int64) & 63) if ins.ops[2].kind != "v" else np.zeros(len(w), np.int64)
                ok = src[np.arange(len(w)), lane] & sd
                self._lo_def = None
                return np.repeat(ok[:, None], 64, axis=1), ok
            cross = ins.enc == "dpp" or b in ("ds_swizzle_b32",
                                              "ds_bpermute_b32", "ds_permute_b32") or ins.sem == "mfma"
            if cross:  # reads other lanes: defined when every active lane's source is
                act = lanes if lanes is not None else np.ones((len(w), 64), bool)
                if ins.sem == "mfma":
                    act = np.ones_like(act)
                vd = np.all(vv | ~act[:, None, :], axis=(1, 2))[:, None] & np.ones((1, 64), bool)
            else:
                vd = np.all(vv, axis=1)
        full = vd & sd[:, None]
        self._lo_def = None
        if b in _LEFTWARD and v_uses:
            # the low dword of a 64-bit add/shift-left result depends only on low input dwords
            lo_regs = []
            for i in self.roles(ins)[1] if False else _lo_operands(ins):
                lo_regs += _reg_slots(ins.ops[i], ex.accum_offset)[:1] if ins.ops[i].dwords == 2 else \
                    _reg_slots(ins.ops[i], ex.accum_offset)
            lv = [r - NS for r in lo_regs if r >= NS]
            ls = [r for r in lo_regs if r < NS]
            lo = np.all(self.vdef[w][:, lv, :], axis=1) if lv else np.ones((len(w), 64), bool)
            if ls:
                lo &= np.all(self.sdef[w][:, ls] == 0xFFFFFFFF, axis=1)[:, None]
            self._lo_def = lo
        sink = self._is_mem(ins) or b.startswith(("s_cbranch_vcc", "s_cbranch_exec", "s_setpc", "s_swappc"))
        if sink:
            act = lanes if lanes is not None else np.ones((len(w), 64), bool)
            if b.startswith("s_cbranch_vcc"):
                bad = ~np.all((self.sdef[w][:, [VCC, VCC + 1]] == 0xFFFFFFFF), axis=1)
                bad_l = bad[:, None] & act
            else:
                bad_l = ~full & act
            if bad_l.any():
                wi, li = np.argwhere(bad_l)[0]
                culprit = [r for r in uses if (r < NS and self.sdef[w[wi], r] != 0xFFFFFFFF)
                           or (r >= NS and not self.vdef[w[wi], r - NS, li])]
                regs = ", ".join(_name(r, ex.accum_offset) for r in culprit[:4]) or "an operand"
                self.report("uninit", f"{regs} holds a value never written in this wave (or computed from one), "
                                      "used here as an address, stored value or branch condition",
                            ins, int(w[wi]), int(li) if vector else None)
        return full, sd

    def _propagate(self, ins, w, defs, uses):
        ex = self.ex
        b = ins.base
        if not defs:
            return
        full, sd = self._in_def
        if self._is_mem(ins):  # loaded data is defined (memory is not tracked)
            full = np.ones_like(full)
            sd = np.ones_like(sd)
        lanes = ex.exec_lanes(w)
        if ins.sem == "mfma" or b == "v_writelane_b32":
            lanes = np.ones_like(lanes)
        s_defs = [r for r in defs if r < NS]
        v_defs = [r - NS for r in defs if r >= NS]
        for k, r in enumerate(v_defs):
            val = self._lo_def if (k == 0 and self._lo_def is not None and not self._is_mem(ins)) else full
            self.vdef[w, r] = np.where(lanes, val, self.vdef[w, r])
        if not s_defs:
            return
        if b.startswith("v_"):  # lane masks (compares, carries) and readlane results
            if b in ("v_readlane_b32", "v_readfirstlane_b32"):
                val = np.where(full.all(axis=1), 0xFFFFFFFF, 0).astype(np.uint32)
                for r in s_defs:
                    self.sdef[w, r] = val
                return
            bits = (full & lanes) | ~lanes  # inactive lanes are written 0: defined
            m = (bits.astype(U64) << np.arange(64, dtype=U64)).sum(axis=1, dtype=U64)
            lo, hi = (m & U64(0xFFFFFFFF)).astype(np.uint32), (m >> U64(32)).astype(np.uint32)
            for k, r in enumerate(s_defs):
                self.sdef[w, r] = lo if k % 2 == 0 else hi
            if b.startswith("v_cmpx"):
                self.sdef[w, EXEC], self.sdef[w, EXEC + 1] = lo, hi
            return
        self._salu_def(ins, w, s_defs, uses, sd)

    def _salu_def(self, ins, w, s_defs, uses, sd):
        """Bit-precise definedness for the SALU logic ops that build lane masks."""
        ex = self.ex
        b = ins.base
        n = 2 if b.endswith("64") else 1
        ops = ins.ops

        def val_def(op):  # (value, defined bits) as uint64
            if op.kind == "s":
                v = ex.sread(op, w, n).astype(U64)
                d = self.sdef[w, op.index].astype(U64)
                if n == 2:
                    d = d | (self.sdef[w, op.index + 1].astype(U64) << U64(32))
                return v, d
            full = U64(0xFFFFFFFFFFFFFFFF if n == 2 else 0xFFFFFFFF)
            return ex.sread(op, w, n).astype(U64) if op.kind != "off" else np.zeros(len(w), U64), np.full(len(w), full)

        def put(r0, d):
            self.sdef[w, r0] = (d & U64(0xFFFFFFFF)).astype(np.uint32)
            if n == 2 and r0 + 1 < NS:
                self.sdef[w, r0 + 1] = (d >> U64(32)).astype(np.uint32)

        kind = b.split("_")[1] if b.count("_") >= 2 else ""
        # The handler already ran: read sources as they were is not possible for in-place ops,
        # so the rules use the stored input definedness captured before (see _in_def) when the
        # destination aliases a source; values of sources are re-read (they are unchanged
        # unless aliased, and aliasing only matters for the value-dependent and/or rules).
        if b in ("s_mov_b32", "s_mov_b64") and ops[1].kind == "s":
            put(ops[0].index, self._pre_sdef(ops[1], n))
            return
        if "saveexec" in b or "wrexec" in b:
            # exec <- f(src, exec) bit-precisely; sdst <- old exec (saveexec) or the new exec (wrexec)
            d_src, d_exec = self._pre_sdef(ops[1], 2), self._pre_exec_def
            s_v, e_v = self._pre_src, self._pre_exec
            k = b[2:].split("_")[0]
            ops2 = {"and": (s_v, e_v, "and"), "andn2": (s_v, ~e_v, "and"), "andn1": (~s_v, e_v, "and"),
                    "or": (s_v, e_v, "or"), "orn2": (s_v, ~e_v, "or"), "orn1": (~s_v, e_v, "or")}.get(k)
            if ops2 is None:
                d_new = d_src & d_exec
            elif ops2[2] == "and":
                d_new = (d_src & d_exec) | (d_src & ~ops2[0]) | (d_exec & ~ops2[1])
            else:
                d_new = (d_src & d_exec) | (d_src & ops2[0]) | (d_exec & ops2[1])
            put(ops[0].index, d_exec if "saveexec" in b else d_new)
            self.sdef[w, EXEC] = (d_new & U64(0xFFFFFFFF)).astype(np.uint32)
            self.sdef[w, EXEC + 1] = (d_new >> U64(32)).astype(np.uint32)
            return
        if kind in ("and", "or", "andn2", "orn2") and len(ops) == 3:
            a_v, b_v = self._pre_vals
            da, db = self._pre_sdef(ops[1], n), self._pre_sdef(ops[2], n)
            if kind in ("andn2", "orn2"):
                b_v = ~b_v
            if kind.startswith("and"):
                d = (da & db) | (da & ~a_v) | (db & ~b_v)
            else:
                d = (da & db) | (da & a_v) | (db & b_v)
            put(ops[0].index, d)
            return
        full = U64(0xFFFFFFFFFFFFFFFF)
        d = np.where(sd, full, U64(0))
        for r in s_defs:
            self.sdef[w, r] = (d & U64(0xFFFFFFFF)).astype(np.uint32)

    def _pre_sdef(self, op, n):
        full = U64(0xFFFFFFFFFFFFFFFF if n == 2 else 0xFFFFFFFF)
        if op.kind != "s":
            return np.full(len(self._w), full)
        d = self._pre_def_rows[:, op.index].astype(U64)
        if n == 2:
            d = d | (self._pre_def_rows[:, op.index + 1].astype(U64) << U64(32))
        return d

    def _counters(self, ins):
        s = ins.sem
        if s == "smem" and ins.base not in ("s_dcache_inv", "s_dcache_wb"):
            return (1, 2)
        if s == "lds" or ins.base.startswith("ds_"):
            return (1,)
        if s.startswith("flat"):
            return (0, 1)
        if s.startswith("vmem") or ins.base.startswith(("global_", "buffer_", "scratch_")):
            return (0,)
        return ()

    def waitcnt(self, ins, w):
        m = ins.mods
        if "vmcnt" in m:
            self.done[0, w] = np.maximum(self.done[0, w], self.issued[0, w] - m["vmcnt"])
        if "lgkmcnt" in m:
            self.done[1, w] = np.maximum(self.done[1, w], self.issued[1, w] - m["lgkmcnt"])
            if m["lgkmcnt"] == 0:
                self.done[2, w] = self.issued[2, w]

    def _check_pending(self, ins, w, regs, overwrite=False):
        u = np.array(regs)
        for c in (0, 1, 2):
            p = self.pend[c][w][:, u]
            bad = p > self.done[c, w][:, None]
            if bad.any():
                wi, ri = np.argwhere(bad)[0]
                reg = _name(int(u[ri]), self.ex.accum_offset)
                cnt = ("vmcnt", "lgkmcnt", "lgkmcnt(0) (SMEM returns out of order)")[c]
                what = "overwritten" if overwrite else "read"
                extra = " (the load's data would land later and replace this value)" if overwrite else ""
                self.report("unwaited", f"{reg} is {what} before the load that writes it (pc=0x"
                                        f"{int(self.pend_pc[w[wi], u[ri]]):x}) was waited for with s_waitcnt {cnt}"
                                        f"{extra}", ins, int(w[wi]))
                return

    # ---- hazards (MI300 ISA guide 4.5, "Manually Inserted Wait States (NOPs)") --------------------------
    def _hazards(self, ins, w, uses):
        b = ins.base
        ws = self.ws[w]
        sem = ins.sem
        is_vmem = sem.startswith(("vmem", "flat")) or b.startswith(("global_", "buffer_", "scratch_", "flat_"))
        s_uses = [r for r in uses if r < NS]
        if is_vmem and s_uses:  # VALU writes SGPR -> VMEM reads that SGPR: 5 wait states
            gap = ws[:, None] - self.valu_sgpr[w][:, s_uses]
            self._need(gap, 5, ins, w, "a VALU instruction wrote an SGPR that this memory instruction reads")
        if b in ("v_readlane_b32", "v_writelane_b32") and len(ins.ops) > 2 and ins.ops[2].kind == "s":
            gap = ws - self.valu_sgpr[w, ins.ops[2].index]
            self._need(gap[:, None], 4, ins, w, "a VALU instruction wrote the lane-select SGPR")
        if b.startswith("v_div_fmas"):
            gap = ws - np.max(self.valu_sgpr[w][:, [VCC, VCC + 1]], axis=1)
            self._need(gap[:, None], 4, ins, w, "a VALU instruction wrote VCC, which v_div_fmas reads")
        if ins.enc == "dpp":
            gap = ws - self.valu_exec[w]
            self._need(gap[:, None], 5, ins, w, "a VALU instruction wrote EXEC before this DPP instruction")
            src = ins.ops[1] if len(ins.ops) > 1 else None
            if src is not None and src.kind == "v":
                gap = ws - self.valu_vgpr[w, src.index]
                self._need(gap[:, None], 2, ins, w, f"a VALU instruction wrote {src}, which this DPP instruction reads")
        if (b.startswith("s_movrel") or b == "s_sendmsg" or "addtid" in b or "lds" in ins.mods) \
                and b.startswith(("s_", "ds_", "buffer_", "global_")):
            gap = ws - self.salu_m0[w]
            self._need(gap[:, None], 1, ins, w, "an SALU instruction wrote M0 just before its use")

        v_uses = [r - NS for r in uses if r >= NS]
        is_valu = b.startswith("v_") and sem != "mfma"
        lane_ops = ("v_readlane_b32", "v_readfirstlane_b32", "v_writelane_b32")
        if is_valu and s_uses and b not in ("v_readlane_b32", "v_writelane_b32"):
            # gfx90a+: VALU writes SGPR -> VALU reads that SGPR: 2
            sg = [r for r in s_uses if r not in (EXEC, EXEC + 1)]
            if sg:
                gap = ws[:, None] - self.valu_sgpr[w][:, sg]
                self._need(gap, 2, ins, w, "a VALU instruction wrote an SGPR that this VALU instruction reads")
        if b in lane_ops:
            gap = ws - self.valu_exec[w]  # VALU writes EXEC -> v_readlane/readfirstlane/writelane: 4
            self._need(gap[:, None], 4, ins, w, "a VALU instruction wrote EXEC before this lane access")
            if b != "v_writelane_b32" and ins.ops[1].kind == "v":  # VALU writes VGPR -> v_readlane reads it: 1
                gap = ws - self.valu_vgpr[w, ins.ops[1].index]
                self._need(gap[:, None], 1, ins, w, f"a VALU instruction wrote {ins.ops[1]} just before v_readlane")
        if v_uses and (is_valu or is_vmem or b.startswith("ds_")):
            # MFMA (P passes) writes VGPR -> VALU reads it: P + 3; VMEM/LDS/FLAT reads it: P + 2
            # (gfx940 XDL dependency table; clang 22 emits exactly P + 2 before a store of an
            # MFMA result, e.g. s_nop 9 after a 8-pass v_mfma_f32_16x16x4_f32)
            gap = ws[:, None] - self.mfma_w[w][:, v_uses]
            need = self.mfma_p[w][:, v_uses] + (3 if is_valu else 2)
            self._need_var(gap, need, ins, w, "an MFMA wrote a register this instruction reads before its result "
                                              "was ready")
        if v_uses and is_valu and sem != "trans":  # trans VALU writes VGPR -> non-trans VALU reads it: 1
            gap = ws[:, None] - self.trans_w[w][:, v_uses]
            self._need(gap, 1, ins, w, "a transcendental result is read by the next VALU instruction")
        if sem == "mfma" and len(ins.ops) >= 4:
            ao = self.ex.accum_offset
            ab = [r - NS for i in (1, 2) for r in _reg_slots(ins.ops[i], ao) if r >= NS]
            if ab:  # VALU writes VGPR -> MFMA reads it: 2; MFMA result -> SrcA/B: P + 3
                gap = ws[:, None] - self.valu_vgpr[w][:, ab]
                self._need(gap, 2, ins, w, "a VALU instruction wrote an MFMA source operand")
                gap = ws[:, None] - self.mfma_w[w][:, ab]
                self._need_var(gap, self.mfma_p[w][:, ab] + 3, ins, w, "an MFMA result is used as SrcA/SrcB")
            c = [r - NS for r in _reg_slots(ins.ops[3], ao) if r >= NS]
            if c:  # previous MFMA result as SrcC: same range back-to-back is fine (2 for 2-pass), overlap P + 1
                same = self.mfma_dst[w][:, c] == c[0]
                p = self.mfma_p[w][:, c]
                need = np.where(same, np.where(p == 2, 2, 0), p + 1)
                gap = ws[:, None] - self.mfma_w[w][:, c]
                self._need_var(gap, need, ins, w, "an MFMA result overlaps this MFMA's SrcC")

    def _need_var(self, gap, need, ins, w, what):
        bad = gap < need
        if bad.any():
            wi, ri = np.argwhere(bad)[0]
            self.report("hazard", f"{what}: needs {int(need[wi, ri])} wait states, got {max(int(gap[wi, ri]), 0)} "
                                  "(insert s_nop)", ins, int(w[wi]))

    def _need(self, gap, n, ins, w, what):
        bad = gap < n  # gap = wait states issued since the producer (s_nop N counts N+1)
        if bad.any():
            wi = int(np.argwhere(bad)[0][0])
            got = int(gap[wi].min())
            self.report("hazard", f"{what}: needs {n} wait states, got {max(got, 0)} "
                                  "(insert s_nop)", ins, int(w[wi]))

    # ---- memory -----------------------------------------------------------------------------------------
    def access(self, space, addrs, n, mask, w, ins, write):
        """Check one access; returns the mask of lanes allowed to proceed."""
        ex = self.ex
        atomic = "atomic" in ins.base or (ins.base.startswith("ds_") and not ins.base.startswith(
            ("ds_read", "ds_write", "ds_swizzle", "ds_permute", "ds_bpermute")))
        align = n if atomic else min(n, 4)
        mis = mask & ((addrs.astype(U64) % U64(align)) != 0)
        if mis.any():
            wi, li = np.argwhere(mis)[0]
            self.report("misaligned", f"{n}-byte {space} access at 0x{int(addrs[wi, li]):x} is not {align}-byte aligned",
                        ins, int(w[wi]), int(li))
        if space == "global":
            flat = addrs.reshape(-1)
            ok = ex.mem.check(flat, n).reshape(addrs.shape)
            bad = mask & ~ok
            if bad.any():
                wi, li = np.argwhere(bad)[0]
                a = int(addrs[wi, li])
                near = [al for al in ex.mem.allocs if al.live and al.addr - 4096 <= a < al.addr + al.size + 4096]
                if near:
                    al = near[0]
                    self.report("oob", f"{space} {'store' if write else 'load'} of {n} bytes at 0x{a:x} is outside "
                                       f"the {al.size}-byte allocation at 0x{al.addr:x} (offset {a - al.addr})",
                                ins, int(w[wi]), int(li))
                else:
                    self.report("unmapped", f"{space} {'store' if write else 'load'} at unmapped address 0x{a:x}",
                                ins, int(w[wi]), int(li))
                mask = mask & ok
        elif space == "lds":
            off = addrs.astype(np.int64)
            bad = mask & ((off + n > ex.lds_bytes) | (off < 0))
            if bad.any():
                wi, li = np.argwhere(bad)[0]
                self.report("oob", f"LDS access of {n} bytes at offset {int(off[wi, li])} is outside the "
                                   f"{ex.lds_bytes}-byte LDS allocation", ins, int(w[wi]), int(li))
                mask = mask & ~bad
            if not atomic:
                self._race(off, n, mask, w, ins, write)
        elif space == "scratch":
            off = addrs.astype(np.int64)
            bad = mask & ((off + n > ex.priv_bytes) | (off < 0))
            if bad.any():
                wi, li = np.argwhere(bad)[0]
                self.report("oob", f"scratch access at offset {int(off[wi, li])} is outside the {ex.priv_bytes}-byte "
                                   "private segment", ins, int(w[wi]), int(li))
                mask = mask & ~bad
        return mask

    def buffer_bounds(self, oob, w, ins):
        if oob.any():
            wi, li = np.argwhere(oob)[0]
            self.report("oob", "buffer access outside the resource's num_records (hardware returns 0 / drops the store)",
                        ins, int(w[wi]), int(li))

    def barrier(self, g):
        self.epoch[g] += 1

    def _race(self, off, n, mask, w, ins, write):
        ex = self.ex
        nd = self.lw_wave.shape[1]
        for wi, wave in enumerate(w):
            m = mask[wi]
            if not m.any():
                continue
            g = ex.wg_of[wave]
            ep = self.epoch[g]
            d0 = off[wi][m] // 4
            d1 = (off[wi][m] + n - 1) // 4
            ds = np.unique(np.concatenate([np.arange(a, b + 1) for a, b in zip(d0, d1)]))
            ds = ds[(ds >= 0) & (ds < nd)]
            other_w = (self.lw_epoch[g, ds] == ep) & (self.lw_wave[g, ds] != wave) & (self.lw_wave[g, ds] >= 0)
            if write:
                other_r = (self.lr_epoch[g, ds] == ep) & (self.lr_wave[g, ds] != wave) & (self.lr_wave[g, ds] != -1)
                bad = other_w | other_r
            else:
                bad = other_w
            if bad.any():
                d = int(ds[np.argmax(bad)])
                kind = "write" if write else "read"
                otherw = int(self.lw_wave[g, d]) if other_w.any() else int(self.lr_wave[g, d])
                other = "several waves" if otherw == -2 else f"wave {int(ex.wave_slot[otherw])}"
                self.report("lds-race", f"LDS {kind} of bytes {4 * d}..{4 * d + 3} races with {other} of the same "
                                        "workgroup in this barrier interval (no s_barrier between them)", ins, int(wave))
            if write:
                self.lw_wave[g, ds] = wave
                self.lw_epoch[g, ds] = ep
            else:
                fresh = self.lr_epoch[g, ds] != ep
                same = self.lr_wave[g, ds] == wave
                self.lr_wave[g, ds] = np.where(fresh | same, wave, -2)
                self.lr_epoch[g, ds] = ep


def _passes(ins) -> int:
    from gcnforge.emulator.ops_mfma import info_for

    info = info_for(ins.base)
    return max(info["cycles"] // 4, 1) if info else 16


_LEFTWARD = {"v_mad_u64_u32", "v_mad_i64_i32", "v_lshl_add_u64", "v_lshlrev_b64", "v_mov_b64", "v_add_co_u32",
             "v_addc_co_u32"}


def _lo_operands(ins):
    """Source operand indices of a _LEFTWARD instruction (all sources; only low dwords count)."""
    defs, uses = operand_roles(ins)
    return [i for i in uses if ins.ops[i].kind in ("v", "a", "s")]


def _name(r, accum_offset):
    if r < NS:
        special = {106: "vcc_lo", 107: "vcc_hi", 124: "m0", 126: "exec_lo", 127: "exec_hi", 102: "flat_scratch_lo",
                   103: "flat_scratch_hi"}
        return special.get(r, f"ttmp{r - 108}" if 108 <= r < 124 else f"s{r}")
    v = r - NS
    return f"v{v}" if v < accum_offset else f"a{v - accum_offset}"

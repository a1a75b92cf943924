"""The sanitizer: checks an execution for the bugs hardware turns into silent garbage.

Enabled with ``Device.run(..., sanitize=True)``. Each report is a ``SanitizerReport``
(a ``Diagnostic``) located at kernel, pc, instruction text, workgroup, wave and lane, with
a ``kind``:

* ``unmapped`` / ``oob`` / ``misaligned`` — global, flat, buffer, scratch and LDS accesses
  outside what is mapped/allocated, or not naturally aligned (to min(size, 4) bytes; atomics
  to their full size). ``oob`` is any access past an array's own size, even inside the page
  rounding a GPU maps (memory.py), naming the allocation (the runtime names it after the
  kernel argument); a buffer access is checked against the allocation its resource's base
  points into. A buffer (MUBUF/MTBUF) lane outside its resource's ``num_records`` is
  not a report: the range check makes it defined (loads 0, stores and atomics dropped);
  the in-range lanes are checked like global accesses. In continue mode the lanes a GPU
  would still execute (memory.py) go on;
* ``unwaited`` — a register read while a load that writes it is still outstanding, or an
  ``s_barrier`` reached while an LDS write is outstanding (other waves would not see it), or
  LDS accessed while an LDS DMA of the same wave that writes it is outstanding (vmcnt).
  Counters follow the one counter model, ``gcnforge.isa.counters``, as the executor counts them
  (``outstanding.py``): ``counter(N)`` retires
  all but the newest N operations only while the counter retires in order (one kind of
  event pending; no SMEM, no FLAT), otherwise only a count of 0 does;
* ``uninit`` — a register read (in an active lane) that nothing in this wave wrote;
* ``lds-race`` — two waves of a workgroup touch the same LDS dword inside one barrier
  interval and at least one writes (atomics excepted), or one reaches LDS that another's LDS DMA
  writes after an ``s_barrier`` that wave reached before retiring the DMA with ``s_waitcnt
  vmcnt`` (``sanitizer_lds_dma.py``); the report names the other access's pc;
* ``hazard`` — an instruction executed fewer wait states after a producer than the ISA
  guide (4.5 "Manually Inserted Wait States (NOPs)", gfx940 table) requires;
* ``exec`` — gfx950's transposing LDS reads (ds_read_*_tr_*) with EXEC not all ones (CDNA4
  ISA guide 11.4 requires it; they must also be aligned to their data size, 8 bytes, 16 for
  ds_read_b96_tr_b6: ``misaligned``);
* ``budget`` — the instruction budget ran out (endless loop; a sanitized run stops by default
  after ``device.SANITIZE_MAX_WAVE_INSTRUCTIONS`` per wave, see ``Device.run``).

Mode ``stop`` raises the first report; ``continue`` collects each site (pc, kind) once, its
first occurrence in full, in ``RunStats.reports``, counts every occurrence in
``RunStats.report_counts`` and goes on (bad lanes of a memory access are dropped). Reports a
suppression rule matches (``suppressions.py``) are only counted, in ``RunStats.suppressed``,
in both modes.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WAVE
from gcnforge.emulator.executor import EmulationError, ExecLoc, _source
from gcnforge.emulator.memory import GUARD
from gcnforge.emulator.program import EXEC, M0
from gcnforge.emulator.sanitizer_defined import DefinednessMixin
from gcnforge.emulator.sanitizer_lds_dma import LdsDmaMixin
from gcnforge.emulator.sanitizer_hazards import MFMA_NEED, HazardMixin, partial_write as _partial_write, store_data
from gcnforge.emulator.sanitizer_regs import NS, _name, _reg_slots, operand_roles  # noqa: F401
from gcnforge.isa import counters
from gcnforge.isa import hazards as hz
from gcnforge.isa import mfma as isa_mfma

U64 = np.uint64


def _writes_lds(base: str) -> bool:
    """A DS instruction that writes LDS (stores and atomics; not reads, swizzles, permutes)."""
    return not base.startswith(("ds_read", "ds_swizzle", "ds_permute", "ds_bpermute", "ds_nop", "ds_gws",
                                "ds_consume", "ds_append", "ds_ordered"))


class SanitizerReport(EmulationError):
    pass


class Sanitizer(DefinednessMixin, HazardMixin, LdsDmaMixin):
    def __init__(self, image, prog, stats, mode="stop", suppress=None):
        if mode not in ("stop", "continue"):
            raise ValueError(f"sanitize_mode must be 'stop' or 'continue', not {mode!r}")
        self.image, self.prog, self.stats, self.mode = image, prog, stats, mode
        self.suppress = suppress  # a suppressions.Suppressions, or None
        self._roles = {}
        self._mneeds = {}

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
        self.vdef = np.zeros((W, NV, WAVE), bool)
        self.vdef[:, 0, :] = True  # work-item ids
        # outstanding memory operations, per counter (0 vmcnt, 1 lgkmcnt): per-register sequence
        # number of the newest pending write
        self.pend = np.zeros((2, W, R), np.int64)
        self.pend_pc = np.zeros((W, R), np.int64)
        # per-wave issue/retirement counts: the executor's model (outstanding.WaitCounters), read here
        self.issued, self.done = ex.waits.issued, ex.waits.done
        self.lds_write = np.zeros(W, np.int64)  # lgkmcnt sequence number of the newest LDS write
        self.lds_write_pc = np.zeros(W, np.int64)
        # hazards: wait-state clock and the clock of the last relevant writes
        self.ws = np.zeros(W, np.int64)
        self.valu_sgpr = np.full((W, NS), -100, np.int64)
        self.valu_vgpr = np.full((W, NV), -100, np.int64)
        self.valu_exec = np.full(W, -100, np.int64)
        self.salu_m0 = np.full(W, -100, np.int64)
        self.mfma_w = np.full((W, NV), -100, np.int64)  # wait-state clock of an MFMA's write
        self.mfma_need = np.zeros((len(MFMA_NEED), W, NV), np.int64)  # its hazard-table wait states per use
        self.mfma_dgemm = np.zeros((W, NV), bool)
        self.mfma_xdl = np.zeros((W, NV), bool)
        self.mfma_dst = np.full((W, NV), -1, np.int64)  # first register of its destination range
        self.trans_w = np.full((W, NV), -100, np.int64)
        self.partial_w = np.full((W, NV), -100, np.int64)  # VALU wrote part of the VGPR (SDWA / op_sel)
        self.srcc_w = np.full((W, NV), -100, np.int64)  # an MFMA read it as SrcC ...
        self.srcc_need = np.zeros((W, NV), np.int64)  # ... and a VALU overwrite needs this many wait states
        self.store_w = np.full((W, NV), -100, np.int64)  # a VMEM store of > 8 bytes read it as data
        self.setreg_w = np.full(W, -100, np.int64)
        self.legacy_v = np.full((W, NV), -100, np.int64)  # a VALU op that is no MFMA and no DOT wrote it
        self.dot_w = np.full((W, NV), -100, np.int64)  # a DOT (v_dot*) wrote it ...
        self.dot_op = np.full((W, NV), -1, np.int64)  # ... which one (an id from self.dot_ids)
        self.dot_ids: dict[str, int] = {}
        self.dgemm_at = np.full(W, -100, np.int64)  # the last DGEMM issued
        # LDS race tracking per workgroup (dword granularity)
        G = len(ex.wgs)
        nd = max(ex.lds_bytes // 4, 1)
        self.epoch = np.zeros(G, np.int64)
        self.lw_wave = np.full((G, nd), -1, np.int64)
        self.lw_epoch = np.full((G, nd), -1, np.int64)
        self.lr_wave = np.full((G, nd), -1, np.int64)
        self.lr_epoch = np.full((G, nd), -1, np.int64)
        self.lw_pc = np.zeros((G, nd), np.int64)  # the pc of the last write / read (named in reports)
        self.lr_pc = np.zeros((G, nd), np.int64)
        self._dma_attach(G, nd, W)  # LDS DMA completion (sanitizer_lds_dma.py)

    # ---- reporting ---------------------------------------------------------------------------------
    def report(self, kind, message, ins, wave, lane=None, notes=()):
        ex = self.ex
        loc = ExecLoc(ex.kernel, ins.pc, ins.text, ex.wgs[ex.wg_of[wave]], int(ex.wave_slot[wave]), lane,
                      _source(ex.image, ins.pc))
        key = (ins.pc, kind)
        counts = self.stats.report_counts  # per (pc, kind) over the whole launch (every batch)
        if self.suppress is not None and self.suppress.match(ex.kernel, ins.pc, kind) is not None:
            self.stats.suppressed[key] = self.stats.suppressed.get(key, 0) + 1
            return
        if key in counts:  # a site already reported: counted, not built again
            counts[key] += 1
            return
        rep = SanitizerReport(f"sanitizer: {message}", loc, notes, kind=kind)
        if self.mode == "stop":
            raise rep
        counts[key] = 1
        self.stats.reports.append(rep)

    def roles(self, ins):
        r = self._roles.get(ins.pc)
        if r is None:
            defs, uses = operand_roles(ins)
            for i in (*defs, *uses):  # a VGPR beyond the allocation: the executor's own diagnostic
                if ins.ops[i].kind in ("v", "a"):
                    self.ex.vindex(ins.ops[i])
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
                # 64 bits for the saveexec/wrexec rules; one dword for the last SGPR (s_mov_b32 s1, exec_hi)
                src = ins.ops[1]
                n = 2 if src.kind == "imm" or src.index + 2 <= ex.S.shape[1] else 1
                self._pre_src = ex.sread(src, w, n).astype(U64)
            if len(ins.ops) == 3:
                n = 2 if ins.base.endswith("64") else 1
                try:
                    self._pre_vals = (ex.sread(ins.ops[1], w, n).astype(U64), ex.sread(ins.ops[2], w, n).astype(U64))
                except Exception:
                    self._pre_vals = (np.zeros(len(w), U64), np.zeros(len(w), U64))
        if ins.base == "s_barrier":
            self._check_barrier(ins, w)
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
        # outstanding results of memory instructions (the executor counted this one: ex.waits)
        for c in ex.waits.rows(ins):
            for r in defs:
                self.pend[c, w, r] = self.issued[c, w]
                self.pend_pc[w, r] = ins.pc
        if counters.event(sem) == "lds" and _writes_lds(ins.base):
            self.lds_write[w] = self.issued[1, w]
            self.lds_write_pc[w] = ins.pc
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
            if vd and sem != "mfma":
                if ins.base.startswith(hz.DOT):
                    self.dot_w[np.ix_(w, vd)] = self.ws[w][:, None]
                    self.dot_op[np.ix_(w, vd)] = self.dot_ids.setdefault(ins.mnemonic, len(self.dot_ids))
                else:
                    self.legacy_v[np.ix_(w, vd)] = self.ws[w][:, None]
            if sem == "mfma" and ins.base.startswith("v_mfma_f64"):
                self.dgemm_at[w] = self.ws[w]
            if vd and _partial_write(ins):
                self.partial_w[np.ix_(w, vd)] = self.ws[w][:, None]
            if vd and sem == "mfma":
                c = [r - NS for r in _reg_slots(ins.ops[3], self.ex.accum_offset) if r >= NS] \
                    if len(ins.ops) >= 4 else []
                if c:
                    self.srcc_w[np.ix_(w, c)] = self.ws[w][:, None]
                    self.srcc_need[np.ix_(w, c)] = hz.need("mfma_srcc_war", ins.mnemonic,
                                                           formats=isa_mfma.formats_of(ins.mnemonic, ins.mods))
                self.mfma_w[np.ix_(w, vd)] = self.ws[w][:, None]
                for k, n in enumerate(self._mfma_needs(ins.mnemonic, isa_mfma.formats_of(ins.mnemonic, ins.mods))):
                    self.mfma_need[k][np.ix_(w, vd)] = n
                self.mfma_dgemm[np.ix_(w, vd)] = ins.base.startswith("v_mfma_f64")
                info = isa_mfma.info(ins.mnemonic)
                self.mfma_xdl[np.ix_(w, vd)] = info is None or info.xdl
                self.mfma_dst[np.ix_(w, vd)] = vd[0]
            elif vd and sem == "trans":
                self.trans_w[np.ix_(w, vd)] = self.ws[w][:, None]
        elif ins.base.startswith("s_") and M0 in defs:
            self.salu_m0[w] = self.ws[w]
        if ins.base.startswith("s_setreg"):
            self.setreg_w[w] = self.ws[w]
        if sem in hz.STORE_DATA_CLASSES:
            data = store_data(ins, self.ex.accum_offset)
            if data:
                self.store_w[np.ix_(w, data)] = self.ws[w][:, None]

    def _mfma_needs(self, mnemonic, formats=None):
        # (gfx950 f8f6f4 MFMAs: the pass count depends on the formats, gcnforge.isa.mfma.passes)
        n = self._mneeds.get((mnemonic, formats))
        if n is None:
            n = self._mneeds[(mnemonic, formats)] = tuple(hz.need(k, mnemonic, formats=formats) for k in MFMA_NEED)
        return n

    def _check_barrier(self, ins, w):
        bad = self.lds_write[w] > self.done[1, w]
        if bad.any():
            wi = int(np.argmax(bad))
            self.report("unwaited", f"s_barrier while an LDS write (pc=0x{int(self.lds_write_pc[w[wi]]):x}) may still "
                                    "be in flight: other waves may not see it (needs s_waitcnt lgkmcnt(0) before the "
                                    "barrier)", ins, int(w[wi]))

    def _check_pending(self, ins, w, regs, overwrite=False):
        u = np.array(regs)
        for c in (0, 1):
            p = self.pend[c][w][:, u]
            bad = p > self.done[c, w][:, None]
            if bad.any():
                wi, ri = np.argwhere(bad)[0]
                reg = _name(int(u[ri]), self.ex.accum_offset)
                cnt = ("vmcnt", "lgkmcnt")[c]
                what = "overwritten" if overwrite else "read"
                extra = " (the load's data would land later and replace this value)" if overwrite else ""
                self.report("unwaited", f"{reg} is {what} before the load that writes it (pc=0x"
                                        f"{int(self.pend_pc[w[wi], u[ri]]):x}) was waited for with s_waitcnt {cnt}"
                                        f"{extra}", ins, int(w[wi]))
                return

    # ---- memory -----------------------------------------------------------------------------------------
    def access(self, space, addrs, n, mask, w, ins, write, base=None):
        """Check one access; returns the mask of lanes allowed to proceed. ``base`` (k,): the
        pointer the addresses derive from (a buffer resource's base): a lane outside the
        allocation holding it is out of bounds even where another allocation lies."""
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
            ok = ex.mem.check(flat, n, exact=True).reshape(addrs.shape)
            own = ex.mem.within_owner(addrs, n, base, exact=True) if base is not None else None
            if own is not None:
                ok &= own
            bad = mask & ~ok
            if bad.any():
                wi, li = np.argwhere(bad)[0]
                a = int(addrs[wi, li])
                # what a GPU still executes (memory.py): accesses inside an allocation's mapped extent
                # (a store: its own buffer's), and loads that stay in the heap; in continue mode they go on
                hw = ex.mem.check(flat, n).reshape(addrs.shape)
                if write and base is not None:
                    own_hw = ex.mem.within_owner(addrs, n, base)
                    if own_hw is not None:
                        hw &= own_hw
                if not write:
                    hw |= ex.mem.in_heap(flat, n).reshape(addrs.shape)
                owner = int(base[wi]) if base is not None else a
                near = [al for al in ex.mem.allocs if al.live and al.addr - GUARD <= a < al.addr + al.mapped + GUARD]
                if near or hw[wi, li] or own is not None:
                    self.report("oob", f"{space} {'store' if write else 'load'} of {n} bytes at 0x{a:x} is "
                                       f"{ex.mem.describe_from(owner, a, n)}", ins, int(w[wi]), int(li))
                else:
                    self.report("unmapped", f"{space} {'store' if write else 'load'} at unmapped address 0x{a:x}",
                                ins, int(w[wi]), int(li))
                mask = mask & (ok | hw)
        elif space == "lds":
            off = addrs.astype(np.int64)
            mask = self._in_segment(off, n, ex.lds_bytes, mask, w, ins, lambda o: f"LDS access of {n} bytes at offset "
                                    f"{o} is outside the {ex.lds_bytes}-byte LDS allocation")
            if not atomic:
                self._race(off, n, mask, w, ins, write)
        elif space == "scratch":
            mask = self._in_segment(addrs.astype(np.int64), n, ex.priv_bytes, mask, w, ins, lambda o: f"scratch "
                                    f"access at offset {o} is outside the {ex.priv_bytes}-byte private segment")
        return mask

    def barrier(self, g):
        self.epoch[g] += 1
        self._dma_barrier(g)

    def _in_segment(self, off, n, size, mask, w, ins, message):
        """``mask`` without the lanes whose ``n`` bytes at ``off`` leave a ``size``-byte segment;
        the first such lane is reported (``message(offset)``)."""
        bad = mask & ((off + n > size) | (off < 0))
        if not bad.any():
            return mask
        wi, li = np.argwhere(bad)[0]
        self.report("oob", message(int(off[wi, li])), ins, int(w[wi]), int(li))
        return mask & ~bad

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
            self._dma_access(g, wave, ds, ins, write)
            other_w = (self.lw_epoch[g, ds] == ep) & (self.lw_wave[g, ds] != wave) & (self.lw_wave[g, ds] >= 0)
            if write:
                other_r = (self.lr_epoch[g, ds] == ep) & (self.lr_wave[g, ds] != wave) & (self.lr_wave[g, ds] != -1)
                bad = other_w | other_r
            else:
                bad = other_w
            if bad.any():
                d = int(ds[np.argmax(bad)])
                kind = "write" if write else "read"
                wrote = bool(other_w[np.argmax(bad)])
                otherw = int(self.lw_wave[g, d]) if wrote else int(self.lr_wave[g, d])
                other = "several waves" if otherw == -2 else f"wave {int(ex.wave_slot[otherw])}"
                pc = int(self.lw_pc[g, d] if wrote else self.lr_pc[g, d])
                self.report("lds-race", f"LDS {kind} of bytes {4 * d}..{4 * d + 3} races with the "
                                        f"{'write' if wrote else 'read'} at pc=0x{pc:x} by {other} of the same "
                                        "workgroup in this barrier interval (no s_barrier between them)", ins, int(wave))
            if write:
                self.lw_wave[g, ds] = wave
                self.lw_epoch[g, ds] = ep
                self.lw_pc[g, ds] = ins.pc
            else:
                fresh = self.lr_epoch[g, ds] != ep
                same = self.lr_wave[g, ds] == wave
                self.lr_wave[g, ds] = np.where(fresh | same, wave, -2)
                self.lr_epoch[g, ds] = ep
                self.lr_pc[g, ds] = ins.pc

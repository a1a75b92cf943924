"""Run the waves of a batch of workgroups: dispatch setup, scheduling, memory access.

Dispatch follows the hardware's wave launch for gfx942 (LLVM AMDGPUUsage, "Initial
Kernel Execution State"): user SGPRs in order — private segment buffer (4), dispatch
ptr (2), queue ptr (2), kernarg segment ptr (2), dispatch id (2), flat scratch init (2),
private segment size (1), then preloaded kernarg dwords — as the descriptor enables them;
then system SGPRs: workgroup id x, y, z, workgroup info (gfx942 has architected flat
scratch, so no private-segment wave offset SGPR). v0 holds the packed work-item ids
x | y << 10 | z << 20 for the components ``enable_vgpr_workitem_id`` enables; EXEC has
one bit per existing work-item (partial last wave).

Scheduling: among waves that can run, those at the lowest PC execute the next
instruction together (one NumPy operation over all of them). Lowest-PC-first keeps
diverged waves re-converging at loop exits; every 16th issue goes to the waves that waited
longest instead, so spin-waits between waves of a batch make progress. Workgroups run in
batches of about 256 waves, one batch after another: waiting on a workgroup of a later
batch (inter-workgroup locks beyond the batch) does not progress and ends at the budget. ``lockstep=False`` runs one wave at a time
instead (for the benchmark's comparison).
"""

from __future__ import annotations

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator import livelock
from gcnforge.emulator.core import LANE, WAVE, Machine, WaveFault, rows
from gcnforge.emulator.memory import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from gcnforge.emulator.outstanding import LdsDma, WaitCounters, dma_latency, is_lds_dma
from gcnforge.emulator.program import EXEC, M0
from gcnforge.isa.semantics import VSKIPPED
from gcnforge.isa.target import USER_SGPRS

U64 = np.uint64


class EmulationError(Diagnostic):
    """A fault (or sanitizer report) with its execution location."""

    def __init__(self, message, loc=None, notes=(), kind="fault"):
        super().__init__(message, loc, notes)
        self.kind = kind


class ExecLoc:
    """Where a running kernel was: the author's ``file:line:col`` when the code object has a
    line table (``source``), then kernel, pc, instruction, work-group, wave and lane."""

    def __init__(self, kernel, pc, text, wg, wave, lane, source=None):
        self.kernel, self.pc, self.text, self.wg, self.wave, self.lane = kernel, pc, text, wg, wave, lane
        self.source = source

    def __str__(self):
        lane = "" if self.lane is None else f" lane={self.lane}"
        src = f"{self.source}: " if self.source else ""
        return (f"{src}{self.kernel}: pc=0x{self.pc:x} '{self.text}' workgroup=({self.wg[0]},{self.wg[1]},{self.wg[2]}) "
                f"wave={self.wave}{lane}")


def _source(image, pc) -> str | None:
    """The author's line of ``pc`` from the image's code object (None without a line table)."""
    f = getattr(image, "source_of", None)
    return f(pc) if f is not None and pc is not None else None


class TraceEvent:
    """What ``Device.run(trace=...)`` receives before each executed instruction."""

    __slots__ = ("pc", "text", "waves", "workgroups", "state")

    def __init__(self, pc, text, waves, workgroups, state):
        self.pc, self.text, self.waves, self.workgroups, self.state = pc, text, waves, workgroups, state

    def __str__(self):
        return f"pc=0x{self.pc:x} waves={list(self.waves)} {self.text}"


class Executor(Machine):
    def __init__(self, device, image, prog, wgs, block, kernarg_addr, dispatch_ptr, queue_ptr,
                 lds_bytes, sanitizer=None, lockstep=True, budget=None, clock0=0, wave_budget=None):
        desc = image.descriptor
        self.device, self.image, self.prog = device, image, prog
        self.mem = device.memory
        self.block = block
        nthreads = block[0] * block[1] * block[2]
        self.waves_per_wg = -(-nthreads // WAVE)
        nw = self.waves_per_wg * len(wgs)
        super().__init__(nw, desc.next_free_vgpr, min(desc.accum_offset, desc.next_free_vgpr))
        self.kernel = image.name
        self.wgs = wgs
        self.wg_of = np.repeat(np.arange(len(wgs)), self.waves_per_wg)
        self.wave_slot = np.tile(np.arange(self.waves_per_wg), len(wgs))
        self.lds_bytes = lds_bytes
        # whole dwords, at least the widest access (ds_*_b128): lanes outside the range check index
        # from 0 (their result is discarded) even when the kernel has no LDS
        self.lds = np.zeros((len(wgs), (max(lds_bytes, 16) + 3) & ~3), dtype=np.uint8)
        self.priv_bytes = desc.private_segment_fixed_size
        self.scratch = np.zeros((nw, WAVE, max(self.priv_bytes, 4)), dtype=np.uint8)
        self.done = np.zeros(nw, dtype=bool)
        self.at_barrier = np.zeros(nw, dtype=bool)
        self.lockstep = lockstep
        self.budget = budget
        self.launch_budget = budget  # the whole launch's (Device.run sets it; batches get what is left)
        self.wave_budget = wave_budget  # instructions any one wave may execute (None: no limit)
        self.wave_executed = np.zeros(nw, np.int64) if wave_budget is not None else None
        self.executed = 0
        self.issued = 0
        self.mem_writes = 0  # stores/atomics so far (the livelock check's memory-changed test)
        self.waits = WaitCounters(nw)  # vmcnt/lgkmcnt issue and retirement (outstanding.py)
        self.lds_dma = LdsDma(dma_latency(image), nw)  # LDS DMA data until it lands
        # per LDS dword the clock of its last write, when the kernel has LDS DMA (lds_access)
        self.lds_clock = np.zeros(self.lds.size >> 2, np.int64) if any(map(is_lds_dma, prog.values())) else None
        self.livelock = livelock.Livelock()
        self.clock0 = clock0
        self.realtime_divider = 21  # s_memrealtime: 100 MHz against a 2.1 GHz shader clock
        self.ftz32 = desc.float_denorm_mode_32 == 0
        self.fp16_ovfl = bool(desc.fp16_overflow)  # MODE.FP16_OVFL: FP8/BF8 conversions saturate
        # MODE register from compute_pgm_rsrc1 (ISA guide "MODE": FP_ROUND[3:0], FP_DENORM[7:4],
        # DX10_CLAMP[8], IEEE[9]); only flush-to-zero of f32 results is modelled, round to nearest even
        self.hwreg_mode[:] = (desc.float_round_mode_32 | (desc.float_round_mode_16_64 << 2)
                              | (desc.float_denorm_mode_32 << 4) | (desc.float_denorm_mode_16_64 << 6)
                              | (int(desc.dx10_clamp) << 8) | (int(desc.ieee_mode) << 9))
        self.sanitizer = sanitizer
        self.counts: dict[str, int] = {}
        self.trace = None
        self.observe = None  # timing mode (emulator/timing_mode.py): observe(space, addrs, n, mask, w)
        self.last_run = np.zeros(nw, dtype=np.int64)
        self._runnable = None  # indices of the waves that may run (None: recompute)
        self._setup(desc, kernarg_addr, dispatch_ptr, queue_ptr, nthreads)
        self.PC[:] = image.entry

    # ---- dispatch -------------------------------------------------------------------------
    def _setup(self, d, kernarg_addr, dispatch_ptr, queue_ptr, nthreads):
        s = 0
        W = self.W
        pointers = {"dispatch_ptr": dispatch_ptr, "queue_ptr": queue_ptr, "kernarg_segment_ptr": kernarg_addr}
        for name, n in USER_SGPRS.items():  # in the hardware's order; others (a scratch V#: unused) stay 0
            if not getattr(d, f"user_sgpr_{name}"):
                continue
            if name in pointers:
                self.swrite64(s, slice(None), np.full(W, pointers[name], U64))
            elif name == "private_segment_size":
                self.S[:, s] = self.priv_bytes
            s += n
        npre = d.user_sgpr_kernarg_preload_length
        if npre:
            # a damaged descriptor: preloaded dwords must be user SGPRs (compute_pgm_rsrc2.USER_SGPR
            # counts at most 31) read from inside the kernarg segment
            off = 4 * d.user_sgpr_kernarg_preload_offset
            where = f"{self.kernel}.kd+0x3a (kernarg_preload)"
            if s + npre > 31:
                raise Diagnostic(f"{npre} preloaded kernarg dwords after {s} user SGPRs exceed the 31 user SGPRs",
                                 where)
            seg = self.mem.find(kernarg_addr)
            if seg is None or kernarg_addr + off + 4 * npre > seg.addr + seg.size:
                size = 0 if seg is None else seg.addr + seg.size - kernarg_addr
                raise Diagnostic(f"kernarg preload of {4 * npre} bytes at offset {off} runs past the {size}-byte "
                                 "kernarg segment", where)
            ka = self.mem.read(kernarg_addr + off, 4 * npre)
            self.S[:, s : s + npre] = np.frombuffer(ka, np.uint32)
            s += npre
        if s != d.user_sgpr_count:
            # the descriptor's count wins (it is what the hardware uses)
            s = d.user_sgpr_count
        wgid = np.array(self.wgs, dtype=np.uint32)[self.wg_of]
        for i, on in enumerate((d.system_sgpr_workgroup_id_x, d.system_sgpr_workgroup_id_y,
                                d.system_sgpr_workgroup_id_z)):
            if on:
                self.S[:, s] = wgid[:, i]
                s += 1
        if d.system_sgpr_workgroup_info:
            self.S[:, s] = 0
            s += 1
        bx, by, bz = self.block
        tid = self.wave_slot[:, None] * WAVE + np.arange(WAVE)[None, :]
        x, y, z = tid % bx, (tid // bx) % by, tid // (bx * by)
        v0 = x.astype(np.uint32)
        if d.system_vgpr_workitem_id >= 1:
            v0 = v0 | (y.astype(np.uint32) << 10)
        if d.system_vgpr_workitem_id >= 2:
            v0 = v0 | (z.astype(np.uint32) << 20)
        if self.nv < 1:
            raise Diagnostic("kernel descriptor allocates no VGPRs")
        self.V[:, 0, :] = v0
        live = tid < nthreads
        self.swrite64(EXEC, slice(None), (live.astype(U64) << LANE).sum(axis=1, dtype=U64))
        self.init_sgprs = s
        self.user_sgprs = d.user_sgpr_count

    # ---- barriers / end --------------------------------------------------------------------
    def arrive_barrier(self, w):
        self.at_barrier[w] = True
        self._runnable = None
        self._release(np.unique(self.wg_of[w]))

    def end_waves(self, w):
        self.lds_dma.land(self, w, force=True)  # a wave's outstanding LDS DMAs still land
        self.done[w] = True
        self.at_barrier[w] = False
        self._runnable = None
        self._release(np.unique(self.wg_of[w]))

    def _release(self, groups):
        """Release the barrier of every group in ``groups`` whose live waves all wait at it."""
        wpg = self.waves_per_wg
        done = self.done.reshape(-1, wpg)[groups]
        live = ~done
        rel = groups[live.any(axis=1) & (self.at_barrier.reshape(-1, wpg)[groups] | done).all(axis=1)]
        if not len(rel):
            return
        self.at_barrier.reshape(-1, wpg)[rel] = False
        cyc = self.cycles.reshape(-1, wpg)
        cyc[rel] = cyc[rel].max(axis=1, keepdims=True)
        self._runnable = None
        if self.sanitizer is not None:
            for g in rel:
                self.sanitizer.barrier(int(g))

    def clock(self, w):
        return (self.clock0 + self.cycles[w]).astype(U64)

    # ---- run -----------------------------------------------------------------------------
    def run(self):
        prog = self.prog
        budget = self.budget
        while True:
            idx = self._runnable
            if idx is None:  # the set changed (a barrier, a release, an end)
                idx = self._runnable = np.nonzero(~self.done & ~self.at_barrier)[0]
            if not len(idx):
                if self.done.all():
                    return
                stuck = np.nonzero(~self.done)[0]
                raise self._error(WaveFault("deadlock: waves wait at s_barrier for waves of their workgroup "
                                            "that ended or wait elsewhere"), int(stuck[0]), None)
            pcs = self.PC[idx]
            if self.issued % 16 == 15 and len(idx) > 1:
                # fairness: now and then run the waves that waited longest, so a wave spinning
                # at a low PC (a lock, a flag in LDS) cannot starve the wave it waits for
                pc = int(self.PC[idx[np.argmin(self.last_run[idx])]])
            else:
                pc = int(pcs.min())
            w = idx[pcs == pc] if self.lockstep else idx[pcs == pc][:1]
            r = rows(w)
            self.last_run[r] = self.issued
            ins = prog.get(pc)
            if ins is None:
                raise self._error(WaveFault(f"pc 0x{pc:x} is not the start of an instruction of kernel "
                                            f"'{self.kernel}' (jump outside the kernel or into an instruction)"),
                                  int(w[0]), None, text="<no instruction>", pc=pc)
            if self.issued % livelock.EVERY == 0 and self.issued:
                first = self.livelock.repeats(self)
                if first is not None:
                    raise self._error(WaveFault(
                        f"the kernel never finishes: the machine state at issue {self.issued} repeats that of "
                        f"issue {first} and no memory was written in between (a spin-wait nothing releases?)"),
                        int(w[0]), ins, kind="budget")
            self.executed += len(w)
            self.issued += 1
            if budget is not None and self.executed > budget:
                raise self._error(WaveFault(f"instruction budget of {self.launch_budget} wave-instructions exhausted "
                                            "(endless loop?); raise max_instructions (gcnforge run "
                                            "--max-instructions N) if the kernel is just long"),
                                  int(w[0]), ins, kind="budget")
            if self.wave_executed is not None:
                self.wave_executed[r] += 1
                if int(self.wave_executed[r].max()) > self.wave_budget:
                    raise self._error(WaveFault(
                        f"a wave executed more than {self.wave_budget} instructions, the default budget per "
                        "wave of a sanitized run (endless loop?); give the launch a budget (max_instructions, "
                        "gcnforge run --max-instructions N) if the kernel is just long"),
                        int(w[0]), ins, kind="budget")
            if self.trace is not None:
                self.trace(TraceEvent(pc, ins.text, [int(self.wave_slot[i]) for i in w],
                                      [self.wgs[self.wg_of[i]] for i in w], self))
            self.PC[r] = pc + ins.size
            self.cycles[r] += ins.cycles
            if self.modes_used and ins.sem in VSKIPPED and self.vskip[w].any():  # s_setvskip: not issued
                w = w[~self.vskip[w]]
                if len(w) == 0:
                    continue
            try:
                if self.sanitizer is not None:
                    self.sanitizer.before(ins, w)
                if self.modes_used and self.gpr_idx_mode[w].any() and ins.base.startswith("v_"):
                    self._gpr_indexed(ins, w)
                else:
                    ins.handler(self, ins, w)
                self.waits.issue(ins, w)
                if self.sanitizer is not None:
                    self.sanitizer.after(ins, w)
            except WaveFault as f:
                wave = next(iter(f.lanes), int(w[0]))
                raise self._error(f, wave, ins, lane=f.lanes.get(wave), kind=getattr(f, "kind", "fault")) from None
            self.counts[ins.base] = self.counts.get(ins.base, 0) + len(w)

    def _gpr_indexed(self, ins, w):
        """VGPR indexing mode (s_set_gpr_idx_on): add M0[7:0] to the vector-register operands the
        mode bits select (bit0 src0, bit1 src1, bit2 src2, bit3 dst), one wave at a time. AccVGPR
        operands are vector-register operands too (an ACC bit on a VGPR field): the index moves
        ``v_accvgpr_read_b32 v, a0``'s a0 as it moves a v0 (ISA guide, S_SET_GPR_IDX_ON: vector
        operations "perform relative GPR addressing" on VSRC0/VSRC1/VSRC2/VDST); aiter's gfx950
        f4gemm epilogue walks its accumulators that way (tests/emulator/test_semantics.py,
        integration_test/emulator/test_aiter_f4gemm.py)."""
        for wi in w:
            mode = int(self.gpr_idx_mode[wi])
            if not mode:
                ins.handler(self, ins, np.array([wi]))
                continue
            off = int(self.S[wi, M0]) & 0xFF
            ops = list(ins.ops)
            ndst = 1
            for k, o in enumerate(ops):
                slot = 3 if k < ndst else min(k - ndst, 2)
                if o.kind in ("v", "a") and mode >> slot & 1:
                    ops[k] = o.replace(index=o.index + off)
            ins2 = ins.with_ops(ops)
            ins.handler(self, ins2, np.array([wi]))

    def _error(self, f, wave, ins, lane=None, kind="fault", text=None, pc=None):
        g = self.wgs[self.wg_of[wave]]
        at = ins.pc if ins is not None else pc
        loc = ExecLoc(self.kernel, at, text or (ins.text if ins else ""), g, int(self.wave_slot[wave]), lane,
                      _source(self.image, at))
        return EmulationError(f.message, loc, f.notes, kind=kind)

    # ---- memory access for lanes --------------------------------------------------------------
    def global_read(self, addr, n, ins, w, scalar=False, valid=None):
        """Scalar (per-wave) global read: addr (k,) -> (k, n) bytes."""
        ok = self.mem.check(addr, n)
        v = np.ones(len(addr), bool) if valid is None else valid
        bad = v & ~ok
        if bad.any():
            i = int(np.argmax(bad))
            raise WaveFault(f"scalar load of {n} bytes at unmapped address 0x{int(addr[i]):x}", {int(w[i]): None})
        return self.mem.gather(addr, n, v)

    def global_write(self, addr, data, valid, ins, w, scalar=False):
        self.mem_writes += 1
        ok = self.mem.check(addr, data.shape[1])
        bad = valid & ~ok
        if bad.any():
            i = int(np.argmax(bad))
            raise WaveFault(f"scalar store at unmapped address 0x{int(addr[i]):x}", {int(w[i]): None})
        self.mem.scatter(addr, data, valid)

    def _lds_words(self, off, n, m, w, data):
        """LDS access of whole aligned dwords (the common case), as uint32 gathers/scatters."""
        words = self.lds.reshape(-1).view(np.uint32)  # all groups' LDS, group after group
        full = m.all()
        idx = (off >> 2) + (self.wg_of[w] * (self.lds.shape[1] >> 2))[:, None]
        if not full:
            idx = np.where(m, idx, 0)
        if n > 4:
            idx = idx[:, :, None] + np.arange(n // 4)
        if data is None:
            r = words.take(idx)
            if not full:
                r[~m] = 0
            return r.view(np.uint8).reshape(len(w), WAVE, n)
        d = np.ascontiguousarray(data).view(np.uint32).reshape(idx.shape)
        if full:
            words[idx] = d
        else:
            sel = np.nonzero(m)
            words[idx[sel]] = d[sel]
        return None

    def _fault_lanes(self, bad, w, what):
        wi, li = np.argwhere(bad)[0]
        return WaveFault(what, {int(w[wi]): int(li)})

    def lane_access(self, space, addrs, n, mask, w, ins, data=None, check_global=True, base=None):
        """Per-lane memory access. ``space`` 'global' | 'flat' | 'scratch' | 'lds'; addrs (k,64)
        uint64 (byte addresses, or offsets for lds/scratch). Reads return (k,64,n) uint8;
        writes store ``data`` (k,64,n) where ``mask``. ``base`` (k,): the pointer the addresses
        derive from (a buffer resource's base): a store must stay in its allocation's extent."""
        k = len(w)
        if data is not None:
            self.mem_writes += 1
        if space == "flat":
            hi = (addrs >> U64(32)).astype(np.uint64)
            is_lds = mask & (hi == U64(SHARED_APERTURE_HI))
            is_prv = mask & (hi == U64(PRIVATE_APERTURE_HI))
            is_glb = mask & ~is_lds & ~is_prv
            lo = addrs & U64(0xFFFFFFFF)
            out = np.zeros((k, WAVE, n), np.uint8) if data is None else None
            for sub, m, a in (("global", is_glb, addrs), ("lds", is_lds, lo), ("scratch", is_prv, lo)):
                if m.any():
                    r = self.lane_access(sub, a, n, m, w, ins, data)
                    if out is not None:
                        out[m] = r[m]
            return out
        if self.sanitizer is not None:
            mask = self.sanitizer.access(space, addrs, n, mask, w, ins, write=data is not None, base=base)
        if self.observe is not None:
            self.observe(space, addrs, n, mask, w)
        if space == "global":
            flat = addrs.reshape(-1)
            fm = mask.reshape(-1)
            ok = self.mem.check(flat, n)
            if base is not None and data is not None:  # a store through a resource stays in its allocation
                own = self.mem.within_owner(addrs, n, base)
                if own is not None:
                    ok &= own.reshape(-1)
            bad = fm & ~ok
            if bad.any() and data is None:  # a load past an extent reads the heap there (memory.py)
                bad &= ~self.mem.in_heap(flat, n)
            if bad.any():
                a = int(flat[np.argmax(bad)])
                wi = int(np.argmax(bad)) // WAVE
                owner = int(base[wi]) if base is not None else a
                what = (f"store to global address 0x{a:x} ({n} bytes) outside the mapped extent of its buffer (a "
                        "GPU would overwrite another allocation or fault)" if data is not None else
                        f"load from unmapped global address 0x{a:x} ({n} bytes)")
                raise self._fault_lanes(bad.reshape(k, WAVE), w, f"{what}: {self.mem.describe_from(owner, a, n)}")
            if data is None:
                return self.mem.gather(flat, n, fm, checked=True).reshape(k, WAVE, n)
            self.mem.scatter(flat, data.reshape(-1, n), fm, checked=True)
            return None
        if space == "lds":
            off = addrs.view(np.int64) if addrs.dtype == np.uint64 else addrs.astype(np.int64)  # offsets < 2**32
            m = mask & (off >= 0) & (off <= self.lds_bytes - n)  # out of range: reads 0, writes dropped (ISA guide "LDS")
            if data is not None and is_lds_dma(ins):  # lands later (outstanding.py)
                self.lds_dma.hold(self, w, off, n, m, data)
                return None
            self.lds_dma.arrive(self, w)
            return self.lds_access(off, n, m, w, data)
        if space == "scratch":
            off = addrs.astype(np.int64)
            inb = (off >= 0) & (off + n <= self.priv_bytes)
            m = mask & inb
            bad = mask & ~inb
            if bad.any():
                raise self._fault_lanes(bad, w, f"scratch access at offset {int(off[bad][0])} outside the "
                                                f"{self.priv_bytes}-byte private segment")
            idx = np.where(m, off, 0)[:, :, None] + np.arange(n)
            wv = w[:, None, None]
            ln = np.arange(WAVE)[None, :, None]
            if data is None:
                r = self.scratch[wv, ln, idx]
                r[~m] = 0
                return r
            sel = np.nonzero(m)
            if len(sel[0]):
                self.scratch[w[sel[0]][:, None], sel[1][:, None], idx[sel]] = data[sel]
            return None
        raise WaveFault(f"unknown address space {space}")

    def lds_access(self, off, n, m, w, data=None, at=None):
        """Read (``data`` None: (k,64,n) bytes) or write ``n`` bytes per lane at LDS offsets
        ``off`` (k,64) of the waves ``w``' work-groups, in the lanes of ``m`` (in range); ``at``
        (k,): the clock at which held LDS DMA data lands (``outstanding.LdsDma``)."""
        if data is not None and self.lds_clock is not None:
            m = self._lds_stamp(off, n, m, w, at)
        if n % 4 == 0 and not (off & 3).any():
            return self._lds_words(off, n, m, w, data)
        g = self.wg_of[w][:, None, None]
        idx = np.where(m, off, 0)[:, :, None] + np.arange(n)
        if data is None:
            r = self.lds[g, idx]
            r[~m] = 0
            return r
        sel = np.nonzero(m)
        if len(sel[0]):
            self.lds[self.wg_of[w][sel[0]][:, None], idx[sel]] = data[sel]
        return None

    def _lds_stamp(self, off, n, m, w, at):
        """Per LDS dword the clock of its last write (kernels with LDS DMA only): the waves run out
        of clock order, so DMA data landing at ``at`` skips the lanes whose dwords a write of a
        later clock already reached (that write came after it). -> the lanes to write."""
        o = np.where(m, off, 0)
        first = (o >> 2) + (self.wg_of[w] * (self.lds.shape[1] >> 2))[:, None]
        if n % 4 == 0 and not (o & 3).any():
            idx = first[:, :, None] + np.arange(n // 4)  # the dwords of each lane
        else:
            idx = np.minimum(first[:, :, None] + np.arange((n + 6) // 4), (first + ((o & 3) + n - 1 >> 2))[:, :, None])
        clock = self.lds_clock
        when = self.cycles[w] if at is None else at
        if at is not None:
            m = m & (clock[idx].max(axis=2) <= at[:, None])
        sel = np.nonzero(m)
        clock[idx[sel]] = when[sel[0]][:, None]
        return m

"""LDS DMA completion for the sanitizer: when the LDS that ``buffer_load_* ... lds``,
``global_load_lds_*`` and ``scratch_load_lds_*`` write may be read.

An LDS DMA writes LDS asynchronously; like any vector-memory load it is done only once the
issuing wave's ``vmcnt`` retires it ("MUBUF and FLAT LDS DMA operations need a wait on vmcnt
before LDS written can be accessed", LLVM D124626, which makes SIInsertWaitcnts track them on
vmcnt; LLVM's AMDGPUDMAOperations: the GFX9 DMA instructions are asynchronous and their
completion must be tracked). The executor lands the bytes at the ``s_waitcnt`` that retires the
DMA (``outstanding.py``: one model of that completion, its sequence numbers); the sanitizer
keeps, per LDS dword, the DMA that writes it last (wave, vmcnt sequence number, pc) and checks
each later LDS access, whose result would depend on when the data lands:

* by the same wave, before an ``s_waitcnt vmcnt`` retired the DMA: ``unwaited`` (the data may
  land after the access: a read sees the old bytes, a write is overwritten);
* by another wave of the workgroup, after an ``s_barrier`` the writer reached without having
  retired the DMA: ``lds-race`` (the barrier orders nothing the DMA does; clang 22 waits
  ``vmcnt(0)`` before the ``s_barrier`` of a workgroup release fence after
  ``__builtin_amdgcn_global_load_lds``). Inside one barrier interval the ordinary race check
  already reports the pair.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.outstanding import VM, is_lds_dma


class LdsDmaMixin:
    def _dma_attach(self, groups: int, dwords: int, waves: int) -> None:
        self.dma_wave = np.full((groups, dwords), -1, np.int64)  # the wave whose DMA wrote the dword last
        self.dma_seq = np.zeros((groups, dwords), np.int64)  # ... its vmcnt sequence number
        self.dma_pc = np.zeros((groups, dwords), np.int64)
        self.dma_epoch = np.zeros((groups, dwords), np.int64)
        self.vm_done_at_barrier = np.zeros(waves, np.int64)  # vmcnt retired when the wave last passed s_barrier

    def _dma_barrier(self, g: int) -> None:
        wpg = self.ex.waves_per_wg
        self.vm_done_at_barrier[g * wpg:(g + 1) * wpg] = self.done[VM, g * wpg:(g + 1) * wpg]

    def _dma_access(self, g: int, wave: int, ds: np.ndarray, ins, write: bool) -> None:
        """Check one wave's access to LDS dwords ``ds`` against the DMAs that wrote them, then
        record it when it is a DMA (its sequence number: the next vmcnt event of the wave)."""
        writer = self.dma_wave[g, ds]
        live = writer >= 0
        if live.any():
            seq, wv = self.dma_seq[g, ds], np.where(live, writer, 0)
            dma = is_lds_dma(ins)  # (one wave's DMAs land in order: vmcnt retires them in order)
            own = live & (writer == wave) & ~self.ex.waits.retired(VM, wave, seq) & (not dma)
            late = live & (writer != wave) & (self.dma_epoch[g, ds] < self.epoch[g]) & \
                (seq > self.vm_done_at_barrier[wv])  # not retired at that barrier
            what = "written" if write else "read"
            if own.any():
                i = int(np.argmax(own))
                self.report("unwaited", f"LDS bytes {4 * int(ds[i])}..{4 * int(ds[i]) + 3} are {what} before the LDS "
                                        f"DMA that writes them (pc=0x{int(self.dma_pc[g, ds[i]]):x}) was waited for "
                                        "with s_waitcnt vmcnt", ins, wave)
            if late.any():
                i = int(np.argmax(late))
                self.report("lds-race", f"LDS bytes {4 * int(ds[i])}..{4 * int(ds[i]) + 3} are {what} after an "
                                        f"s_barrier that wave {int(self.ex.wave_slot[writer[i]])} reached before its "
                                        f"LDS DMA (pc=0x{int(self.dma_pc[g, ds[i]]):x}) completed (needs s_waitcnt "
                                        "vmcnt before the barrier)", ins, wave)
        if not write:
            return
        if is_lds_dma(ins):
            self.dma_wave[g, ds] = wave
            self.dma_seq[g, ds] = self.ex.waits.next_seq(VM, wave)
            self.dma_pc[g, ds] = ins.pc
            self.dma_epoch[g, ds] = self.epoch[g]
        else:
            self.dma_wave[g, ds] = -1

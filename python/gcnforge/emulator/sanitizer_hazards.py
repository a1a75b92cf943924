"""Wait-state hazard checks for the sanitizer (MI300 ISA guide 4.5 "Manually Inserted Wait
States (NOPs)", gfx90a/gfx940 rules and the XDL (MFMA) dependency table). A wait state is one
issued instruction; ``s_nop N`` provides N + 1."""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.program import EXEC, VCC
from gcnforge.emulator.sanitizer_regs import NS, _reg_slots


class HazardMixin:
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

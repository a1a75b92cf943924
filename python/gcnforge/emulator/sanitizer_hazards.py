"""Wait-state hazard checks for the sanitizer: the rows of the one hazard table
(``gcnforge.isa.hazards``, every number from there) checked on the executed stream. A wait
state is one issued instruction; ``s_nop N`` provides N + 1."""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.program import EXEC, VCC
from gcnforge.emulator.sanitizer_regs import NS, _reg_slots
from gcnforge.isa import hazards as hz

# rows of Sanitizer.mfma_need: wait states an MFMA's result needs before each kind of use
MFMA_NEED = ("mfma_valu_read", "mfma_mem_read", "mfma_srcab", "mfma_srcc_same", "mfma_srcc_overlap",
             "mfma_overwrite")
VALU_READ, MEM_READ, SRCAB, SRCC_SAME, SRCC_OVERLAP, OVERWRITE = range(len(MFMA_NEED))
_N = {k: hz.need(k) for k, r in hz.RULES.items() if not callable(r.wait_states)}


def partial_write(ins) -> bool:
    """The instruction writes part of its destination VGPR (``hz.writes_partial_dword``)."""
    di = ins._di  # noqa: SLF001  (the decoded instruction: its table record's encoding)
    enc = di.inst.encoding if di is not None and di.inst is not None else ""
    return hz.writes_partial_dword(enc, ins.mods, ins.mnemonic, decoded=True)


def store_data(ins, accum_offset: int) -> list[int]:
    """The VGPR/AGPR ids (from 0, AGPRs after ``accum_offset``) of a store's or atomic's data that
    a VALU op must not overwrite for vmem_store_data (``hz.holds_store_data``), else []."""
    di = ins._di  # noqa: SLF001  (the decoded instruction: its operands by table name)
    if di is None or di.inst is None:
        return []
    ops = {o.name: o for o in di.operands}
    data, soff = ops.get("vdata"), ops.get("soffset")
    if data is None or data.file not in ("v", "a"):
        return []
    if not hz.holds_store_data(di.inst.encoding, ins.sem, data.dwords, soff is not None and soff.file is not None):
        return []
    first = data.index + (accum_offset if data.file == "a" else 0)
    return list(range(first, first + data.dwords))


class HazardMixin:
    # ---- hazards (MI300 ISA guide 4.5, "Manually Inserted Wait States (NOPs)") --------------------------
    def _hazards(self, ins, w, uses):
        b = ins.base
        ws = self.ws[w]
        sem = ins.sem
        is_vmem = sem.startswith(("vmem", "flat")) or b.startswith(("global_", "buffer_", "scratch_", "flat_"))
        s_uses = [r for r in uses if r < NS]
        v_uses = [r - NS for r in uses if r >= NS]
        is_valu = b.startswith("v_") and sem != "mfma"
        self._sgpr_hazards(ins, w, ws, is_vmem, s_uses)
        self._valu_hazards(ins, w, ws, is_valu, is_vmem, s_uses, v_uses)
        if sem == "mfma":
            self._mfma_hazards(ins, w, ws)

    def _sgpr_hazards(self, ins, w, ws, is_vmem, s_uses):
        """SGPRs, VCC, EXEC and M0 written by VALU / SALU instructions and read soon after."""
        b = ins.base
        if is_vmem and s_uses:  # VALU writes SGPR -> VMEM reads that SGPR: 5 wait states
            gap = ws[:, None] - self.valu_sgpr[w][:, s_uses]
            self._need(gap, _N["valu_sgpr_vmem"], ins, w, "a VALU instruction wrote an SGPR that this memory instruction reads")
        if b in ("v_readlane_b32", "v_writelane_b32") and len(ins.ops) > 2 and ins.ops[2].kind == "s":
            gap = ws - self.valu_sgpr[w, ins.ops[2].index]
            self._need(gap[:, None], _N["valu_sgpr_lane_select"], ins, w, "a VALU instruction wrote the lane-select SGPR")
        if b.startswith("v_div_fmas"):
            gap = ws - np.max(self.valu_sgpr[w][:, [VCC, VCC + 1]], axis=1)
            self._need(gap[:, None], _N["valu_vcc_div_fmas"], ins, w, "a VALU instruction wrote VCC, which v_div_fmas reads")
        if ins.enc == "dpp":
            gap = ws - self.valu_exec[w]
            self._need(gap[:, None], _N["valu_exec_dpp"], ins, w, "a VALU instruction wrote EXEC before this DPP instruction")
            src = ins.ops[1] if len(ins.ops) > 1 else None
            if src is not None and src.kind == "v":
                gap = ws - self.valu_vgpr[w, src.index]
                self._need(gap[:, None], _N["valu_vgpr_dpp"], ins, w, f"a VALU instruction wrote {src}, which this DPP instruction reads")
        if hz.reads_m0(b, ins.mods):
            gap = ws - self.salu_m0[w]
            self._need(gap[:, None], _N["salu_m0"], ins, w, "an SALU instruction wrote M0 just before its use")

    def _valu_hazards(self, ins, w, ws, is_valu, is_vmem, s_uses, v_uses):
        """VALU and memory instructions reading or overwriting what VALU, trans, MFMA and store
        instructions wrote shortly before."""
        b, sem = ins.base, ins.sem
        lane_ops = ("v_readlane_b32", "v_readfirstlane_b32", "v_writelane_b32")
        if is_valu and s_uses and b not in ("v_readlane_b32", "v_writelane_b32"):
            # gfx90a+: VALU writes SGPR -> VALU reads that SGPR: 2
            sg = [r for r in s_uses if r not in (EXEC, EXEC + 1)]
            if sg:
                gap = ws[:, None] - self.valu_sgpr[w][:, sg]
                self._need(gap, _N["valu_sgpr_valu"], ins, w, "a VALU instruction wrote an SGPR that this VALU instruction reads")
        if b in lane_ops:
            gap = ws - self.valu_exec[w]  # VALU writes EXEC -> v_readlane/readfirstlane/writelane: 4
            self._need(gap[:, None], _N["valu_exec_lane"], ins, w, "a VALU instruction wrote EXEC before this lane access")
            if b != "v_writelane_b32" and ins.ops[1].kind == "v":  # VALU writes VGPR -> v_readlane reads it: 1
                gap = ws - self.valu_vgpr[w, ins.ops[1].index]
                self._need(gap[:, None], _N["valu_vgpr_readlane"], ins, w, f"a VALU instruction wrote {ins.ops[1]} just before v_readlane")
        if v_uses and (is_valu or is_vmem or b.startswith("ds_")):
            # MFMA result read by VALU / by memory (the producer's row of mfma_need)
            gap = ws[:, None] - self.mfma_w[w][:, v_uses]
            need = self.mfma_need[VALU_READ if is_valu else MEM_READ][w][:, v_uses]
            self._need_var(gap, need, ins, w, "an MFMA wrote a register this instruction reads before its result "
                                              "was ready")
        if is_valu or is_vmem or b.startswith("ds_"):
            v_defs = [r - NS for r in self.roles(ins)[0] if r >= NS]
            if v_defs:  # MFMA result overwritten by VALU or a load (WAW)
                gap = ws[:, None] - self.mfma_w[w][:, v_defs]
                self._need_var(gap, self.mfma_need[OVERWRITE][w][:, v_defs], ins, w,
                               "this instruction overwrites an MFMA result still being written")
        if v_uses and (is_valu or sem == "mfma"):  # VALU wrote part of a VGPR -> VALU/MFMA reads it
            gap = ws[:, None] - self.partial_w[w][:, v_uses]
            self._need(gap, _N["valu_partial_vgpr"], ins, w, "a VALU instruction wrote part of a VGPR (SDWA dst_sel / "
                                                               "op_sel) that this instruction reads")
        if is_valu or is_vmem or b.startswith("ds_"):
            v_defs = [r - NS for r in self.roles(ins)[0] if r >= NS]
            if v_defs:  # an XDL MFMA read it as SrcC (WAR: a VALU op or a load overwrites it)
                gap = ws[:, None] - self.srcc_w[w][:, v_defs]
                self._need_var(gap, self.srcc_need[w][:, v_defs], ins, w,
                               "this instruction overwrites an MFMA's SrcC the MFMA may still read")
        if is_valu or sem == "mfma":
            v_defs = [r - NS for r in self.roles(ins)[0] if r >= NS]
            if v_defs:  # a store of > 8 bytes reads it as data (hz.holds_store_data)
                gap = ws[:, None] - self.store_w[w][:, v_defs]
                self._need(gap, _N["vmem_store_data"], ins, w, "this VALU instruction overwrites the data of a "
                                                                "store of more than 8 bytes")
        if v_uses and is_valu and b.startswith(hz.PERMLANE_SWAP):  # gfx950: VALU writes VGPR -> permlane swap
            n = hz.need("valu_vgpr_permlane")  # (0 where the row does not exist: gfx942)
            if n:
                gap = ws[:, None] - self.valu_vgpr[w][:, v_uses]
                self._need(gap, n, ins, w, "a VALU instruction wrote a VGPR this v_permlane*_swap reads")
        if is_valu and b.startswith(hz.PERMLANE_SWAP):  # gfx950: v_cmpx writes EXEC -> permlane swap
            n = hz.need("vcmpx_exec_permlane")  # (valu_exec: the clock of the last v_cmpx)
            if n:
                gap = ws - self.valu_exec[w]
                self._need(gap[:, None], n, ins, w, "a v_cmpx wrote EXEC before this v_permlane*_swap")
        if is_valu or is_vmem or b.startswith("ds_"):
            self._dot_hazards(ins, w, ws, v_uses)
        if is_valu and b.startswith(hz.FMA64):  # any DGEMM -> v_fma_f64 / v_fmac_f64, no register in common
            gap = ws - self.dgemm_at[w]
            self._need(gap[:, None], _N["dgemm_fma64"], ins, w, "a DGEMM issued just before this f64 FMA")
        if b.startswith("s_getreg"):
            gap = ws - self.setreg_w[w]
            self._need(gap[:, None], _N["setreg_getreg"], ins, w, "s_getreg right after s_setreg")
        if v_uses and is_valu and sem != "trans":  # trans VALU writes VGPR -> non-trans VALU reads it: 1
            gap = ws[:, None] - self.trans_w[w][:, v_uses]
            self._need(gap, _N["trans_valu"], ins, w, "a transcendental result is read by the next VALU instruction")

    def _mfma_hazards(self, ins, w, ws):
        """An MFMA reading EXEC, VGPRs or earlier MFMA results written shortly before."""
        gap = ws - self.valu_exec[w]
        self._need(gap[:, None], _N["valu_exec_mfma"], ins, w, "a VALU instruction wrote EXEC before this MFMA")
        if len(ins.ops) >= 4:
            ao = self.ex.accum_offset
            # every explicit source but SrcC (ops[3]) counts as SrcA/SrcB, as LLVM's
            # checkMAIHazards90A walks them: gfx950's scale VGPRs (ops[4:6] of v_mfma_scale_*) too
            ab = [r - NS for i in (1, 2, *range(4, len(ins.ops))) for r in _reg_slots(ins.ops[i], ao) if r >= NS]
            src = ab + [r - NS for r in _reg_slots(ins.ops[3], ao) if r >= NS]
            if src:  # a VALU op (no MFMA, no DOT) writes a VGPR -> MFMA reads it as SrcA, SrcB or SrcC
                gap = ws[:, None] - self.legacy_v[w][:, src]
                self._need(gap, _N["valu_vgpr_mfma"], ins, w, "a VALU instruction wrote an MFMA source operand")
            if ab:  # MFMA result -> SrcA/B (or a scale)
                gap = ws[:, None] - self.mfma_w[w][:, ab]
                self._need_var(gap, self.mfma_need[SRCAB][w][:, ab], ins, w, "an MFMA result is used as SrcA/SrcB")
            c = [r - NS for r in _reg_slots(ins.ops[3], ao) if r >= NS]
            if c:  # previous MFMA result as SrcC: the same range, or overlapping
                same = self.mfma_dst[w][:, c] == c[0]
                same_need = self.mfma_need[SRCC_SAME][w][:, c]
                if not ins.base.startswith("v_mfma_f64"):  # a DGEMM's same-SrcC row is DGEMM -> DGEMM
                    same_need = np.where(self.mfma_dgemm[w][:, c], 0, same_need)
                over = self.mfma_need[SRCC_OVERLAP][w][:, c]  # (for a non-XDL reader; an XDL one:)
                if hz.need("mfma_srcc_overlap", "v_mfma_f32_4x4x1_16b_f32", ins.mnemonic) == 0:
                    over = np.where(self.mfma_xdl[w][:, c], over, 0)  # nothing after non-XDL producers
                need = np.where(same, same_need, over)
                gap = ws[:, None] - self.mfma_w[w][:, c]
                self._need_var(gap, need, ins, w, "an MFMA result overlaps this MFMA's SrcC")

    def _dot_hazards(self, ins, w, ws, v_uses):
        """dot_read / dot_overwrite: a DOT's result read or overwritten by a VALU (not MFMA) or
        memory instruction; by the same DOT opcode only a SrcA/SrcB read counts."""
        same = self.dot_ids.get(ins.mnemonic, -2)
        if v_uses:
            ao = self.ex.accum_offset
            ab = {r - NS for i in (1, 2) if i < len(ins.ops) for r in _reg_slots(ins.ops[i], ao) if r >= NS}
            # (the same opcode reading it only as SrcC: nothing)
            cut = np.array([r not in ab for r in v_uses])
            gap = ws[:, None] - self.dot_w[w][:, v_uses]
            gap = np.where((self.dot_op[w][:, v_uses] == same) & cut, 1 << 30, gap)
            self._need(gap, _N["dot_read"], ins, w, "a DOT instruction wrote a register this instruction reads")
        v_defs = [r - NS for r in self.roles(ins)[0] if r >= NS]
        if v_defs:
            gap = ws[:, None] - self.dot_w[w][:, v_defs]
            gap = np.where(self.dot_op[w][:, v_defs] == same, 1 << 30, gap)
            self._need(gap, _N["dot_overwrite"], ins, w, "this instruction overwrites a DOT instruction's result")

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

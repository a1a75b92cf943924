"""``amdgcn-hazards``: software wait states (``s_nop``) for gfx942 / gfx950 data hazards (the
rows and numbers of the module's ``#amdgcn.target``).

Rules: the hazard table ``gcnforge.isa.hazards`` (producer class, consumer class, register
overlap, wait states, reference to the ISA guide / LLVM's GCNHazardRecognizer); this pass
matches instructions against its rows (``required``). One wait state is one issued
instruction; ``s_nop N`` provides N+1.

Control flow: the history at a block's start is the union of its predecessors' (a loop
is walked until stable), so a hazard across a branch is covered too.

Modes: ``mode=insert`` (default) inserts the fewest ``s_nop`` (the largest shortfall before
each instruction, split into ``s_nop 7`` chunks); ``mode=verify`` reports each hazard found
and changes nothing. Pre: registers allocated. Post: every rule above is satisfied.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.inst_ops import FAMILY_OPS
from gcnforge.dialect.structure_ops import BranchOp, FuncOp, KernelOp
from gcnforge.isa import hazards as hz
from gcnforge.isa import mfma as isa_mfma
from gcnforge.passes.dataflow import forward, successors
from gcnforge.passes.machine import MInst, MInstCache

_EXEC_LO = ("x", "exec_lo")
_M0 = ("x", "m0")
HISTORY = hz.MAX_WAIT_STATES + 1
VALU = ("valu", "trans", "valu_dp")
VMEM = ("vmem_load", "vmem_store", "vmem_atomic", "flat_load", "flat_store", "flat_atomic")
MEMREAD = VMEM + ("lds", "gds")
LANE_SELECT = ("v_readlane_b32", "v_writelane_b32")
READS_EXEC_LANE = ("v_readlane_b32", "v_readfirstlane_b32", "v_writelane_b32")
PERMLANE_SWAP = hz.PERMLANE_SWAP  # gfx950


mfma_passes = isa_mfma.passes


def _sgprs(units) -> set:
    return {u for u in units if u[0] == "s" or (u[0] == "x" and str(u[1]).startswith("vcc"))}


def _vgprs(units) -> set:
    return {u for u in units if u[0] in ("v", "a")}


def _writes_partial_dword(m: MInst) -> bool:
    """The producer of valu_partial_vgpr (``hz.writes_partial_dword``: SDWA dst_sel, VOP3
    op_sel's destination bit; clang 22 pads ``v_cvt_pk_fp8_f32 ... op_sel:[0,0,1]`` before a
    VALU read on gfx942 and gfx950)."""
    inf = m.op.info
    return hz.writes_partial_dword(inf.inst.encoding if inf is not None else "", m.op.modifiers, m.mnemonic)


def _is_dpp(m: MInst) -> bool:
    return m.op.info is not None and m.op.info.inst.encoding.endswith("_DPP")


def _is_mfma(m: MInst) -> bool:
    return m.sem == "mfma"


def _is_dgemm(m: MInst) -> bool:
    return m.sem == "mfma" and m.mnemonic.startswith("v_mfma_f64")


def required(prev: MInst, cur: MInst) -> list[tuple[int, str]]:
    """Wait states ``cur`` needs after ``prev`` (with a reason for each rule that applies);
    which rule applies is matched here, every number comes from ``gcnforge.isa.hazards``."""
    out: list[tuple[int, str]] = []
    pw, cr, cw = prev.all_writes, cur.all_reads, cur.all_writes
    # every rule connects the two through a register the first writes, except EXEC -> DPP/lane
    # ops, M0 -> the instructions that read it without naming it (the table lists no implicit M0
    # read for LDS DMA), s_setreg -> s_getreg and the write-after-read rows (an MFMA's SrcC, a
    # store's data): skip the rest at once
    if not (pw & (cr | cw)) and _EXEC_LO not in pw and _M0 not in pw and not prev.mnemonic.startswith("s_setreg") \
            and not ((prev.sem == "mfma" or prev.sem in hz.STORE_DATA_CLASSES) and cw):
        return out

    def rule(key: str) -> None:
        n = hz.need(key, prev.mnemonic, cur.mnemonic,
                    formats=isa_mfma.formats_of(prev.mnemonic, prev.op.modifiers) if prev.sem == "mfma" else None)
        if n > 0:
            r = hz.RULES[key]
            out.append((n, f"{r.producer} -> {r.consumer}: {r.overlap} ({key})"))

    if prev.sem in VALU:
        ws = _sgprs(pw)
        if ws:
            if cur.sem in VMEM and ws & _sgprs(cr):
                rule("valu_sgpr_vmem")
            if cur.mnemonic.startswith("v_div_fmas") and ws & {("x", "vcc_lo"), ("x", "vcc_hi")}:
                rule("valu_vcc_div_fmas")
            if cur.mnemonic in LANE_SELECT and ws & set(cur.reads.get("src1", ())):
                rule("valu_sgpr_lane_select")
            if cur.sem in VALU + ("mfma",):
                # explicit SGPR operands, and VCC however it is read (LLVM's
                # hasVDecCoExecHazard rule for gfx940)
                explicit = {u for k, us in cur.reads.items() if k != "<implicit>" for u in us}
                vcc = {u for u in cr if u[0] == "x" and str(u[1]).startswith("vcc")}
                if ws & (_sgprs(explicit) | vcc):
                    rule("valu_sgpr_valu")
        if ("x", "exec_lo") in pw:
            if _is_dpp(cur):
                rule("valu_exec_dpp")
            if cur.mnemonic in READS_EXEC_LANE:
                rule("valu_exec_lane")
            if prev.mnemonic.startswith(hz.VCMPX) and cur.mnemonic.startswith(PERMLANE_SWAP):
                rule("vcmpx_exec_permlane")
        wv = _vgprs(pw)
        if wv:
            if _is_dpp(cur) and wv & set(cur.reads.get("src0", ())):
                rule("valu_vgpr_dpp")
            if cur.mnemonic in ("v_readlane_b32", "v_readfirstlane_b32") and wv & set(cur.reads.get("src0", ())):
                rule("valu_vgpr_readlane")
            if prev.sem == "trans" and cur.sem in VALU and cur.sem != "trans" and wv & cr:
                rule("trans_valu")
            if cur.sem in VALU + ("mfma",) and _writes_partial_dword(prev) and wv & cr:
                rule("valu_partial_vgpr")
            if _is_mfma(cur) and wv & cr and not prev.mnemonic.startswith(hz.DOT):
                rule("valu_vgpr_mfma")
            if prev.mnemonic.startswith(hz.DOT):
                _dot_rows(prev, cur, wv, rule)
            if cur.mnemonic.startswith(PERMLANE_SWAP) and wv & cr:
                rule("valu_vgpr_permlane")
    if prev.mnemonic.startswith("s_setreg") and cur.mnemonic.startswith("s_getreg"):
        rule("setreg_getreg")
    if prev.sem == "salu" and _M0 in pw and (cur.sem == "gds" or hz.reads_m0(cur.mnemonic, cur.op.modifiers)):
        rule("salu_m0")
    if _is_dgemm(prev) and cur.mnemonic.startswith(hz.FMA64):
        rule("dgemm_fma64")
    if prev.sem in VALU and _is_mfma(cur) and _EXEC_LO in pw:
        rule("valu_exec_mfma")
    if _is_mfma(prev):
        wv = _vgprs(pw)
        if _is_mfma(cur):
            c = set(cur.reads.get("src2", ()))
            # every explicit source but SrcC reads as SrcA/SrcB (checkMAIHazards90A's loop over the
            # explicit uses): gfx950's scale_src0/scale_src1 of v_mfma_scale_* too
            ab = {u for k, us in cur.reads.items() if k not in ("src2", "<implicit>") for u in us}
            if wv & c:
                if set(prev.writes.get("vdst", ())) != c:
                    rule("mfma_srcc_overlap")
                elif not _is_dgemm(prev) or _is_dgemm(cur):  # (a DGEMM's same-SrcC row is DGEMM -> DGEMM)
                    rule("mfma_srcc_same")
            if wv & ab:
                rule("mfma_srcab")
            # no MFMA-after-MFMA write-after-write rule: the MFMA pipe retires in order
            # (LLVM's checkMAIHazards90A checks only the second MFMA's sources)
        elif cur.sem in VALU + MEMREAD:
            if wv & cr:
                rule("mfma_mem_read" if cur.sem in MEMREAD else "mfma_valu_read")
            if wv & cw:
                rule("mfma_overwrite")
        src_c = _vgprs(prev.reads.get("src2", ()))
        if src_c and cur.sem in VALU + MEMREAD and src_c & cw:
            rule("mfma_srcc_war")
    if prev.sem in hz.STORE_DATA_CLASSES and (cur.sem in VALU or _is_mfma(cur)) and _store_data(prev) & cw:
        rule("vmem_store_data")
    return out


def _store_data(m: MInst) -> set:
    """The data registers ``m`` (a store or atomic) keeps reading after it issues, where a VALU
    overwrite is a hazard (``hz.holds_store_data``), else nothing."""
    data = _vgprs(m.reads.get("vdata", ()) or m.reads.get("data", ()))
    enc = m.op.info.inst.encoding if m.op.info is not None else ""
    return data if hz.holds_store_data(enc, m.sem, len(data), bool(m.reads.get("soffset"))) else set()


_SRC_AB = ("src0", "src1", "vsrc1")  # a DOT's SrcA/SrcB slots (SrcC: src2, or the VOP2 form's tied vdst)


def _dot_rows(prev: MInst, cur: MInst, wv: set, rule) -> None:
    """dot_read / dot_overwrite after the DOT ``prev`` (not before an MFMA)."""
    if cur.sem not in VALU + MEMREAD:
        return
    if cur.mnemonic == prev.mnemonic:  # the same opcode: only a SrcA/SrcB read
        if wv & {u for k in _SRC_AB for u in cur.reads.get(k, ())}:
            rule("dot_read")
        return
    if wv & cur.all_reads:
        rule("dot_read")
    if wv & cur.all_writes:
        rule("dot_overwrite")


def _horizon(m: MInst) -> int:
    """Wait states after which no rule above can involve ``m`` as the first instruction."""
    if m.sem == "mfma":
        return HISTORY
    if m.sem in VALU:
        return 6  # VALU SGPR write -> VMEM read (5), EXEC -> DPP (5)
    return 3  # s_setreg (2), SALU M0 (1), VMEM store data (2)


def _wait_states(op: Operation, m: MInst | None) -> int:
    if m is not None and m.mnemonic == "s_nop":
        return (op.imm_values[0] if op.imm_values else 0) + 1
    return 1


History = tuple  # ((MInst, distance), ...) newest first; distance = wait states since it issued


def _merge(a: History, b: History) -> History:
    best: dict[int, tuple[MInst, int]] = {}
    for m, d in (*a, *b):
        k = id(m.op)
        if k not in best or d < best[k][1]:
            best[k] = (m, d)
    return tuple(sorted(best.values(), key=lambda x: x[1]))


class _Kernel(MInstCache):

    def __init__(self, region_op: Operation, verify: bool):
        super().__init__()
        self.op = region_op
        self.verify = verify
        self.blocks = list(region_op.regions[0].blocks)
        self.findings: list[str] = []
        self.inserted = 0

    def run(self) -> None:
        ins = forward(successors(self.blocks), (), lambda b, h: self._block(self.blocks[b], h, modify=False), _merge,
                      rounds_per_block=32)
        if ins is None:  # histories are bounded, so this is a gcnforge bug
            raise Diagnostic("hazard analysis did not converge (a gcnforge bug)", self.op)
        for i, b in enumerate(self.blocks):
            self._block(b, ins[i] or (), modify=True)
        if self.verify and self.findings:
            raise Diagnostic(f"@{self.op.sym_name.data}: {len(self.findings)} hazard(s) need wait states", self.op,
                             tuple(self.findings))

    def _block(self, block: Block, hist: History, modify: bool) -> History:
        for op in list(block.ops):
            m = self._minst(op)
            if m is None:
                if isinstance(op, BranchOp):
                    hist = tuple((pm, d + 1) for pm, d in hist if d + 1 < HISTORY)
                continue
            need, why, culprit = 0, "", ""
            for pm, d in hist:
                for ws, reason in required(pm, m):
                    if ws - d > need:
                        need, why, culprit = ws - d, reason, pm.mnemonic
            if need > 0:
                if modify:
                    if self.verify:
                        self.findings.append(f"'{m.mnemonic}' needs {need} more wait state(s) after "
                                             f"'{culprit}': {why}")
                    else:
                        left = need
                        while left > 0:
                            k = min(left, 8)
                            block.insert_op_before(FAMILY_OPS["sopp"]("s_nop", [], imms=[k - 1]), op)
                            left -= k
                            self.inserted += 1
                if not self.verify:
                    hist = tuple((pm, d + need) for pm, d in hist)
            step = _wait_states(op, m)
            hist = ((m, 0),) + hist if m.mnemonic != "s_nop" else hist
            # keep an instruction only while some rule could still ask for wait states
            hist = tuple((pm, d + step if pm is not m else 0) for pm, d in hist)
            hist = tuple((pm, d) for pm, d in hist if d < _horizon(pm))
        return hist


def insert_wait_states(region_op: Operation) -> int:
    """Insert mode on one kernel or function (e.g. after re-allocating a raised kernel), with the
    rows of the target of the ``amdgcn.module`` around it; returns the ``s_nop``s added."""
    from gcnforge.dialect.value_ops import input_target
    from gcnforge.isa import table

    mod = region_op
    while mod is not None and mod.name != "amdgcn.module":
        mod = mod.parent_op()
    with table.use_target(input_target(mod) if mod is not None else None):
        run = _Kernel(region_op, False)
        run.run()
    return run.inserted


@dataclass(frozen=True)
class HazardsPass(ModulePass):
    name = "amdgcn-hazards"

    mode: str = "insert"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in ("insert", "verify"):
            raise Diagnostic(f"amdgcn-hazards: unknown mode '{self.mode}' (insert, verify)")
        from gcnforge.dialect.value_ops import input_target
        from gcnforge.isa import table

        with table.use_target(input_target(op)):  # the target's rows and MFMA pass counts
            for k in list(op.walk()):
                if isinstance(k, KernelOp | FuncOp):
                    _Kernel(k, self.mode == "verify").run()

"""The hazard table of gfx942 and gfx950: software wait states (``s_nop``) between a producer
and a consumer.

One row per rule: producer class, consumer class, the register overlap that connects them,
the wait states required, and where the number comes from. A wait state is one issued
instruction; ``s_nop N`` provides N + 1. The hazard pass (``passes/hazards.py``, insert and
verify mode, also behind ``lift.verify``) and the emulator's sanitizer
(``emulator/sanitizer_hazards.py``) match instructions against these rows and take every
number from here.

References: AMD Instinct MI300 (CDNA3) ISA Reference Guide 4.5 "Manually Inserted Wait States
(NOPs)" and 7.x (MFMA dependency tables); LLVM 22 ``GCNHazardRecognizer`` (gfx940 paths:
checkVMEMHazards, checkDivFMasHazards, checkRWLaneHazards, checkVALUHazards, checkDPPHazards,
checkGetRegHazards, checkReadM0Hazards, checkMAIHazards90A, checkMAIVALUHazards). The MFMA
rows depend on the producer's pass count P and on whether it is an XDL MFMA
(``gcnforge.isa.mfma``); they are checked against the ``s_nop`` counts clang 22 emits in
``tests/passes/test_hazard_rules.py``. An MFMA row runs from the MFMA itself: a later non-MFMA
write of the same register does not end it (LLVM searches back to the MFMA def; clang pads a
store of a DGEMM result rewritten by a VALU op to the MFMA's memory-read count).

gfx950 (LLVM GCNHazardRecognizer's ``IsGFX950`` / ``hasGFX950Insts`` cases; every number
checked against clang 22 ``-mcpu=gfx950`` in tests/passes/test_hazard_rules_gfx950.py):
an XDL MFMA of more than 2 passes needs one wait state more before its result is read by a
VALU, memory or SrcA/B (or overwritten), and an XDL result overlapping the next SrcC one
more too; the f64 16x16x4 DGEMM is 16 passes and its result needs 19 before a VALU or
SrcA/B read and 17 before another DGEMM reads part of it as SrcC; a VALU write of a VGPR that ``v_permlane16_swap`` / ``v_permlane32_swap`` reads
needs 2 and a ``v_cmpx`` (writing EXEC) before one needs 4 (``checkPermlaneHazards``; clang
emits no v_cmpx on gfx9, so the 4 is checked against LLVM 22's hazard recognizer run by
``llc`` on clang's MIR with a v_cmpx added, tests/passes/test_hazard_vcmpx_permlane.py); the cvt_scale partial writes are the dst-sel forwarding
row. Rules with ``targets`` apply only there; numbers read the target (``target=``, default
the active one, ``isa.table.use_target``).
"""

from __future__ import annotations

from collections.abc import Callable
from gcnforge.isa import mfma
from gcnforge.isa.table import active_target
from gcnforge.record import FrozenRecord

GFX950 = "gfx950"


# A FrozenRecord (gcnforge.record), not a dataclass: this module is imported by every compile,
# and the dataclass machinery costs start-up time. Same equality, hash and immutability.
class Rule(FrozenRecord):
    __slots__ = _fields = ("key", "producer", "consumer", "overlap", "wait_states", "ref", "targets")
    key: str
    producer: str
    consumer: str
    overlap: str  # what connects the two
    wait_states: int | Callable[..., int]  # a number, or a function of the producer's (and consumer's) mnemonic
    ref: str
    targets: tuple[str, ...]  # the targets the rule exists on (empty: all)

    def __init__(self, key: str, producer: str, consumer: str, overlap: str, wait_states: int | Callable[..., int],
                 ref: str, targets: tuple[str, ...] = ()) -> None:
        for f, v in zip(self._fields, (key, producer, consumer, overlap, wait_states, ref, targets)):
            object.__setattr__(self, f, v)

    def need(self, producer: str = "", consumer: str = "", target: str | None = None,
             formats: tuple[int, int] | None = None) -> int:
        """Wait states required after ``producer`` (its mnemonic, for the MFMA rows) before
        ``consumer`` (only the overlapping-SrcC row looks at it; unknown: the larger number)
        on ``target`` (default: the active one); 0 where the rule does not exist.
        ``formats``: the producer's (cbsz, blgp) for a gfx950 ``*_f8f6f4`` MFMA, whose pass
        count depends on them (``gcnforge.isa.mfma.passes``; unknown: the larger)."""
        t = target or active_target()
        if self.targets and t not in self.targets:
            return 0
        if not callable(self.wait_states):
            return self.wait_states
        if self.key == "mfma_srcc_overlap":
            return self.wait_states(producer, consumer, t, formats)
        return self.wait_states(producer, t, formats)


def _big_dgemm(m: str, t: str) -> bool:
    return mfma.passes(m, t) > 4  # v_mfma_f64_16x16x4_f64 (vs 4x4x4_4b)


# DGEMM result read: (4x4, 16x16) wait states per target. gfx950's 16x16x4 f64 is 16 passes
# (LLVM 22's gfx950 scheduling model) and clang 22 -mcpu=gfx950 pads 19 before a VALU or
# SrcA/B read of it (18 before a store, as on gfx942).
_DGEMM_READ = {"valu": {"gfx942": (6, 11), GFX950: (6, 19)}, "mem": {"gfx942": (9, 18), GFX950: (9, 18)}}


def _mfma_read(m: str, t: str, kind: str = "valu", f: tuple[int, int] | None = None) -> int:
    """P + 3 after an XDL MFMA (P + 4 on gfx950 when P > 2), P + 2 after a non-XDL one, fixed
    numbers after a DGEMM (``_DGEMM_READ``)."""
    if mfma.is_dgemm(m):
        small, big = _DGEMM_READ[kind].get(t, _DGEMM_READ[kind]["gfx942"])
        return big if _big_dgemm(m, t) else small
    i, p = mfma.info(m, t), mfma.passes(m, t, f)
    if i is not None and not i.xdl:
        return p + 2
    return p + 3 + (1 if t == GFX950 and p != 2 else 0)


def _mfma_overwrite(m: str, t: str, f: tuple[int, int] | None = None) -> int:
    """As a VALU read (``_mfma_read``), except that a DGEMM result overwritten needs 6 / 11 on
    every target (DMFMA4x4/16x16WriteVgprVALUWriteWaitStates; LLVM 22 pads gfx950's 16-pass
    DGEMM 11 before a write, 19 before a read: tests/passes/test_hazard_dgemm_waw.py)."""
    if mfma.is_dgemm(m):
        return 11 if _big_dgemm(m, t) else 6
    return _mfma_read(m, t, "valu", f)


def _srcc_same(m: str, t: str, f: tuple[int, int] | None = None) -> int:
    if mfma.is_dgemm(m):
        return 0 if _big_dgemm(m, t) else 4  # DGEMM 4x4 -> the same DGEMM 4x4's SrcC
    return 2 if mfma.passes(m, t, f) == 2 else 0


def _srcc_overlap(m: str, consumer: str = "", t: str = "gfx942", f: tuple[int, int] | None = None) -> int:
    """XDL producer P + 1 (P + 2 on gfx950), non-XDL P, DGEMM 9 / 4 (the 16x16 one 17 on
    gfx950: GFX950_DMFMA16x16WritesVGPROverlappedSrcCWaitStates, clang 22 pads 17); nothing
    when an XDL MFMA reads the result of a non-XDL one (or of a DGEMM) as SrcC
    (checkMAIHazards90A)."""
    p, c = mfma.info(m, t), mfma.info(consumer, t) if consumer else None
    p_xdl = p is None or p.xdl
    if c is not None and c.xdl and not p_xdl:
        return 0
    if mfma.is_dgemm(m):
        return (17 if t == GFX950 else 9) if _big_dgemm(m, t) else 4
    return mfma.passes(m, t, f) + ((2 if t == GFX950 else 1) if p_xdl else 0)


def _srcc_war(m: str, t: str, f: tuple[int, int] | None = None) -> int:
    i = mfma.info(m, t)
    if mfma.is_dgemm(m) or (i is not None and not i.xdl):
        return 0  # LLVM checks the SrcC write-after-read only after XDL MFMAs on gfx940
    return mfma.passes(m, t, f) - 1


_G = "ISA guide 4.5"
_L = "LLVM GCNHazardRecognizer::"
RULES: dict[str, Rule] = {r.key: r for r in (
    Rule("valu_sgpr_vmem", "VALU", "VMEM/FLAT", "SGPR written, read as address/offset", 5, f"{_G}; {_L}checkVMEMHazards"),
    Rule("valu_vcc_div_fmas", "VALU", "v_div_fmas", "VCC", 4, f"{_G}; {_L}checkDivFMasHazards"),
    Rule("valu_sgpr_lane_select", "VALU", "v_readlane/v_writelane", "SGPR read as the lane select", 4,
         f"{_G}; {_L}checkRWLaneHazards"),
    Rule("valu_sgpr_valu", "VALU", "VALU/MFMA", "SGPR or VCC written, read", 2,
         f"{_G}; {_L}checkVALUHazards (gfx90a+)"),
    Rule("valu_partial_vgpr", "VALU (SDWA dst_sel / op_sel[3] / VOP3P with op_sel_hi[0])", "VALU/MFMA",
         "VGPR written in part, read", 1, f"{_L}checkVALUHazards (dst sel forwarding, gfx940)"),
    Rule("valu_exec_dpp", "VALU", "DPP", "EXEC written", 5, f"{_G}; {_L}checkDPPHazards"),
    Rule("valu_exec_lane", "VALU", "v_readlane/v_readfirstlane/v_writelane", "EXEC written", 4, _G),
    Rule("valu_vgpr_dpp", "VALU", "DPP", "VGPR written, read as src0", 2, f"{_G}; {_L}checkDPPHazards"),
    Rule("valu_vgpr_readlane", "VALU", "v_readlane/v_readfirstlane", "VGPR written, read as src0", 1, _G),
    Rule("trans_valu", "trans VALU", "non-trans VALU", "VGPR written, read", 1, f"{_L}checkVALUHazards (gfx940)"),
    Rule("setreg_getreg", "s_setreg", "s_getreg", "none (any hardware register)", 2,
         f"{_G}; {_L}checkGetRegHazards"),
    # LDS DMA included (``buffer_load_dword ... lds``, gfx950's ``buffer_load_dwordx4 ... lds``,
    # ``global_load_lds_*``): LLVM 22 pads 1 after an SALU M0 write on gfx942 and on gfx950 alike
    # (hasReadM0LdsDmaHazard: every GFX9; llc on MIR, tests/passes/test_hazard_rules_llc.py)
    Rule("salu_m0", "SALU", "s_sendmsg/GDS/s_movrel/ds_*_addtid/LDS DMA", "M0 written", 1,
         f"{_G}; {_L}checkReadM0Hazards (hasReadM0SendMsgHazard, hasReadM0MovRelInterpHazard, "
         "hasReadM0LdsDmaHazard)"),
    # a VALU op that is no MFMA and no DOT (IsLegacyVALUNotDotFn), before any explicit source of
    # the MFMA: SrcA, SrcB and SrcC alike, and gfx950's scale VGPRs (llc 22 pads 2 before each,
    # gfx942 and gfx950; an MFMA result read as a scale: the SrcA/SrcB count, mfma_srcab:
    # tests/passes/test_hazard_rules_llc.py)
    Rule("valu_vgpr_mfma", "VALU (not MFMA, not DOT)", "MFMA", "VGPR written, read (SrcA, SrcB, SrcC or a scale)", 2,
         f"{_L}checkMAIHazards90A (LegacyVALUNotDotWritesVGPRWaitStates)"),
    Rule("valu_exec_mfma", "VALU", "MFMA", "EXEC written", 4, f"{_L}checkMAIHazards90A"),
    Rule("mfma_srcc_same", "MFMA", "MFMA", "result is exactly the next SrcC", _srcc_same,
         "ISA guide 7.x; " + f"{_L}checkMAIHazards90A"),
    Rule("mfma_srcc_overlap", "MFMA", "MFMA", "result overlaps the next SrcC (not the same range)", _srcc_overlap,
         "ISA guide 7.x; " + f"{_L}checkMAIHazards90A"),
    Rule("mfma_srcab", "MFMA", "MFMA", "result read as SrcA/SrcB (or a v_mfma_scale_* scale VGPR)", lambda m, t, f: _mfma_read(m, t, "valu", f),
         "ISA guide 7.x; " + f"{_L}checkMAIHazards90A"),
    Rule("mfma_valu_read", "MFMA", "VALU", "result read", lambda m, t, f: _mfma_read(m, t, "valu", f),
         f"{_L}checkMAIVALUHazards"),
    Rule("mfma_mem_read", "MFMA", "VMEM/FLAT/LDS", "result read (address or data)",
         lambda m, t, f: _mfma_read(m, t, "mem", f), f"{_L}checkMAIVALUHazards"),
    Rule("mfma_overwrite", "MFMA", "VALU/VMEM/FLAT/LDS", "result overwritten (WAW)", _mfma_overwrite,
         f"{_L}checkMAIVALUHazards"),
    # overwritten by a VALU op or a load alike (checkMAIVALUHazards walks the defs of both; llc 22
    # pads a global or LDS load as it pads v_mov: tests/passes/test_hazard_rules_llc.py)
    Rule("mfma_srcc_war", "MFMA (XDL)", "VALU/VMEM/FLAT/LDS", "SrcC read, then overwritten (WAR)", _srcc_war,
         f"{_L}checkMAIVALUHazards"),
    # the producers: ``holds_store_data``; the consumer is any VALU op, MFMAs and v_accvgpr_write
    # included (LLVM's isVALU), writing a VGPR or AGPR of the data. llc 22 pads 2 on gfx942 and
    # gfx950 alike and nothing after a buffer store with an SGPR soffset (aiter's gfx950 epilogue:
    # tests/passes/test_hazard_rules_llc.py)
    Rule("vmem_store_data", "VMEM/FLAT store or atomic of more than 8 bytes (buffer: soffset not an SGPR)",
         "VALU/MFMA", "store data VGPRs/AGPRs overwritten", 2,
         f"{_G}; {_L}checkVALUHazardsHelper (createsVALUHazard, VALUWaitStates 2 on gfx940+)"),
    # DOT (v_dot*) results: read by a VALU op of another opcode or by memory, or by the same
    # opcode as SrcA/SrcB (not as SrcC: chained accumulation needs none); overwritten by another
    # opcode. No row before an MFMA (checkMAIHazards90A leaves DOT out). llc 22 pads 3 for each.
    Rule("dot_read", "DOT (v_dot*)", "VALU (not MFMA)/VMEM/FLAT/LDS",
         "result read (by the same opcode: only as SrcA/SrcB)", 3,
         f"{_L}checkMAIVALUHazards (DotWriteSameDotReadSrcAB, DotWriteDifferentVALURead)"),
    Rule("dot_overwrite", "DOT (v_dot*)", "VALU (not MFMA)/VMEM/FLAT/LDS of another opcode", "result overwritten (WAW)",
         3, f"{_L}checkMAIVALUHazards (DotWriteDifferentVALUWrite)"),
    Rule("dgemm_fma64", "DGEMM (v_mfma_f64_*)", "v_fma_f64/v_fmac_f64", "none (any registers)", 2,
         f"{_L}checkMAIVALUHazards (DMFMAToFMA64WaitStates)"),
    Rule("valu_vgpr_permlane", "VALU", "v_permlane16_swap/v_permlane32_swap", "VGPR written, read", 2,
         f"{_L}checkPermlaneHazards (gfx950)", targets=(GFX950,)),
    # any v_cmpx (a compare writing EXEC: isVCmpXWritesExec), no register needed in common
    Rule("vcmpx_exec_permlane", "v_cmpx", "v_permlane16_swap/v_permlane32_swap", "EXEC written", 4,
         f"{_L}checkPermlaneHazards (gfx950, VCmpXWritesExecWaitStates)", targets=(GFX950,)),
)}

# Which instructions the rows above name, for every matcher (the pass and the sanitizer):
# the consumers of valu_vgpr_permlane and vcmpx_exec_permlane (mnemonic prefixes), the producers
# of vcmpx_exec_permlane, the DOT producers, the consumers of dgemm_fma64, and the partial VGPR
# writes of valu_partial_vgpr.
PERMLANE_SWAP = ("v_permlane16_swap", "v_permlane32_swap")
DOT = "v_dot"  # LLVM's isDOT: every v_dot* (VOP2 v_dot*c, VOP3P v_dot*, their e64/DPP forms)
FMA64 = ("v_fma_f64", "v_fmac_f64")  # the consumers of dgemm_fma64 (V_FMA_F64_e64, V_FMAC_F64_e32/e64/dpp)
M0_READERS = ("s_sendmsg", "s_ttracedata", "s_movrel")  # salu_m0's scalar consumers (prefixes)


def reads_m0(mnemonic: str, mods) -> bool:
    """A consumer of salu_m0 other than GDS (LLVM's checkReadM0Hazards callers on GFX9):
    s_sendmsg*/s_ttracedata, s_movrel*, ``ds_*_addtid_*``, and LDS DMA (``global_load_lds_*``,
    ``scratch_load_lds_*``, a ``buffer_*`` load with ``lds``), whose LDS address is M0."""
    return mnemonic.startswith(M0_READERS) or "_addtid_" in mnemonic or "_load_lds_" in mnemonic or \
        (mnemonic.startswith("buffer_") and bool(mods) and "lds" in mods)


STORE_DATA_CLASSES = ("vmem_store", "vmem_atomic", "flat_store", "flat_atomic")
_BUFFER = ("MUBUF", "MTBUF")


def holds_store_data(encoding: str, sem: str, data_dwords: int, soffset_is_register: bool) -> bool:
    """The producer of vmem_store_data (LLVM 22's createsVALUHazard): a store or atomic of table
    encoding ``encoding`` and class ``sem`` whose data operand (``vdata``) is wider than 64 bits,
    and, for MUBUF/MTBUF, whose ``soffset`` is not a register (an SGPR or M0 there: no hazard;
    an inline constant such as ``0``: the hazard)."""
    if sem not in STORE_DATA_CLASSES or data_dwords <= 2:
        return False
    return not (encoding in _BUFFER and soffset_is_register)


MIX = "v_fma_mix"  # VOP3P whose op_sel_hi defaults to 0 in LLVM's syntax (the others: all ones)
VCMPX = "v_cmpx_"  # VOPC compares writing EXEC (every encoding: e32, e64, SDWA)
_VOP3 = ("VOP3A", "VOP3B", "VOP3")


# Conversions that write one byte (FP8/BF8) or nibble pair (FP4) of their destination, chosen
# by op_sel[2] (LLVM's dst-sel conversions, getFPDstSelType: "FP8DstSelInst with op_sel[3:2]
# != 0"); the FP4 stochastic-rounding ones forward a partial write whatever op_sel says ("nop
# is required for all the opsel values"). clang 22 pads each (-mcpu=gfx942 for v_cvt_sr_*, and
# gfx950), tests/passes/test_hazard_rules_gfx950.py.
DST_BYTE_SEL = ("v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32", "v_cvt_scalef32_sr_fp8_", "v_cvt_scalef32_sr_bf8_",
                "v_cvt_scalef32_pk_fp4_")
ALWAYS_PARTIAL = ("v_cvt_scalef32_sr_pk_fp4_",)


def writes_partial_dword(encoding: str, mods: dict, mnemonic: str = "", decoded: bool = False) -> bool:
    """Whether an instruction of table encoding ``encoding`` with modifiers ``mods`` writes part
    of its destination VGPR (the producer of valu_partial_vgpr): SDWA with a ``dst_sel`` other
    than DWORD, a VOP3 ``op_sel`` whose last entry (the destination's, after one bit per
    source: ``op_sel:[0,0,1]`` for two sources) selects the high half, a ``DST_BYTE_SEL``
    conversion with op_sel[2] set, an ``ALWAYS_PARTIAL`` one, or a VOP3P op with op_sel_hi[0]
    set: LLVM 22 reads that bit of src0_modifiers (SISrcMods::OP_SEL_1, the same bit as
    DST_OP_SEL) as a high-half write (getDstSelForwardingOperand), so clang pads ``s_nop 0``
    between ``v_pk_mul_f32 v[2:3]`` and a VALU read of v2 (tests/passes/test_hazard_rules_llc.py).
    An absent op_sel_hi is LLVM's syntax default (0 for ``v_fma_mix*``, else all ones), or with
    ``decoded`` the emulator's (it leaves out an all-ones one)."""
    sel = mods.get("dst_sel")
    if sel is not None:
        return sel not in ("DWORD", 6)
    if mnemonic.startswith(ALWAYS_PARTIAL):
        return True
    if encoding == "VOP3P":
        hi = mods.get("op_sel_hi")
        if not isinstance(hi, list | tuple) or not hi:
            return decoded or not mnemonic.startswith(MIX)
        return bool(hi[0])
    op_sel = mods.get("op_sel")
    if encoding not in _VOP3 or not isinstance(op_sel, list | tuple) or not op_sel:
        return False
    return bool(op_sel[-1]) or (mnemonic.startswith(DST_BYTE_SEL) and len(op_sel) > 2 and bool(op_sel[2]))


# The longest rule: a DGEMM 16x16 result read by memory (18), a 16-pass XDL MFMA's (19; 20 on
# gfx950, as its DGEMM 16x16 read's 19).
MAX_WAIT_STATES = max(20, mfma.MAX_PASSES + 4)


def need(key: str, producer: str = "", consumer: str = "", target: str | None = None,
         formats: tuple[int, int] | None = None) -> int:
    """Wait states rule ``key`` requires after ``producer`` (its mnemonic, for MFMA rows, and
    its (cbsz, blgp) for an f8f6f4 one) on ``target`` (default: the active one)."""
    return RULES[key].need(producer, consumer, target, formats)

"""Corpus forms for SOP1/SOP2/SOPK/SOPC/SOPP and SMEM: every opcode in the table, with
operand values rotated through every register class, inline constant and literal form."""

from __future__ import annotations

from gcnforge.isa import table
from gcnforge.isa.schema import OperandKind as K

SREG = {1: ["s0", "s101", "vcc_lo", "m0", "exec_hi", "ttmp3", "flat_scratch_lo", "xnack_mask_hi", "s17"],
        2: ["s[0:1]", "s[100:101]", "vcc", "exec", "ttmp[4:5]", "flat_scratch", "xnack_mask", "s[6:7]"],
        4: ["s[4:7]", "s[96:99]", "ttmp[8:11]", "s[12:15]"],
        8: ["s[8:15]", "s[92:99]", "ttmp[8:15]"], 16: ["s[16:31]", "s[84:99]", "ttmp[0:15]"]}
SSRC_EXTRA = ["0", "64", "-1", "-16", "0.5", "-4.0", "1.0", "0.15915494", "src_scc", "src_vccz", "src_execz",
              "src_shared_base", "src_private_limit", "src_pops_exiting_wave_id", "0x12345678", "-17", "1.5",
              "0xffffffff", "65", "src_lds_direct"]
WAITCNT = ["vmcnt(0)", "lgkmcnt(0)", "expcnt(3)", "vmcnt(63) expcnt(7) lgkmcnt(15)", "vmcnt(17) lgkmcnt(3)",
           "vmcnt(1) expcnt(2) lgkmcnt(3)", "0", "0x3f70"]
HWREG = ["hwreg(HW_REG_MODE)", "hwreg(HW_REG_MODE, 0, 4)", "hwreg(HW_REG_STATUS, 3, 1)", "hwreg(HW_REG_TRAPSTS)",
         "hwreg(HW_REG_HW_ID, 8, 4)", "hwreg(HW_REG_GPR_ALLOC)", "hwreg(HW_REG_LDS_ALLOC, 0, 32)",
         "hwreg(HW_REG_IB_STS)", "hwreg(HW_REG_SH_MEM_BASES)", "hwreg(HW_REG_XCC_ID)", "hwreg(HW_REG_TBA_LO)",
         "hwreg(HW_REG_SQ_PERF_SNAPSHOT_PC_HI)", "hwreg(9, 1, 3)", "hwreg(0)"]
SENDMSG = ["sendmsg(MSG_INTERRUPT)", "sendmsg(MSG_GS_DONE, GS_OP_NOP)", "sendmsg(MSG_GS, GS_OP_EMIT, 1)",
           "sendmsg(MSG_SAVEWAVE)", "sendmsg(MSG_SYSMSG, SYSMSG_OP_REG_RD)", "sendmsg(MSG_STALL_WAVE_GEN)",
           "sendmsg(MSG_GET_DOORBELL)", "sendmsg(0, 0, 0)", "sendmsg(12, 0, 0)", "200", "sendmsg(MSG_HALT_WAVES)"]
GPR_IDX = ["gpr_idx(SRC0)", "gpr_idx(SRC0,SRC1,SRC2,DST)", "gpr_idx()", "gpr_idx(DST,SRC1)", "3"]
LABEL = ["0", "-1", "4", "-32768", "32767", "0x10"]
SMEM_OFF = ["0x0", "0x10", "-0x10", "0xfffff", "-0x100000", "s8", "m0", "s101", "ttmp5", "vcc_hi"]


def _imm16(style: str) -> list[str]:
    if style.startswith("i"):
        return ["0", "1", "-1", "-32768", "32767", "0x7b"]
    return ["0", "1", "0xffff", "0x1234", "65535", "12"]


def _choices(op, inst) -> list[str]:
    k = op.kind
    if k is K.SREG:
        return SREG.get(op.dwords, [f"s[0:{op.dwords - 1}]"])
    if k is K.SSRC:
        regs = SREG.get(op.dwords, [])
        extra = SSRC_EXTRA if op.dwords == 1 else [x for x in SSRC_EXTRA if x not in ("1.5", "src_lds_direct")]
        return [x for pair in zip(regs * 3, extra) for x in pair]
    if k is K.WAITCNT:
        return WAITCNT
    if k is K.HWREG:
        return HWREG
    if k is K.SENDMSG:
        return SENDMSG
    if k is K.GPR_IDX:
        return GPR_IDX
    if k is K.LABEL:
        return LABEL
    if k is K.SMEM_OFFSET:
        return SMEM_OFF
    if k in (K.SIMM16, K.IMM):
        if op.field == "literal":
            return ["0x1234", "0", "0xffffffff", "0x80000000"]
        if op.field == "sdata":
            return ["0", "7", "127"]
        return _imm16(op.optype)
    raise ValueError(f"no corpus values for {k} in {inst.mnemonic}")


def forms_for(inst, count: int) -> list[str]:
    out = []
    ch = [_choices(op, inst) for op in inst.operands]
    n = max([count] + [len(c) for c in ch]) if ch else 1
    for i in range(n):
        ops = [c[(i * (j + 1) + j) % len(c)] for j, c in enumerate(ch)]
        text = inst.mnemonic + (" " + ", ".join(ops) if ops else "")
        mods = []
        if "offset" in inst.modifiers and ops and inst.encoding == "SMEM" and ops[-1].startswith(("s", "m", "t", "v")) \
                and i % 2:
            mods.append(f"offset:{['0x10', '-0x8', '0x0', '0xfffff'][i % 4]}")
        if "glc" in inst.modifiers and i % 3 == 1:
            mods.append("glc")
        out.append(" ".join([text, *mods]))
    return out


def forms() -> list[str]:
    out = []
    for inst in table.instructions():
        if inst.encoding in ("SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM"):
            out.extend(forms_for(inst, 4))
    return out

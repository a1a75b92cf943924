"""SOP1/SOP2/SOPK/SOPC/SOPP and SMEM rows of the table, probed from LLVM 22.

Every opcode value of each format is decoded with sentinel field values (sdst=s16,
ssrc0=s32, ssrc1=s48, simm16=0x9234, SMEM sdata=s16, sbase=s[32:33], offset=0x1234); each
printed operand is located by its sentinel, which gives its field, kind and width."""

from __future__ import annotations


from gcnforge.isa.encodings import DECODE_ORDER, ENCODINGS
from gcnforge.isa.schema import Instruction, Operand, OperandKind as K, Role
from gcnforge.isa.semantics import scalar_class
from tools.isa_gen import facts
from tools.isa_gen.common import LIT, Decoded, assemble, disassemble, reg_of, word

SENT = {"sdst": 16, "ssrc0": 32, "ssrc1": 48, "simm16": 0x9234}
SIMM = 0x9234


def classify(raw: bytes) -> str | None:
    w = int.from_bytes(raw[:4], "little")
    for name in DECODE_ORDER:
        e = ENCODINGS[name]
        if w & e.match_mask == e.match_value:
            return name
    return None


def _imm_style(text: str, value: int, bits: int) -> str | None:
    if text == hex(value):
        return f"x{bits}"
    if text == str(value):
        return f"u{bits}"
    signed = value - (1 << bits) if value >> (bits - 1) else value
    if text == str(signed):
        return f"i{bits}"
    return None


_DEFUSE_SOPK = {"s_addk_i32", "s_mulk_i32", "s_cmovk_i32"}


def _role(base: str, fld: str, first: bool) -> Role:
    if fld != "sdst" or not first:
        return Role.USE
    if base.startswith(("s_cmpk_", "s_setreg")) or base in ("s_cbranch_g_fork",):
        return Role.USE
    if base in _DEFUSE_SOPK or base.startswith(("s_movreld",)):
        return Role.DEFUSE
    return Role.DEF


def _optype(base: str, dwords: int) -> str:
    if dwords == 2:
        return "b64"
    return "b32"


def sop_row(enc: str, op: int, d: Decoded) -> Instruction | None:
    base = d.mnemonic
    ops: list[Operand] = []
    printed = list(d.operands)
    if base == "s_waitcnt" or (d.modifiers and printed and printed[-1].startswith(("vmcnt", "expcnt", "lgkmcnt"))):
        printed = [" ".join((*d.operands[-1:], *d.modifiers))] if d.operands else []
    elif d.modifiers:
        raise ValueError(f"unexpected modifiers in {d.text}")
    for i, t in enumerate(printed):
        r = reg_of(t)
        if r is not None:
            fld = next((f for f in ("sdst", "ssrc0", "ssrc1") if f in ENCODINGS[enc].fields and SENT[f] == r[1]), None)
            if fld is None:
                raise ValueError(f"cannot place operand {t} of {d.text}")
            kind = K.SREG if fld == "sdst" else K.SSRC
            ops.append(Operand(fld, kind, fld, r[2], _role(base, fld, i == 0), inline_const=kind is K.SSRC,
                               literal=kind is K.SSRC, files="s", optype=_optype(base, r[2])))
            continue
        if t.startswith("vmcnt") or t.startswith("expcnt") or t.startswith("lgkmcnt"):
            ops.append(Operand("simm16", K.WAITCNT, "simm16"))
        elif t.startswith("hwreg("):
            ops.append(Operand("simm16", K.HWREG, "simm16"))
        elif t.startswith("sendmsg(") or (base.startswith("s_sendmsg") and t.isdigit()):
            ops.append(Operand("simm16", K.SENDMSG, "simm16"))
        elif t.startswith("gpr_idx(") or base in ("s_set_gpr_idx_on", "s_set_gpr_idx_mode"):
            fld = "ssrc1" if enc == "SOPC" else "simm16"
            ops.append(Operand("mode", K.GPR_IDX, fld))
        elif t == hex(LIT):
            ops.append(Operand("simm32", K.IMM, "literal", optype="x32"))
        elif facts.BRANCHES.match(base) or base == "s_cbranch_i_fork":
            style = _imm_style(t, SIMM, 16) or ""
            ops.append(Operand("simm16", K.LABEL, "simm16", optype="" if style.startswith("i") else style))
        else:
            style = _imm_style(t, SIMM, 16)
            if style is None:
                raise ValueError(f"cannot place operand {t} of {d.text}")
            ops.append(Operand("simm16", K.SIMM16, "simm16", optype=style))
    uses, defs = facts.implicit(base, enc)
    return Instruction(
        mnemonic=base, base=base, encoding=enc, opcode=op, llvm_name=d.llvm_name, operands=tuple(ops),
        implicit_uses=uses, implicit_defs=defs, counter=tuple(facts.scalar_counter(base, enc)),
        sem=str(scalar_class(base, enc)), notes=(facts.NOTE_SCALAR,))


def sop_rows() -> list[Instruction]:
    """Decode each opcode with every sentinel set; LLVM rejects encodings whose unused
    fields are non-zero (s_barrier with simm16 != 0), so an opcode that fails is probed again
    with each sentinel alone and then with the sentinels that LLVM tolerated."""
    probes: list[tuple[str, int, dict[str, int]]] = []
    for enc in ("SOP2", "SOPK", "SOP1", "SOPC", "SOPP"):
        e = ENCODINGS[enc]
        fields = {f: v for f, v in SENT.items() if f in e.fields}
        for op in range(1 << e.opcode.width):
            if classify(word(enc, op=op, **fields)) == enc:
                probes.append((enc, op, fields))
    variants: list[bytes] = []
    keys: list[list[str]] = []
    for enc, op, fields in probes:
        ks = ["all", "zero", *fields]
        keys.append(ks)
        for k in ks:
            f = fields if k == "all" else ({} if k == "zero" else {k: fields[k]})
            if k != "all" and "simm16" in fields and k != "simm16":
                f = {**f, "simm16": 0}
            variants.append(word(enc, op=op, **f))
    res = disassemble(variants)
    chosen: list[tuple[str, int, dict[str, int]]] = []
    i = 0
    for (enc, op, fields), ks in zip(probes, keys):
        r = dict(zip(ks, res[i:i + len(ks)]))
        i += len(ks)
        if r["all"] is not None:
            chosen.append((enc, op, fields, ()))
        elif r["zero"] is not None:
            ok = {k: fields[k] for k in fields if r[k] is not None}
            chosen.append((enc, op, ok, tuple(sorted(k for k in fields if r[k] is None))))
    final = [word(enc, op=op, **f) for enc, op, f, _ in chosen]
    zero = [word(enc, op=op, **{**f, **({"simm16": 0} if "simm16" in f else {})}) for enc, op, f, _ in chosen]
    res = disassemble(final + zero)
    n = len(chosen)
    out = []
    for k, (enc, op, _, zf) in enumerate(chosen):
        d, dz = res[k], res[n + k]
        if d is None:
            continue
        row = sop_row(enc, op, d).replace(zero_fields=zf)
        # an immediate LLVM omits when it is 0 is optional (s_endpgm [imm16])
        if dz is not None and len(dz.operands) < len(d.operands):
            row = row.replace(operands=tuple(o.replace(optional=True) if o.field == "simm16" else o
                                              for o in row.operands))
        out.append(row)
    return out


# -- SMEM ---------------------------------------------------------------------------------
def smem_rows() -> list[Instruction]:
    e = ENCODINGS["SMEM"]
    ops = range(1 << e.opcode.width)
    imm_probes = [word("SMEM", op=o, sdata=16, sbase=16, imm=1, offset=0x1234) for o in ops]
    sgpr_probes = [word("SMEM", op=o, sdata=16, sbase=16, imm=0, offset=40) for o in ops]
    glc_probes = [word("SMEM", op=o, sdata=16, sbase=16, imm=0, offset=40, glc=1) for o in ops]
    res = disassemble(imm_probes + sgpr_probes + glc_probes)
    n = len(ops)
    out = []
    for o in ops:
        d_imm, d_sg, d_glc = res[o], res[n + o], res[2 * n + o]
        d = d_sg or d_imm
        if d is None:
            continue
        base = d.mnemonic
        operands: list[Operand] = []
        stores = "store" in base
        atomic = "atomic" in base
        for i, t in enumerate(d.operands):
            r = reg_of(t)
            if t == "s40":
                operands.append(Operand("offset", K.SMEM_OFFSET, "offset", files="s"))
            elif r is not None and r[1] == 16 and i == 0:
                role = Role.USE if stores else (Role.DEFUSE if atomic else Role.DEF)
                operands.append(Operand("sdata", K.SREG, "sdata", r[2], role, files="s"))
            elif r is not None and r[1] == 32:
                operands.append(Operand("sbase", K.SREG, "sbase", r[2], files="s"))
            elif t == "16" and i == 0:
                operands.append(Operand("sdata", K.IMM, "sdata", optype="u7"))
            else:
                raise ValueError(f"cannot place SMEM operand {t} of {d.text}")
        mods = ("glc",) if (d_glc is not None and "glc" in d_glc.modifiers) else ()
        if any(o.kind is K.SMEM_OFFSET for o in operands):
            mods = ("offset",) + mods  # soffset + offset:N form (printed before glc)
        uses, defs = facts.implicit(base, "SMEM")
        operands = facts.typed_atomic_operands(base, operands)
        out.append(Instruction(
            mnemonic=base, base=base, encoding="SMEM", opcode=o, llvm_name=d.llvm_name, operands=tuple(operands),
            modifiers=mods, implicit_uses=uses, implicit_defs=defs, counter=("lgkmcnt",), sem="smem",
            notes=(facts.NOTE_SCALAR,)))
    return out


def _render(inst: Instruction, k: int, text: str) -> str:
    ops = []
    for j, o in enumerate(inst.operands):
        if j == k:
            ops.append(text)
        elif o.kind in (K.SREG, K.SSRC):
            ops.append("s8" if o.dwords == 1 else f"s[8:{7 + o.dwords}]")
        elif o.kind is K.HWREG:
            ops.append("hwreg(HW_REG_MODE)")
        elif o.kind is K.SENDMSG:
            ops.append("sendmsg(MSG_INTERRUPT)")
        elif o.kind is K.GPR_IDX:
            ops.append("gpr_idx(SRC0)")
        elif o.kind is K.WAITCNT:
            ops.append("vmcnt(0)")
        else:
            ops.append("0")
    return inst.mnemonic + (" " + ", ".join(ops) if ops else "")


def refine_sources(rows: list[Instruction]) -> list[Instruction]:
    """Which SSRC operands take inline constants / a literal: LLVM's register classes
    (SReg_* vs SSrc_*) are not visible in decoding, so assemble each with ``1`` and with
    ``0x12345678`` and keep what llvm-mc accepts."""
    jobs = []
    for r, inst in enumerate(rows):
        for k, o in enumerate(inst.operands):
            if o.kind is K.SSRC:
                jobs.append((r, k, _render(inst, k, "1"), _render(inst, k, "0x12345678")))
    res = assemble([j[2] for j in jobs] + [j[3] for j in jobs])
    n = len(jobs)
    out = list(rows)
    for i, (r, k, _, _) in enumerate(jobs):
        inline_ok, lit_ok = res[i][0] is not None, res[n + i][0] is not None
        ops = list(out[r].operands)
        ops[k] = ops[k].replace(inline_const=inline_ok, literal=lit_ok)
        out[r] = out[r].replace(operands=tuple(ops))
    return out


def rows() -> list[Instruction]:
    return refine_sources(sop_rows()) + smem_rows()

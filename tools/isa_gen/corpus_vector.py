"""Corpus forms for the vector-ALU families (VOP1, VOP2, VOPC, VOP3A, VOP3B, VOP3P,
VOP3P-MAI, DPP, SDWA): every opcode of every form in the table, each source slot rotated
through VGPRs, SGPRs, special registers, inline integers and floats, literals (where the
form takes one) and its input modifiers; every output modifier (clamp, omod, op_sel...,
cbsz/abid/blgp, dpp controls, sdwa selects); and suffix-less spellings so the e32/e64/
sdwa/dpp choice is checked against LLVM's.

Deterministic (no randomness): values rotate with a counter."""

from __future__ import annotations

from itertools import count

from gcnforge.isa import table
from gcnforge.isa.schema import Instruction, Operand, OperandKind as K, Role

VOP_ENCODINGS = ("VOP1", "VOP2", "VOPC", "VOP3A", "VOP3B", "VOP3P", "VOP3P_MAI", "VOP1_DPP", "VOP2_DPP",
                 "VOPC_DPP", "VOP1_SDWA", "VOP2_SDWA", "VOPC_SDWA")

_SGPR1 = ["s7", "s101", "vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "m0", "ttmp5", "flat_scratch_hi", "s0"]
_SGPR2 = ["s[6:7]", "s[100:101]", "vcc", "exec", "ttmp[4:5]", "flat_scratch", "s[0:1]"]
_SPECIAL_SRC = ["src_shared_base", "src_private_limit", "src_vccz", "src_execz", "src_scc", "src_shared_limit",
                "src_private_base", "src_pops_exiting_wave_id"]
_INL_INT = ["0", "64", "-16", "-1", "17", "-7"]
_INL_F = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0", "0.15915494"]
_LIT32 = ["0x12345678", "1.5", "-17", "65", "0x3f800000", "0xffffffff", "-3.25"]
_LIT16 = ["0x1234", "0x3c00", "1.5", "0xffff", "-17", "0x7fff"]
_LIT64F = ["0x3ff80000", "1.5", "0x12345678", "-17"]
_LIT64I = ["0x12345", "-17", "0x80000000", "0xffffffff"]

_DPP_CTRL = ["quad_perm:[0,1,2,3]", "quad_perm:[3,2,1,0]", "quad_perm:[1,0,3,2]", "quad_perm:[0,0,0,0]",
             "row_shl:1", "row_shl:15", "row_shr:1", "row_shr:8", "row_ror:1", "row_ror:15", "wave_shl:1",
             "wave_rol:1", "wave_shr:1", "wave_ror:1", "row_mirror", "row_half_mirror", "row_bcast:15",
             "row_bcast:31", "row_shr:15", "row_shl:4", "row_newbcast:0", "row_newbcast:15", "row_newbcast:7"]
_NEWBCAST = ["row_newbcast:0", "row_newbcast:1", "row_newbcast:15", "row_newbcast:9"]
_SEL = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"]
_UNUSED = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"]


def _vreg(file: str, idx: int, n: int) -> str:
    if n > 1:
        idx -= idx % 2
        idx = min(idx, 256 - n)
        return f"{file}[{idx}:{idx + n - 1}]"
    return f"{file}{idx}"


class _Rot:
    def __init__(self) -> None:
        self.c = count()

    def pick(self, seq: list[str]) -> str:
        return seq[next(self.c) % len(seq)]


def _nsrc(inst: Instruction) -> int:
    return sum(1 for o in inst.operands if o.name in ("src0", "src1", "src2", "vsrc1") and o.kind != K.SPECIAL)


def _is64(op: Operand) -> bool:
    return op.dwords == 2 or op.optype in ("f64", "i64")


def _inline_choices(op: Operand) -> list[str]:
    fl = list(_INL_F)
    if _is64(op):
        fl[-1] = "0.15915494309189532"
    return _INL_INT + fl


def _literal_choices(op: Operand) -> list[str]:
    if op.optype in ("f16", "i16", "bf16"):
        return _LIT16
    if _is64(op):
        return _LIT64F if op.optype == "f64" else _LIT64I
    return _LIT32


def _base_tokens(inst: Instruction, rot: _Rot, *, agpr: bool = False) -> list[str]:
    """A valid operand list: VGPRs in every vector slot, distinct and aligned."""
    toks = []
    base = [1, 10, 20, 40, 80]
    mfma = inst.base.startswith(("v_mfma", "v_smfmac"))
    for i, op in enumerate(inst.operands):
        n = op.dwords
        if op.kind == K.SPECIAL:
            toks.append(op.text or "")
        elif op.kind == K.SREG:
            toks.append(rot.pick(["s[4:5]", "s[10:11]", "vcc", "s[100:101]", "ttmp[2:3]"]) if n == 2 else
                        rot.pick(["s5", "s101", "m0", "vcc_lo", "ttmp1", "exec_hi"]))
        elif op.kind == K.IMM:
            toks.append(rot.pick(["0x3c00", "0x1234"]) if inst.base.endswith("_f16") else
                        rot.pick(["0x3f800000", "1.5", "0x12345678", "-2.5"]))
        else:
            f = "v"
            if op.kind == K.AGPR:
                f = "a"
            elif op.kind == K.AV and agpr:
                f = "a"
            if mfma:
                idx = [0, 64, 96, 128, 160][i] if n <= 32 else 0
                if op.name == "src2" and op.kind == K.AV:
                    idx = 128
                if op.name == "vdst":
                    idx = 128 if "src2" in [o.name for o in inst.operands if o.kind == K.AV] else 0
                if op.name == "src0":
                    idx = 32
                if op.name == "src1":
                    idx = 48
                if op.name == "src2" and op.kind == K.VGPR:
                    idx = 60
                toks.append(_vreg(f, idx, n))
            else:
                toks.append(_vreg(f, base[i % len(base)] + next(rot.c) % 7 * 2, n))
    return toks


def _line(inst: Instruction, toks: list[str], mods: list[str] | None = None) -> str:
    s = inst.mnemonic
    if toks:
        s += " " + ", ".join(toks)
    if mods:
        s += " " + " ".join(mods)
    return s


def _src_slots(inst: Instruction) -> list[tuple[int, Operand]]:
    return [(i, o) for i, o in enumerate(inst.operands) if o.role == Role.USE and o.kind in (K.SRC, K.AV, K.VGPR, K.AGPR)
            and o.name.startswith(("src", "vsrc"))]


def _idx(op: Operand) -> int:
    return 1 if op.name == "vsrc1" else int(op.name[-1])


def _bits(n: int, v: int) -> str:
    return "[" + ",".join(str((v >> i) & 1) for i in range(n)) + "]"


def forms_for(inst: Instruction, rot: _Rot) -> list[str]:
    out: list[str] = []
    enc = inst.encoding
    toks = _base_tokens(inst, rot)
    dpp = enc.endswith("_DPP")
    sdwa = enc.endswith("_SDWA")
    ctrls = _NEWBCAST if any(o.dwords == 2 for o in inst.operands) else _DPP_CTRL
    dmods = [rot.pick(ctrls)] if dpp else []
    out.append(_line(inst, toks, dmods))
    mods = inst.modifiers
    # sources: registers, specials, constants, literals
    for i, op in _src_slots(inst):
        if op.kind != K.SRC:
            continue
        vals = []
        n = op.dwords
        if n == 1:
            vals += [rot.pick(_SGPR1), rot.pick(_SGPR1), rot.pick(_SPECIAL_SRC)]
        elif n == 2:
            vals += [rot.pick(_SGPR2), rot.pick(_SGPR2)]
        if op.inline_const:
            ch = _inline_choices(op)
            vals += [rot.pick(ch), rot.pick(ch), rot.pick(ch)]
        if op.literal:
            ch = _literal_choices(op)
            vals += [rot.pick(ch), rot.pick(ch)]
        for v in vals:
            t2 = list(toks)
            t2[i] = v
            out.append(_line(inst, t2, [rot.pick(ctrls)] if dpp else []))
    # input modifiers
    for i, op in _src_slots(inst):
        k = _idx(op)
        t = toks[i]
        variants = []
        if f"neg{k}" in mods:
            variants.append("-" + t)
        if f"abs{k}" in mods:
            variants.append("|" + t + "|")
            if f"neg{k}" in mods:
                variants.append("-|" + t + "|")
        if f"sext{k}" in mods:
            variants.append("sext(" + t + ")")
        if op.kind == K.SRC and op.inline_const and f"neg{k}" in mods:
            variants.append("neg(" + rot.pick(["1.0", "2", "0.5"]) + ")")
            if f"abs{k}" in mods:
                variants.append("-|" + rot.pick(["-2.0", "4"]) + "|")
        for v in variants:
            t2 = list(toks)
            t2[i] = v
            out.append(_line(inst, t2, [rot.pick(ctrls)] if dpp else []))
    n = _nsrc(inst)
    # output modifiers
    if enc in ("VOP3A", "VOP3B"):
        if "clamp" in mods:
            out.append(_line(inst, toks, ["clamp"]))
        if "omod" in mods:
            out.append(_line(inst, toks, [rot.pick(["mul:2", "mul:4", "div:2"])]))
            if "clamp" in mods:
                out.append(_line(inst, toks, ["clamp", rot.pick(["mul:2", "mul:4", "div:2"])]))
        if "op_sel" in mods:
            for v in (1, (1 << (n + 1)) - 1, 1 << n, 2):
                out.append(_line(inst, toks, ["op_sel:" + _bits(n + 1, v)]))
            tail = [m for m, ok in (("clamp", "clamp" in mods), ("mul:2", "omod" in mods)) if ok]
            if tail:
                out.append(_line(inst, toks, ["op_sel:" + _bits(n + 1, 1 << n | 1)] + tail))
    if enc == "VOP3P":
        mix = inst.base.startswith("v_fma_mix")
        full = (1 << n) - 1
        for m in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi"):
            if m in mods:
                for v in (1, full ^ 1 if n > 1 else 0, full):
                    out.append(_line(inst, toks, [f"{m}:" + _bits(n, v)]))
        if "clamp" in mods:
            out.append(_line(inst, toks, ["clamp"]))
        if n == 2 and "op_sel" in mods and "neg_lo" in mods:  # LLVM takes longer lists and ignores the rest
            out.append(_line(inst, toks, ["op_sel:[1,1,1]", "neg_lo:[0,1,1,1]"]))
        if "op_sel" in mods and "op_sel_hi" in mods:
            out.append(_line(inst, toks, ["op_sel:" + _bits(n, full), "op_sel_hi:" + _bits(n, 0 if not mix else 1)]
                             + (["clamp"] if "clamp" in mods else [])))
    if enc == "VOP3P_MAI":
        if any(o.kind == K.AV for o in inst.operands):
            out.append(_line(inst, _base_tokens(inst, rot, agpr=True)))
            # mixed: A/B from AGPRs, C/D in VGPRs and the other way
            ta = _base_tokens(inst, rot, agpr=True)
            tv = _base_tokens(inst, rot)
            mixed = [ta[j] if o.name in ("src0",) else tv[j] for j, o in enumerate(inst.operands)]
            out.append(_line(inst, mixed))
            mixed = [tv[j] if o.name in ("src0", "src1") else ta[j] for j, o in enumerate(inst.operands)]
            out.append(_line(inst, mixed))
            for j, o in enumerate(inst.operands):
                if o.name == "src2" and o.inline_const:
                    for v in ("0", "1.0", "-4.0", "64"):
                        t2 = list(toks)
                        t2[j] = v
                        out.append(_line(inst, t2))
        for combo in (["cbsz:1"], ["abid:1"], ["blgp:1"], ["cbsz:3", "abid:2", "blgp:7"], ["cbsz:7", "abid:15"],
                      ["neg:[1,0,0]"], ["neg:[0,1,1]"], ["neg:[1,1,1]"]):
            if all(c.split(":")[0] in mods for c in combo):
                out.append(_line(inst, toks, combo))
    if dpp:
        for c in ctrls[:6] + [rot.pick(ctrls)]:
            out.append(_line(inst, toks, [c, f"row_mask:0x{next(rot.c) % 16:x}", f"bank_mask:0x{next(rot.c) % 16:x}"]))
        out.append(_line(inst, toks, [rot.pick(ctrls), "bound_ctrl:0"]))
        out.append(_line(inst, toks, [rot.pick(ctrls), "row_mask:0x3", "bank_mask:0xc", "bound_ctrl:1"]))
    if sdwa:
        has_dst = enc != "VOPC_SDWA"
        for _ in range(3):
            m = []
            if "clamp" in mods and next(rot.c) % 3 == 0:
                m.append("clamp")
            if "omod" in mods and next(rot.c) % 3 == 0:
                m.append(rot.pick(["mul:2", "mul:4", "div:2"]))
            if has_dst:
                m += [f"dst_sel:{rot.pick(_SEL)}", f"dst_unused:{rot.pick(_UNUSED)}"]
            m.append(f"src0_sel:{rot.pick(_SEL)}")
            if enc != "VOP1_SDWA":
                m.append(f"src1_sel:{rot.pick(_SEL)}")
            out.append(_line(inst, toks, m))
        if enc == "VOPC_SDWA":
            t2 = list(toks)
            t2[0] = rot.pick(["s[4:5]", "s[100:101]", "exec", "ttmp[2:3]"])
            out.append(_line(inst, t2, ["src0_sel:WORD_1"]))
    return out


def _suffixless(inst: Instruction, rot: _Rot) -> list[str]:
    """Spellings without the encoding suffix: LLVM picks e32 when operands fit, else VOP3,
    else SDWA/DPP by modifier."""
    if not inst.mnemonic.endswith("_e32"):
        return []
    out = []
    base = inst.base
    toks = _base_tokens(inst, rot)
    out.append(base + (" " + ", ".join(toks) if toks else ""))
    e64 = table.by_mnemonic(base + "_e64")
    if e64 is not None:
        t64 = _base_tokens(e64, rot)
        srcs = _src_slots(e64)
        if len(srcs) >= 2 and srcs[1][1].kind == K.SRC:
            t2 = list(t64)
            t2[srcs[1][0]] = rot.pick(["s3", "1.0", "-2"]) if srcs[1][1].dwords == 1 else "s[2:3]"
            out.append(base + " " + ", ".join(t2))
        if "clamp" in e64.modifiers:
            out.append(base + " " + ", ".join(t64) + " clamp")
        if "neg0" in e64.modifiers and srcs:
            t2 = list(t64)
            t2[srcs[0][0]] = "-" + t2[srcs[0][0]]
            out.append(base + " " + ", ".join(t2))
    if table.by_mnemonic(base + "_sdwa") is not None:
        out.append(base + " " + ", ".join(toks) + " src0_sel:WORD_1")
    dpp = table.by_mnemonic(base + "_dpp")
    if dpp is not None:
        wide = any(o.dwords == 2 for o in dpp.operands)
        out.append(base + " " + ", ".join(toks) + (" row_newbcast:2" if wide else " row_shr:2"))
    return out


# Hand-picked corner cases LLVM treats specially (each checked against llvm-mc by the test)
EXTRAS = [
    "v_writelane_b32 v1, s2, m0", "v_writelane_b32 v1, 7, m0", "v_readlane_b32 s1, v2, m0", "v_clrexcp", "v_nop_e64",
    "v_pk_add_f16 v1, v2, v3 op_sel:[1,0,0,1] op_sel_hi:[0]", "v_mad_f16 v1, v2, v3, v4 op_sel:[1,0,0,1] clamp",
    "v_cvt_sr_fp8_f32 v1, v2, v3 op_sel:[1,1,1]", "v_cvt_sr_bf8_f32 v1, v2, v3 op_sel:[0,0,1,1]",
    "v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[1,0,0,1]", "v_accvgpr_write_b32 a255, s101", "v_accvgpr_read_b32 v255, a255",
    "v_mfma_f32_32x32x1_2b_f32 a[0:31], a0, a1, a[0:31] cbsz:4 abid:15 blgp:7",
    "v_mfma_f64_4x4x4_4b_f64 v[0:1], v[2:3], a[4:5], v[0:1] neg:[0,0,1]",
    "v_add_f32 v1, s2, s2", "v_add_f64 v[0:1], s[2:3], s[2:3]", "v_fma_f32 v1, s2, 0.5, s2",
    "v_cndmask_b32_e64 v1, s2, v3, s[2:3]", "v_mov_b32_sdwa v1, v2 dst_sel:BYTE_3 dst_unused:UNUSED_SEXT",
    "v_add_f16 v1, -17, v2", "v_add_u16 v1, -17, v2", "v_add_u32 v1, 0xffffffff, v2", "v_mov_b64 v[0:1], 0xffffffff",
    "v_add_f64 v[0:1], 0x3ff00000, v[2:3]", "v_fmaak_f32 v1, 1.0, v2, 0x3fc00000", "v_madmk_f16 v1, 0.5, 0x3c00, v3",
]


def forms() -> list[str]:
    rot = _Rot()
    out: list[str] = list(EXTRAS)
    for inst in table.instructions():
        if inst.encoding not in VOP_ENCODINGS:
            continue
        out += forms_for(inst, rot)
        out += _suffixless(inst, rot)
    seen = set()
    res = []
    for line in out:
        if line not in seen:
            seen.add(line)
            res.append(line)
    return res

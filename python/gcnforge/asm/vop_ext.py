"""DPP and SDWA forms of VOP1/VOP2/VOPC, and the resolver that picks the encoding LLVM
picks when the ``_e32``/``_e64``/``_sdwa``/``_dpp`` suffix is omitted.

Layouts: ``gcnforge.isa.encodings`` (AMD Instinct MI300 ISA Reference Guide 12.3.3/12.3.4);
syntax, print order and decode validity: LLVM 22 (probed with llvm-mc)."""

from __future__ import annotations

from gcnforge.asm.core import register_codec, register_resolver
from gcnforge.asm.kinds import reg_value
from gcnforge.asm.operands import format_sreg, parse_int, parse_reg, sreg_code
from gcnforge.asm.vop_codec import VopCodec
from gcnforge.asm.vop_mods import nsrc, clamp_omod_text, mods_valid, parse_clamp_omod, parse_uint
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import dpp, table
from gcnforge.isa.schema import Instruction, Operand, OperandKind


dpp_ctrl_text = dpp.text  # LLVM's spelling of a DPP_CTRL value, None for an unused one


def _dp_alu(inst: Instruction) -> bool:
    """Instructions with a 64-bit operand run on the DP ALU, whose DPP only supports
    row_newbcast (gfx90a+; LLVM 22 "DP ALU dpp only supports row_newbcast")."""
    return any(o.dwords == 2 for o in inst.operands)


class DppCodec(VopCodec):
    """VOP1/VOP2 with DPP (src0 = 0xFA): dpp control, row_mask, bank_mask, bound_ctrl."""

    encodings = ("VOP1_DPP", "VOP2_DPP", "VOPC_DPP")

    def defaults(self, inst):
        return {"row_mask": 0xF, "bank_mask": 0xF, "dpp_ctrl": 0xE4}

    def src_mod_fields(self, inst, idx):
        return f"src{idx}_neg", 0, f"src{idx}_abs", 0

    def parse_modifier(self, st, name, val, tok):
        if name in ("row_mask", "bank_mask"):
            st.fields[name] = parse_uint(st, name, val, tok, 15)
            return True
        if name == "bound_ctrl":
            if val not in ("0", "1"):
                raise Diagnostic("bound_ctrl expects 0 or 1", tok.loc(st.loc))
            st.fields["bound_ctrl"] = 1  # LLVM sets the bit for both spellings
            return True
        ctrl = None
        if name == "quad_perm":
            if val is None or not (val.startswith("[") and val.endswith("]")):
                raise Diagnostic("quad_perm expects quad_perm:[a,b,c,d]", tok.loc(st.loc))
            items = [parse_int(x) for x in val[1:-1].split(",")]
            if len(items) != 4 or any(x is None or not 0 <= x <= 3 for x in items):
                raise Diagnostic("quad_perm expects 4 lane selects 0..3", tok.loc(st.loc))
            ctrl = items[0] | items[1] << 2 | items[2] << 4 | items[3] << 6
        elif name in dpp.ROW_SHIFT:
            ctrl = dpp.ROW_SHIFT[name] + parse_uint(st, name, val, tok, 15)
            if ctrl == dpp.ROW_SHIFT[name]:
                raise Diagnostic(f"{name} expects a shift 1..15", tok.loc(st.loc))
        elif name in dpp.WAVE:
            if val != "1":
                raise Diagnostic(f"{name} expects {name}:1", tok.loc(st.loc))
            ctrl = dpp.WAVE[name]
        elif name in dpp.FLAG:
            ctrl = dpp.FLAG[name]
        elif name == "row_newbcast":
            ctrl = dpp.ROW_NEWBCAST + parse_uint(st, name, val, tok, 15)
        elif name == "row_bcast":
            if val not in ("15", "31"):
                raise Diagnostic("row_bcast expects row_bcast:15 or row_bcast:31", tok.loc(st.loc))
            ctrl = dpp.ROW_BCAST[int(val)]
        if ctrl is None:
            return False
        if _dp_alu(st.inst) and ctrl not in dpp.DP_ALU:
            raise Diagnostic(f"'{st.inst.mnemonic}' runs on the DP ALU, whose DPP only supports row_newbcast:N",
                             tok.loc(st.loc))
        if "dpp_ctrl" in st.extra:
            raise Diagnostic("only one DPP control per instruction", tok.loc(st.loc))
        st.extra["dpp_ctrl"] = 1
        st.fields["dpp_ctrl"] = ctrl
        return True

    def finish(self, st, toks):
        super().finish(st, toks)
        if _dp_alu(st.inst) and "dpp_ctrl" not in st.extra:
            raise Diagnostic(f"'{st.inst.mnemonic}' needs a DPP control (row_newbcast:N on the DP ALU)", st.loc)
        if "dpp_ctrl" not in st.extra:  # LLVM 22 has no default control: "too few operands"
            raise Diagnostic(f"too few operands for instruction: '{st.inst.mnemonic}' needs a DPP control "
                             "(quad_perm:[...], row_shl:N, row_shr:N, row_ror:N, wave_*, row_mirror, "
                             "row_half_mirror, row_bcast:N, row_newbcast:N)", st.loc)

    def modifier_text(self, di):
        f = di.fields
        ctrl = f.get("dpp_ctrl", 0)
        txt = dpp_ctrl_text(ctrl)
        if _dp_alu(di.inst) and ctrl not in dpp.DP_ALU:
            txt = " /* DP ALU dpp only supports row_newbcast */"  # what LLVM 22 prints
        out = [txt or f"dpp_ctrl:0x{ctrl:x}",
               f"row_mask:0x{f.get('row_mask', 0):x}", f"bank_mask:0x{f.get('bank_mask', 0):x}"]
        if f.get("bound_ctrl"):
            out.append("bound_ctrl:1")
        return out

    def valid(self, di):
        # neg/abs bits of a source the op lacks make LLVM refuse; on an existing source
        # without float modifiers they are ignored (probed)
        if not super().valid(di):
            return False
        n = nsrc(di.inst)
        f = di.fields
        if any(f.get(f"src{i}_neg") or f.get(f"src{i}_abs") for i in range(n, 2)):
            return False
        fmods = any(m.startswith(("neg", "abs")) for m in di.inst.modifiers)
        if not fmods and not di.inst.base.startswith("v_dot") and any(
                f.get(f"src{i}_neg") or f.get(f"src{i}_abs") for i in range(2)):
            return False
        return dpp_ctrl_text(di.fields.get("dpp_ctrl", 0)) is not None or _dp_alu(di.inst)

    def modifier_values(self, di):
        return {k: di.fields.get(k, 0) for k in ("dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl", "src0_neg",
                                                 "src0_abs", "src1_neg", "src1_abs")}


_SEL = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"]
_UNUSED = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"]


# the SDWA fields llvm-mc 22 requires to be 0 in v_nop_sdwa (probed one field at a time; with
# one set it decodes the first word alone as the VOP1 v_nop)
_NOP_SDWA_ZERO = ("clamp", "omod", "src0_sel", "src0_sext", "src0_neg", "src0_abs", "src1_sel", "src1_sext",
                  "src1_neg", "src1_abs", "s1")


class SdwaCodec(VopCodec):
    """VOP1/VOP2/VOPC with SDWA (src0 = 0xF9): sub-dword selects, sext, neg/abs, SGPR or
    inline-constant sources (s0/s1 bits), VOPC sdst (sd=0 means vcc)."""

    encodings = ("VOP1_SDWA", "VOP2_SDWA", "VOPC_SDWA")
    scalar_src_constants = True

    def defaults(self, inst):
        if not inst.operands:  # v_nop_sdwa: every SDWA field 0 (llvm-mc 22: f9 00 00 7e 00 00 00 00)
            return {}
        d = {"src0_sel": 6}
        if inst.encoding != "VOP1_SDWA":
            d["src1_sel"] = 6
        if inst.encoding != "VOPC_SDWA":
            # forms without dst_sel/dst_unused syntax (v_cvt_f32_fp8...) encode DWORD/UNUSED_PAD
            d.update(dst_sel=6, dst_unused=2 if "dst_unused" in inst.modifiers else 0)
        return d

    def src_mod_fields(self, inst, idx):
        return f"src{idx}_neg", 0, f"src{idx}_abs", 0

    def put_sext(self, st, idx):
        st.fields[f"src{idx}_sext"] = 1

    def sext_of(self, di, idx):
        # LLVM prints the sext bit of any source that takes no float modifiers
        mods = di.inst.modifiers
        return bool(di.fields.get(f"src{idx}_sext")) and (f"sext{idx}" in mods or not (
            f"neg{idx}" in mods or f"abs{idx}" in mods))

    def _sbit(self, op: Operand) -> str:
        return "s0" if op.name == "src0" else "s1"

    def src_code(self, fields, op):
        raw = fields.get(op.field or "", 0)
        return raw if fields.get(self._sbit(op)) else raw + 256

    def put_src(self, st, op, code, tok):
        if code >= 256:
            st.fields[op.field] = code - 256
            st.fields[self._sbit(op)] = 0
        else:
            if code == 255:
                raise Diagnostic(f"literal not allowed in an SDWA instruction ({op.name})", tok.loc(st.loc))
            if code == 248 and op.optype == "i16":
                raise Diagnostic(f"0.15915494 is not an inline constant for a 16-bit integer SDWA operand",
                                 tok.loc(st.loc))
            st.fields[op.field] = code
            st.fields[self._sbit(op)] = 1

    def operand_text(self, di, op):
        if op.kind == OperandKind.VGPR and op.name in ("src0", "vsrc1") and di.fields.get(self._sbit(op)):
            # the decoder honours the s bit even where the assembler wants a VGPR
            from gcnforge.asm.vop_src import format_src
            neg, absm = self.src_mods(di, 0 if op.name == "src0" else 1)
            return format_src(di.fields.get(op.field, 0), op.optype, op.dwords, None, neg=neg, absm=absm,
                              sext=self.sext_of(di, 0 if op.name == "src0" else 1))
        return super().operand_text(di, op)

    def parse_sdst(self, st, op, tok):
        if tok.text.lower() == "vcc":
            st.fields["sd"] = 0
            st.fields["sdst"] = 0
            return
        ref = parse_reg(tok.text)
        if ref is None:
            raise Diagnostic(f"invalid operand '{tok.text}' for sdst: expected vcc or an SGPR pair", tok.loc(st.loc))
        st.fields["sdst"] = sreg_code(ref, 2, tok, st.loc, "sdst")
        st.fields["sd"] = 1

    def sdst_valid(self, di, op):
        return not di.fields.get("sd") or super().sdst_valid(di, op)

    def sdst_text(self, di, op):
        if not di.fields.get("sd"):
            return "vcc"
        return format_sreg(di.fields.get("sdst", 0), 2)

    def operand_values(self, di):
        vals = super().operand_values(di)
        if di.fields.get("sd", 1):
            return vals
        vcc = reg_value("sdst", 106, 2)  # SDST field code of vcc; sd=0: the result goes to vcc, whatever the sdst field holds
        return tuple(vcc if v.name == "sdst" else v for v in vals)

    def parse_modifier(self, st, name, val, tok):
        if parse_clamp_omod(self, st, name, val, tok):
            return True
        enc = st.inst.encoding
        if name in ("dst_sel", "src0_sel", "src1_sel", "dst_unused"):
            if name not in st.inst.modifiers:
                return False
            names = _UNUSED if name == "dst_unused" else _SEL
            if val is None or val.upper() not in names:
                raise Diagnostic(f"{name} expects one of {', '.join(names)}", tok.loc(st.loc))
            st.fields[name] = names.index(val.upper())
            return True
        return False

    def modifier_text(self, di):
        f = di.fields
        mods = di.inst.modifiers
        out = clamp_omod_text(di) if di.inst.encoding != "VOPC_SDWA" else []
        if "dst_sel" in mods:
            out.append(f"dst_sel:{_name(_SEL, f.get('dst_sel', 0))}")
        if "dst_unused" in mods:
            du = f.get("dst_unused", 0)
            out.append(f"dst_unused:{_UNUSED[du] if du < 3 else 'UNUSED_PAD'}")  # LLVM prints 3 as PAD
        if "src0_sel" in mods:
            out.append(f"src0_sel:{_name(_SEL, f.get('src0_sel', 0))}")
        if "src1_sel" in mods:
            out.append(f"src1_sel:{_name(_SEL, f.get('src1_sel', 0))}")
        return out

    def valid(self, di):
        f = di.fields
        # select value 7 is reserved (LLVM 22's disassembler crashes on it; we print .long)
        if not all(f.get(k, 0) <= 6 for k in ("dst_sel", "src0_sel", "src1_sel")):
            return False
        if not super().valid(di):
            return False
        mods = di.inst.modifiers
        if not di.inst.operands:  # v_nop_sdwa: llvm-mc 22 decodes it while these fields are 0 (it
            return not any(f.get(k) for k in _NOP_SDWA_ZERO)  # ignores src0, dst_sel, dst_unused, s0)
        if (f.get("omod") and "omod" not in mods) or (f.get("clamp") and "clamp" not in mods):
            return False
        if di.inst.encoding == "VOP1_SDWA" and any(f.get(k) for k in ("src1_sel", "src1_sext", "src1_neg",
                                                                         "src1_abs", "s1")):
            return False
        if di.inst.encoding != "VOPC_SDWA" and (("dst_sel" not in mods and f.get("dst_sel") != 6) or
                                                ("dst_unused" not in mods and f.get("dst_unused"))):
            return False
        if di.inst.base == "v_pk_fmac_f16" and (f.get("src0_sext") or f.get("src1_sext")):
            return False
        if not mods_valid(di, "src{}_neg", "src{}_abs"):
            return False
        mods = di.inst.modifiers
        # a float op refuses the sext bit
        return not any(f.get(f"src{i}_sext") and (f"neg{i}" in mods or f"abs{i}" in mods) and f"sext{i}" not in mods
                       for i in (0, 1))

    def modifier_values(self, di):
        return {k: di.fields.get(k, 0) for k in ("dst_sel", "dst_unused", "src0_sel", "src1_sel", "clamp", "omod",
                                                 "src0_sext", "src1_sext", "src0_neg", "src0_abs", "src1_neg",
                                                 "src1_abs")}


def _name(names: list[str], v: int) -> str:
    return names[v] if v < len(names) else str(v)


# ---------------------------------------------------------------------------------------
_SUFFIXES = ("_e32", "_e64", "_sdwa", "_dpp")


def resolve(mnemonic: str) -> list[Instruction] | None:
    """``v_add_f32`` -> [_e32, _e64, _sdwa, _dpp] (LLVM's order: the 32-bit encoding when
    the operands fit it, else VOP3, else SDWA/DPP by their modifiers). ``x_e64`` of a
    VOP3-only op is the op itself."""
    if not mnemonic.startswith("v_"):
        return None
    out = [i for s in _SUFFIXES if (i := table.by_mnemonic(mnemonic + s)) is not None]
    if out:
        return out
    if mnemonic.endswith("_e64") and not mnemonic[:-4].endswith(_SUFFIXES):  # (llvm-mc refuses x_e64_e64)
        i = table.by_mnemonic(mnemonic[:-4])
        if i is not None and i.encoding.startswith("VOP3"):
            return [i]
    return None


for _c in (DppCodec(), SdwaCodec()):
    register_codec(_c)
register_resolver(resolve)

"""Vector-ALU encoding families on top of ``vop_codec.VopCodec``: e32 (VOP1/VOP2/VOPC),
VOP3A/VOP3B, VOP3P, VOP3P-MAI, DPP and SDWA; plus the resolver that picks the encoding
LLVM picks when the ``_e32``/``_e64``/``_sdwa``/``_dpp`` suffix is omitted.

Bit layouts: ``gcnforge.isa.encodings`` (AMD Instinct MI300 ISA Reference Guide ch. 12);
modifier syntax and print order: LLVM 22 AMDGPUInstPrinter (probed with llvm-mc)."""

from __future__ import annotations

from gcnforge.asm.core import DecodedInst, EncState, register_codec, register_resolver
from gcnforge.asm.operands import Tok, format_sreg, parse_int, parse_reg, sreg_code
from gcnforge.asm.vop_codec import VopCodec
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import table
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Instruction, Operand, OperandKind


def _nsrc(inst: Instruction) -> int:
    return sum(1 for o in inst.operands if o.name in ("src0", "src1", "src2", "vsrc1") and o.kind != OperandKind.SPECIAL)


def mods_valid(di: DecodedInst, neg_field: str | None, abs_field: str | None) -> bool:
    """LLVM refuses neg/abs bits on sources the op lacks, and on any source of an op that
    takes no float modifiers at all; an op with some float modifiers ignores the bits on
    its other sources (probed with llvm-mc --disassemble)."""
    mods = di.inst.modifiers
    f = di.fields
    n = _opsel_srcs(di.inst)  # v_cvt_sr_* have a third (old-destination) slot
    fmods = any(m[:3] in ("neg", "abs") and m[3:].isdigit() for m in mods) or di.inst.base == "v_pk_fmac_f16"
    for i in range(3):
        for fld in (neg_field, abs_field):
            if fld is None:
                continue
            bit = f.get(fld.format(i), 0) if "{}" in fld else (f.get(fld, 0) >> i) & 1
            if bit and (i >= n or not fmods):
                return False
    return True


def _opsel_srcs(inst: Instruction) -> int:
    """Sources op_sel names before its dst bit: v_cvt_sr_{fp8,bf8}_f32 also select the byte
    of the old destination (src2 slot), so their op_sel has four entries (LLVM 22)."""
    return 3 if inst.base.startswith("v_cvt_sr_") else _nsrc(inst)


def parse_bits(st: EncState, name: str, val: str | None, tok: Tok, n: int) -> list[int]:
    """``[a,b,c]`` of 0/1 with exactly ``n`` entries."""
    if val is None or not (val.startswith("[") and val.endswith("]")):
        raise Diagnostic(f"{name} expects a list like {name}:[{','.join(['0'] * n)}]", tok.loc(st.loc))
    items = [x.strip() for x in val[1:-1].split(",")]
    if len(items) != n or any(x not in ("0", "1") for x in items):
        raise Diagnostic(f"{name} expects {n} entries of 0 or 1 for '{st.inst.mnemonic}'", tok.loc(st.loc))
    return [int(x) for x in items]


def bits_text(name: str, bits: list[int]) -> str:
    return f"{name}:[{','.join(str(b) for b in bits)}]"


def parse_uint(st: EncState, name: str, val: str | None, tok: Tok, hi: int) -> int:
    iv = parse_int(val) if val is not None else None
    if iv is None or not 0 <= iv <= hi:
        raise Diagnostic(f"{name} expects an integer 0..{hi} ({name}:N)", tok.loc(st.loc))
    return iv


_OMOD = {"mul:2": 1, "mul:4": 2, "div:2": 3}
_OMOD_TEXT = {1: "mul:2", 2: "mul:4", 3: "div:2"}


def parse_clamp_omod(codec, st: EncState, name: str, val: str | None, tok: Tok) -> bool:
    mods = st.inst.modifiers
    if name == "clamp" and "clamp" in mods:
        if val is not None:
            raise Diagnostic("modifier 'clamp' takes no value", tok.loc(st.loc))
        st.fields["clamp"] = 1
        return True
    if name in ("mul", "div") and "omod" in mods:
        key = f"{name}:{val}"
        if key not in _OMOD:
            raise Diagnostic(f"invalid output modifier '{key}': expected mul:2, mul:4 or div:2", tok.loc(st.loc))
        if "omod" in st.extra:
            raise Diagnostic("only one output modifier (mul:2, mul:4, div:2)", tok.loc(st.loc))
        st.extra["omod"] = 1
        st.fields["omod"] = _OMOD[key]
        return True
    return False


def clamp_omod_text(di: DecodedInst) -> list[str]:
    out = []
    if di.fields.get("clamp"):
        out.append("clamp")
    if di.fields.get("omod"):
        out.append(_OMOD_TEXT[di.fields["omod"]])
    return out


# ---------------------------------------------------------------------------------------
class E32Codec(VopCodec):
    """VOP1, VOP2, VOPC (32-bit forms): no modifiers; src0 may be a literal."""

    encodings = ("VOP1", "VOP2", "VOPC")

    def valid(self, di):
        # v_nop with operand bits set is refused (v_clrexcp ignores them: probed)
        if di.inst.base == "v_nop" and (di.fields.get("vdst") or di.fields.get("src0")):
            return False
        return super().valid(di)


class Vop3Codec(VopCodec):
    """VOP3A (abs/neg/clamp/omod/op_sel) and VOP3B (sdst carry-out; neg/clamp/omod)."""

    encodings = ("VOP3A", "VOP3B")

    def src_mod_fields(self, inst, idx):
        return "neg", idx, ("abs" if inst.encoding == "VOP3A" else None), idx

    def parse_modifier(self, st, name, val, tok):
        if parse_clamp_omod(self, st, name, val, tok):
            return True
        if name == "op_sel" and "op_sel" in st.inst.modifiers:
            # LLVM 22: entries 0..n-1 are the sources, entry n the destination; missing
            # entries are 0 and entries past n+1 (up to 4 in all) are ignored
            n = _opsel_srcs(st.inst)
            cnt = val.count(",") + 1 if val else 0
            bits = parse_bits(st, name, val, tok, cnt if 1 <= cnt <= 4 else n + 1) + [0] * 4
            v = sum(b << i for i, b in enumerate(bits[:n])) | (bits[n] << 3)
            st.fields["op_sel"] = v
            return True
        return False

    def modifier_text(self, di):
        out = []
        v = di.fields.get("op_sel", 0) if "op_sel" in di.inst.modifiers else 0
        if v:
            n = _opsel_srcs(di.inst)
            out.append(bits_text("op_sel", [(v >> i) & 1 for i in range(n)] + [(v >> 3) & 1]))
        return out + clamp_omod_text(di)  # LLVM prints op_sel before clamp and omod

    def modifier_values(self, di):
        return {k: di.fields.get(k, 0) for k in ("clamp", "omod", "op_sel", "abs", "neg") if k in di.fields}

    def valid(self, di):
        mods = di.inst.modifiers
        f = di.fields
        n = _opsel_srcs(di.inst)
        # op_sel bits of sources the op lacks (bit 3 is dst) are refused when it has op_sel
        absent = 0b0111 & ~((1 << n) - 1) if "op_sel" in mods else 0
        return (super().valid(di) and mods_valid(di, "neg", "abs") and (not f.get("omod") or "omod" in mods)
                and (not f.get("clamp") or "clamp" in mods) and not (f.get("op_sel", 0) & absent))


# ---------------------------------------------------------------------------------------
def _is_mix(inst: Instruction) -> bool:
    return inst.base.startswith("v_fma_mix")


def _dot2(inst: Instruction) -> bool:
    """v_dot2_{f32_f16,i32_i16,u32_u16}: LLVM 22 refuses op_sel/op_sel_hi in assembly but
    decodes and prints them (probed)."""
    return inst.base.startswith("v_dot2_")


class Vop3pCodec(VopCodec):
    """VOP3P packed math: op_sel, op_sel_hi (default all ones, except v_fma_mix*),
    neg_lo, neg_hi, clamp. v_fma_mix* take float modifiers: -x in neg_lo, |x| in neg_hi."""

    encodings = ("VOP3P",)

    # v_mfma_*_xf32 sit in the VOP3P opcode range (op < 64) but use the MAI field layout
    def parse(self, inst, segs, loc, mtok):
        if inst.base.startswith("v_mfma"):
            return MAI.parse(inst, segs, loc, mtok)
        return super().parse(inst, segs, loc, mtok)

    def decode(self, inst, enc, raw, code, offset):
        if inst.base.startswith("v_mfma"):
            return MAI.decode(inst, ENCODINGS["VOP3P_MAI"], raw, code, offset)
        return super().decode(inst, enc, raw, code, offset)

    def defaults(self, inst):
        return {} if _is_mix(inst) else {"op_sel_hi": 3, "op_sel_hi2": 1}

    def src_mod_fields(self, inst, idx):
        if _is_mix(inst):
            return "neg", idx, "neg_hi", idx
        return None, 0, None, 0

    def _hi_bits(self, f: dict, n: int) -> list[int]:
        v = [(f.get("op_sel_hi", 0) >> i) & 1 for i in range(2)] + [f.get("op_sel_hi2", 0)]
        return v[:n]

    def parse_modifier(self, st, name, val, tok):
        mods = st.inst.modifiers
        n = _nsrc(st.inst)
        if name == "clamp" and "clamp" in mods:
            st.fields["clamp"] = 1
            return True
        if name in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi") and name in mods:
            # LLVM takes 1..4 entries: missing ones are 0, ones past the sources are ignored
            cnt = val.count(",") + 1 if val else 0
            bits = (parse_bits(st, name, val, tok, cnt if 1 <= cnt <= 4 else n) + [0] * 4)[:n]
            v = sum(b << i for i, b in enumerate(bits))
            if name == "op_sel":
                st.fields["op_sel"] = v
            elif name == "op_sel_hi":
                st.fields["op_sel_hi"] = v & 3
                # an unused src2 slot keeps its default (LLVM leaves the bit at 1)
                st.fields["op_sel_hi2"] = (v >> 2) & 1 if n == 3 else st.fields.get("op_sel_hi2", 0)
            elif name == "neg_lo":
                st.fields["neg"] = v
            else:
                st.fields["neg_hi"] = v
            return True
        return False

    def modifier_text(self, di):
        f = di.fields
        n = _nsrc(di.inst)
        mods = di.inst.modifiers
        out = []
        dot2 = _dot2(di.inst)
        ops = [(f.get("op_sel", 0) >> i) & 1 for i in range(n)]
        if ("op_sel" in mods or dot2) and any(ops):
            out.append(bits_text("op_sel", ops))
        hi = self._hi_bits(f, n)
        if "op_sel_hi" in mods or dot2:
            if (_is_mix(di.inst) and any(hi)) or (not _is_mix(di.inst) and not all(hi)):
                out.append(bits_text("op_sel_hi", hi))
        if "neg_lo" in mods:
            b = [(f.get("neg", 0) >> i) & 1 for i in range(n)]
            if any(b):
                out.append(bits_text("neg_lo", b))
        if "neg_hi" in mods:
            b = [(f.get("neg_hi", 0) >> i) & 1 for i in range(n)]
            if any(b):
                out.append(bits_text("neg_hi", b))
        if f.get("clamp") and "clamp" in mods:
            out.append("clamp")
        return out

    def modifier_values(self, di):
        return {k: di.fields.get(k, 0) for k in ("op_sel", "op_sel_hi", "op_sel_hi2", "neg", "neg_hi", "clamp")}

    def valid(self, di):
        # bits of sources the op does not have, and of modifiers it does not take, must be
        # clear (LLVM refuses them)
        if not super().valid(di):
            return False
        n = _nsrc(di.inst)
        extra = ((1 << 3) - 1) ^ ((1 << n) - 1)
        f = di.fields
        mods = di.inst.modifiers
        if (f.get("op_sel", 0) | f.get("neg", 0) | f.get("neg_hi", 0)) & extra:
            return False
        if f.get("op_sel") and "op_sel" not in mods and not _dot2(di.inst):
            return False
        if f.get("clamp") and "clamp" not in mods:
            return False
        if not _is_mix(di.inst) and ((f.get("neg") and "neg_lo" not in mods) or (f.get("neg_hi") and
                                                                                  "neg_hi" not in mods)):
            return False
        return True


# ---------------------------------------------------------------------------------------
class MaiCodec(VopCodec):
    """VOP3P-MAI: MFMA/SMFMAC (vdst and src2 in the file chosen by acc_cd; src0/src1 AGPR
    when their ``acc`` bit is set; cbsz, abid, blgp or, for f64 MFMA, neg:[a,b,c] in the
    blgp bits) and v_accvgpr_read/write (LLVM encodes abid=8, acc=3 by default there)."""

    encodings = ("VOP3P_MAI",)

    def encode(self, pi, pc=0, resolve=None):
        lay = ENCODINGS["VOP3P_MAI"]
        word = ENCODINGS[pi.inst.encoding].match_value
        for name, v in pi.fields.items():
            f = lay.fields.get(name)
            if f is not None:
                word |= (v & ((1 << f.width) - 1)) << f.lo
        out = word.to_bytes(8, "little")
        if pi.size > 8:
            out += ((pi.literal or 0) & 0xFFFFFFFF).to_bytes(4, "little")
        return out

    def defaults(self, inst):
        if inst.base.startswith("v_accvgpr"):
            return {"abid": 8, "acc": 3}
        return {}

    def note_acc(self, st, op, acc, tok):
        if op.name == "src0":
            st.fields["acc"] = (st.fields.get("acc", 0) & ~1) | acc
        elif op.name == "src1":
            st.fields["acc"] = (st.fields.get("acc", 0) & ~2) | (acc << 1)
        else:
            prev = st.extra.get("acc_cd")
            if prev is not None and prev != acc:
                raise Diagnostic(f"{op.name} must be in the same register file as vdst "
                                 f"({'AGPR' if prev else 'VGPR'})", tok.loc(st.loc))
            st.extra["acc_cd"] = acc
            st.fields["acc_cd"] = acc

    def reg_file(self, f, op):
        if op.kind == OperandKind.AGPR:
            return "a"
        if op.kind != OperandKind.AV:
            return "v"
        if op.name == "src0":
            return "a" if f.get("acc", 0) & 1 else "v"
        if op.name == "src1":
            return "a" if f.get("acc", 0) & 2 else "v"
        return "a" if f.get("acc_cd") else "v"

    def parse_modifier(self, st, name, val, tok):
        mods = st.inst.modifiers
        if name in ("cbsz", "blgp") and name in mods:
            st.fields[name] = parse_uint(st, name, val, tok, 7)
            return True
        if name == "abid" and name in mods:
            st.fields[name] = parse_uint(st, name, val, tok, 15)
            return True
        if name == "neg" and name in mods:
            bits = parse_bits(st, name, val, tok, 3)
            st.fields["blgp"] = bits[0] | bits[1] << 1 | bits[2] << 2
            return True
        return False

    def modifier_text(self, di):
        f = di.fields
        mods = di.inst.modifiers
        out = []
        for m in ("cbsz", "abid", "blgp"):
            if m in mods and f.get(m):
                out.append(f"{m}:{f[m]}")
        if "neg" in mods and f.get("blgp"):
            b = f["blgp"]
            out.append(bits_text("neg", [b & 1, (b >> 1) & 1, (b >> 2) & 1]))
        return out

    def modifier_values(self, di):
        return {k: di.fields.get(k, 0) for k in ("cbsz", "abid", "blgp", "acc_cd", "acc")}

    def valid(self, di):
        if not super().valid(di):
            return False
        mods = di.inst.modifiers
        f = di.fields
        if di.inst.base.startswith("v_accvgpr"):
            # VOP3P layout: op_sel (abid bits 0-2), neg_hi (cbsz) and neg (blgp) must be clear;
            # op_sel_hi (abid bit 3, acc) is don't-care (probed)
            return not (f.get("cbsz") or f.get("abid", 0) & 7 or f.get("blgp"))
        dflt = self.defaults(di.inst)
        for m in ("cbsz", "abid", "blgp"):
            if m not in mods and not (m == "blgp" and "neg" in mods) and di.fields.get(m, 0) != dflt.get(m, 0):
                return False
        return True


# ---------------------------------------------------------------------------------------
_DPP_SIMPLE = {"row_mirror": 0x140, "row_half_mirror": 0x141}
_DPP_SHIFT = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120}
_DPP_WAVE = {"wave_shl": 0x130, "wave_rol": 0x134, "wave_shr": 0x138, "wave_ror": 0x13C}


def dpp_ctrl_text(v: int) -> str | None:
    if v <= 0xFF:
        return "quad_perm:[" + ",".join(str((v >> (2 * i)) & 3) for i in range(4)) + "]"
    for name, base in _DPP_SHIFT.items():
        if base < v <= base + 15:
            return f"{name}:{v - base}"
    for name, code in _DPP_WAVE.items():
        if v == code:
            return f"{name}:1"
    for name, code in _DPP_SIMPLE.items():
        if v == code:
            return name
    if v == 0x142:
        return "row_bcast:15"
    if v == 0x143:
        return "row_bcast:31"
    if 0x150 <= v <= 0x15F:
        return f"row_newbcast:{v - 0x150}"
    return None


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
        elif name in _DPP_SHIFT:
            ctrl = _DPP_SHIFT[name] + parse_uint(st, name, val, tok, 15)
            if ctrl == _DPP_SHIFT[name]:
                raise Diagnostic(f"{name} expects a shift 1..15", tok.loc(st.loc))
        elif name in _DPP_WAVE:
            if val != "1":
                raise Diagnostic(f"{name} expects {name}:1", tok.loc(st.loc))
            ctrl = _DPP_WAVE[name]
        elif name in _DPP_SIMPLE:
            ctrl = _DPP_SIMPLE[name]
        elif name == "row_newbcast":
            ctrl = 0x150 + parse_uint(st, name, val, tok, 15)
        elif name == "row_bcast":
            if val not in ("15", "31"):
                raise Diagnostic("row_bcast expects row_bcast:15 or row_bcast:31", tok.loc(st.loc))
            ctrl = 0x142 if val == "15" else 0x143
        if ctrl is None:
            return False
        if _dp_alu(st.inst) and not 0x150 <= ctrl <= 0x15F:
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

    def modifier_text(self, di):
        f = di.fields
        ctrl = f.get("dpp_ctrl", 0)
        txt = dpp_ctrl_text(ctrl)
        if _dp_alu(di.inst) and not 0x150 <= ctrl <= 0x15F:
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
        n = _nsrc(di.inst)
        f = di.fields
        if any(f.get(f"src{i}_neg") or f.get(f"src{i}_abs") for i in range(n, 2)):
            return False
        fmods = any(m.startswith(("neg", "abs")) for m in di.inst.modifiers)
        if not fmods and not di.inst.base.startswith("v_dot") and any(
                f.get(f"src{i}_neg") or f.get(f"src{i}_abs") for i in range(2)):
            return False
        return dpp_ctrl_text(di.fields.get("dpp_ctrl", 0)) is not None or _dp_alu(di.inst)

    def modifier_values(self, di):
        return {k: di.fields.get(k, 0) for k in ("dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl")}


_SEL = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"]
_UNUSED = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"]


class SdwaCodec(VopCodec):
    """VOP1/VOP2/VOPC with SDWA (src0 = 0xF9): sub-dword selects, sext, neg/abs, SGPR or
    inline-constant sources (s0/s1 bits), VOPC sdst (sd=0 means vcc)."""

    encodings = ("VOP1_SDWA", "VOP2_SDWA", "VOPC_SDWA")

    def defaults(self, inst):
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
                                                 "src0_sext", "src1_sext")}


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
    if mnemonic.endswith("_e64"):
        i = table.by_mnemonic(mnemonic[:-4])
        if i is not None and i.encoding.startswith("VOP3"):
            return [i]
    return None


MAI = MaiCodec()
for _c in (E32Codec(), Vop3Codec(), Vop3pCodec(), MAI, DppCodec(), SdwaCodec()):
    register_codec(_c)
register_resolver(resolve)

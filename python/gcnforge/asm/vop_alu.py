"""Vector-ALU families VOP1/VOP2/VOPC (e32), VOP3A/VOP3B, VOP3P and VOP3P-MAI on top of
``vop_codec.VopCodec``.

Bit layouts: ``gcnforge.isa.encodings`` (AMD Instinct MI300 ISA Reference Guide ch. 12);
modifier syntax, print order and decode validity: LLVM 22 AMDGPUAsmParser /
AMDGPUInstPrinter / disassembler, probed with llvm-mc."""

from __future__ import annotations

from functools import lru_cache

from gcnforge.asm.core import register_codec
from gcnforge.asm.vop_codec import VopCodec
from gcnforge.asm.vop_mods import (
    nsrc, opsel_srcs, bits_text, clamp_omod_text, mods_valid, parse_bits, parse_clamp_omod, parse_uint,
)
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Instruction, OperandKind


class E32Codec(VopCodec):
    """VOP1, VOP2, VOPC (32-bit forms): no modifiers; src0 may be a literal."""

    encodings = ("VOP1", "VOP2", "VOPC")

    def valid(self, di):
        # v_nop with vdst bits set is refused; its src0 bits are ignored (llvm-mc 22 decodes
        # 01 00 00 7e, and f9 00 00 7e whose SDWA dword it refuses, as v_nop); v_clrexcp
        # ignores both: probed
        if di.inst.base == "v_nop" and di.fields.get("vdst"):
            return False
        return super().valid(di)


def _bitop3(inst: Instruction) -> bool:
    """gfx950 v_bitop3_{b16,b32}: the 8-bit truth table ``bitop3:N`` lives in the neg (bits
    2:0), abs (5:3) and omod (7:6) fields, so the sources take no modifiers (probed with
    llvm-mc -mcpu=gfx950)."""
    return inst.base.startswith("v_bitop3_")


def _bitop3_of(f: dict) -> int:
    return (f.get("neg", 0) & 7) | (f.get("abs", 0) & 7) << 3 | (f.get("omod", 0) & 3) << 6


def _swap_e64(inst: Instruction) -> bool:
    """gfx950 v_permlane{16,32}_swap_b32_e64: ``bound_ctrl`` in op_sel bit 1 and ``fi`` in
    op_sel bit 0, written in that order; LLVM 22 sets the bound_ctrl bit for ``bound_ctrl:0``
    too, as it does for DPP (probed with llvm-mc -mcpu=gfx950)."""
    return inst.base in ("v_permlane16_swap_b32", "v_permlane32_swap_b32") and inst.encoding == "VOP3A"


class Vop3Codec(VopCodec):
    """VOP3A (abs/neg/clamp/omod/op_sel) and VOP3B (sdst carry-out; neg/clamp/omod)."""

    encodings = ("VOP3A", "VOP3B")

    def src_mod_fields(self, inst, idx):
        if _bitop3(inst):
            return None, 0, None, 0
        return "neg", idx, ("abs" if inst.encoding == "VOP3A" else None), idx

    def parse_modifier(self, st, name, val, tok):
        if _swap_e64(st.inst):
            if name not in ("bound_ctrl", "fi"):
                return False
            if val not in ("0", "1"):
                raise Diagnostic(f"{name} expects 0 or 1 ({name}:1)", tok.loc(st.loc))
            if name == "bound_ctrl" and "fi" in st.extra:
                raise Diagnostic("bound_ctrl must come before fi", tok.loc(st.loc))
            st.extra[name] = 1
            bit = 2 if name == "bound_ctrl" else int(val)
            st.fields["op_sel"] = st.fields.get("op_sel", 0) | bit
            return True
        if _bitop3(st.inst):
            if name == "bitop3":
                v = parse_uint(st, name, val, tok, 255)
                st.fields.update(neg=v & 7, abs=(v >> 3) & 7, omod=(v >> 6) & 3)
                return True
            if name in ("clamp", "mul", "div"):
                return False
        if parse_clamp_omod(self, st, name, val, tok):
            return True
        if name == "op_sel" and "op_sel" in st.inst.modifiers:
            # LLVM 22: entries 0..n-1 are the sources, entry n the destination; missing
            # entries are 0 and entries past n+1 (up to 4 in all) are ignored
            n = opsel_srcs(st.inst)
            cnt = val.count(",") + 1 if val else 0
            bits = parse_bits(st, name, val, tok, cnt if 1 <= cnt <= 4 else n + 1) + [0] * 4
            v = sum(b << i for i, b in enumerate(bits[:n])) | (bits[n] << 3)
            st.fields["op_sel"] = v
            return True
        return False

    def modifier_text(self, di):
        out = []
        if _swap_e64(di.inst):
            v = di.fields.get("op_sel", 0)
            return ["bound_ctrl:1"] * bool(v & 2) + ["fi:1"] * bool(v & 1)
        if _bitop3(di.inst):  # LLVM prints bitop3 first, decimal up to 10, else hex
            b = _bitop3_of(di.fields)
            if b:
                out.append(f"bitop3:{b}" if b <= 10 else f"bitop3:0x{b:x}")
        v = di.fields.get("op_sel", 0) if "op_sel" in di.inst.modifiers else 0
        if v:
            n = opsel_srcs(di.inst)
            out.append(bits_text("op_sel", [(v >> i) & 1 for i in range(n)] + [(v >> 3) & 1]))
        if _bitop3(di.inst):
            return out
        return out + clamp_omod_text(di)  # LLVM prints op_sel before clamp and omod

    def modifier_values(self, di):
        if _swap_e64(di.inst):
            v = di.fields.get("op_sel", 0)
            return {"bound_ctrl": (v >> 1) & 1, "fi": v & 1}
        if _bitop3(di.inst):
            return {"bitop3": _bitop3_of(di.fields), "op_sel": di.fields.get("op_sel", 0)}
        return {k: di.fields.get(k, 0) for k in ("clamp", "omod", "op_sel", "abs", "neg") if k in di.fields}

    def valid(self, di):
        mods = di.inst.modifiers
        f = di.fields
        if _swap_e64(di.inst):
            return (VopCodec.valid(self, di) and not f.get("op_sel", 0) & 0b1100 and not f.get("clamp")
                    and not f.get("omod") and not f.get("neg") and not f.get("abs"))
        if _bitop3(di.inst):
            absent = 0b0111 & ~((1 << opsel_srcs(di.inst)) - 1) if "op_sel" in mods else 0
            return VopCodec.valid(self, di) and not f.get("clamp") and not (f.get("op_sel", 0) & absent) and (
                "op_sel" in mods or not f.get("op_sel"))
        n = opsel_srcs(di.inst)
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

    # v_mfma_*_xf32 (gfx942) and gfx950's new MFMAs and SMFMACs sit in the VOP3P opcode range
    # (op < 64) but use the MAI field layout
    # (gfx950's v_mfma_ld_scale_b32 is named like one but has the plain VOP3P layout)
    def parse(self, inst, segs, loc, mtok):
        if inst.base.startswith("v_mfma_scale_"):  # gfx950 block-scaled pair: asm/vop_scale.py
            from gcnforge.asm.vop_scale import SCALED_MFMA

            return SCALED_MFMA.parse(inst, segs, loc, mtok)
        if inst.sem == "mfma":
            return MAI.parse(inst, segs, loc, mtok)
        return super().parse(inst, segs, loc, mtok)

    def decode(self, inst, enc, raw, code, offset):
        if inst.sem == "mfma":
            return MAI.decode(inst, ENCODINGS["VOP3P_MAI"], raw, code, offset)
        if inst.base == "v_mfma_ld_scale_b32":  # gfx950: maybe the first half of a block-scaled MFMA
            from gcnforge.asm.vop_scale import pair_at

            di = pair_at(code, offset, raw)
            if di is not None:
                return di
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
        n = nsrc(st.inst)
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
        n = nsrc(di.inst)
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
        if di.codec is not self:  # a block-scaled MFMA pair (asm/vop_scale.py) checks itself
            return di.codec.valid(di)
        # bits of sources the op does not have, and of modifiers it does not take, must be
        # clear (LLVM refuses them)
        if not super().valid(di):
            return False
        n = nsrc(di.inst)
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
# gfx950 v_mfma_*_f8f6f4: cbsz (A) and blgp (B) name the operand format, and the format the
# register tuple's size: fp6/bf6 (2, 3) take 6 dwords, fp4 (4) 4, fp8/bf8 (0, 1) and 5..7 8
# (LLVM 22: "wrong register tuple size for cbsz value N"; probed with llvm-mc -mcpu=gfx950).
_F8F6F4_DWORDS = {2: 6, 3: 6, 4: 4}


@lru_cache(maxsize=256)
def _f8f6f4_shape(inst: Instruction, cbsz: int, blgp: int) -> Instruction:
    a, b = _F8F6F4_DWORDS.get(cbsz, 8), _F8F6F4_DWORDS.get(blgp, 8)
    ops = tuple(o.replace(dwords=a) if o.name == "src0" else o.replace(dwords=b) if o.name == "src1" else o
                for o in inst.operands)
    return inst.replace(operands=ops)


def _written_format(segs, name: str) -> int:
    """The value of modifier ``name`` in the operand text (0 when absent or malformed: the
    modifier's own parse reports it)."""
    for t in (segs[-1][1:] if segs and segs[-1] else ()):
        key, _, val = t.text.partition(":")
        if key.lower() == name:
            try:
                return int(val, 0)
            except ValueError:
                return 0
    return 0


class MaiCodec(VopCodec):
    """VOP3P-MAI: MFMA/SMFMAC (vdst and src2 in the file chosen by acc_cd; src0/src1 AGPR
    when their ``acc`` bit is set; cbsz, abid, blgp or, for f64 MFMA, neg:[a,b,c] in the
    blgp bits) and v_accvgpr_read/write (LLVM encodes abid=8, acc=3 by default there)."""

    encodings = ("VOP3P_MAI",)

    def parse(self, inst, segs, loc, mtok):
        if inst.base.endswith("_f8f6f4"):
            inst = _f8f6f4_shape(inst, _written_format(segs, "cbsz"), _written_format(segs, "blgp"))
        return super().parse(inst, segs, loc, mtok)

    def decode(self, inst, enc, raw, code, offset):
        if inst.base.endswith("_f8f6f4"):
            inst = _f8f6f4_shape(inst, (raw >> 8) & 7, (raw >> 61) & 7)
        return super().decode(inst, enc, raw, code, offset)

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

    def finish(self, st, toks):
        super().finish(st, toks)
        # LLVM 22 (validateMFMA): for results wider than 128 bits, src2 may be vdst itself or
        # disjoint from it, never a partial overlap ("source 2 operand must not partially
        # overlap with dst"); the hardware reads C while writing D in passes.
        ops = {o.name: o for o in st.inst.operands}
        d, c = ops.get("vdst"), ops.get("src2")
        if d is None or c is None or d.dwords <= 4 or c.dwords != d.dwords or st.inst.base.startswith("v_accvgpr"):
            return
        code = st.fields.get("src2")
        if code is None or code < 256:
            return
        d0, c0 = st.fields.get("vdst", 0), code - 256
        if d0 != c0 and d0 < c0 + c.dwords and c0 < d0 + d.dwords:
            tok = toks.get("src2")
            raise Diagnostic("source 2 operand must not partially overlap with dst", tok.loc(st.loc) if tok else st.loc)

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


MAI = MaiCodec()
for _c in (E32Codec(), Vop3Codec(), Vop3pCodec(), MAI):
    register_codec(_c)

"""Shared syntax helpers of the vector-ALU families: source counts, modifier lists
(``op_sel:[a,b,c]``), output modifiers (clamp, mul:2/mul:4/div:2) and the rule LLVM 22
applies to neg/abs bits when decoding (probed with llvm-mc --disassemble)."""

from __future__ import annotations

from gcnforge.asm.core import DecodedInst, EncState
from gcnforge.asm.operands import Tok, parse_int
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.schema import Instruction, OperandKind


def nsrc(inst: Instruction) -> int:
    return sum(1 for o in inst.operands if o.name in ("src0", "src1", "src2", "vsrc1") and o.kind != OperandKind.SPECIAL)


def mods_valid(di: DecodedInst, neg_field: str | None, abs_field: str | None) -> bool:
    """LLVM refuses neg/abs bits on sources the op lacks, and on any source of an op that
    takes no float modifiers at all; an op with some float modifiers ignores the bits on
    its other sources (probed with llvm-mc --disassemble)."""
    mods = di.inst.modifiers
    f = di.fields
    n = opsel_srcs(di.inst)  # v_cvt_sr_* have a third (old-destination) slot
    fmods = any(m[:3] in ("neg", "abs") and m[3:].isdigit() for m in mods) or di.inst.base == "v_pk_fmac_f16"
    for i in range(3):
        for fld in (neg_field, abs_field):
            if fld is None:
                continue
            bit = f.get(fld.format(i), 0) if "{}" in fld else (f.get(fld, 0) >> i) & 1
            if bit and (i >= n or not fmods):
                return False
    return True


# Conversions that write part of their old destination: LLVM 22 gives them a tied ``vdst_in``
# in the src2 slot, so op_sel has four entries (gfx942's v_cvt_sr_{fp8,bf8}_f32; gfx950's
# v_cvt_scalef32_pk_fp4_{f16,bf16}). gfx950's v_cvt_sr_{f16,bf16}_f32 have none.
_OLD_DST_IN_SRC2 = ("v_cvt_sr_fp8_", "v_cvt_sr_bf8_", "v_cvt_scalef32_pk_fp4_f16", "v_cvt_scalef32_pk_fp4_bf16")


def opsel_srcs(inst: Instruction) -> int:
    """Sources op_sel names before its dst bit (see ``_OLD_DST_IN_SRC2``)."""
    return 3 if inst.base.startswith(_OLD_DST_IN_SRC2) else nsrc(inst)


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

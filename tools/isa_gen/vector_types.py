"""Facts the vector-ALU table generator takes from mnemonics and from AMD's ISA guide:
operand value types (for inline constants and literals), semantic classes and implicit
operands. Used by ``tools/isa_gen/vector.py``."""

from __future__ import annotations

import re

from tools.isa_gen.vector_discover import _TYPE_TOKENS

# ---------------------------------------------------------------------------------------
# types, classes, implicit operands
# ---------------------------------------------------------------------------------------
_TYPE_RE = re.compile(r"(?<![a-z0-9])(" + "|".join(_TYPE_TOKENS) + r")(?![a-z0-9])")


def _norm(t: str, dwords: int) -> str:
    if t in ("bf16",):
        return "bf16"
    if t in ("i16", "u16", "b16"):
        return "i16"
    if t in ("f16",):
        return "f16"
    if t in ("f64",):
        return "f64"
    if t in ("i64", "u64", "b64"):
        return "i64"
    if t in ("f32", "xf32"):
        return "f32" if dwords == 1 else "f64"
    return "i32" if dwords == 1 else "i64"


def is_scale_load(base: str) -> bool:
    """gfx950's v_mfma_ld_scale_b32 is named like an MFMA but is a plain VOP3P op (two scalar
    or vector sources, op_sel/op_sel_hi, no destination) that loads the next MFMA's scales."""
    return base == "v_mfma_ld_scale_b32"


def src_optype(base: str, slot: int, dwords: int) -> str:
    """Value type of source ``slot`` (0..2) for inline constants and literals, from the
    mnemonic's type suffixes (LLVM's operand types follow the same naming)."""
    name = base[2:] if base.startswith("v_") else base
    types = _TYPE_RE.findall(name.replace("_", " ").replace(" ", "_"))
    types = re.findall(r"(?:^|_)(" + "|".join(_TYPE_TOKENS) + r")(?=_|$)", name)
    if base.startswith(("v_mfma", "v_smfmac")) and not is_scale_load(base):
        return "f64" if "_f64" in base else ("i32" if "_i32_" in base else "f32")
    if base.startswith("v_pk_"):
        if "f32" in base or base == "v_pk_mov_b32":
            return "f32"
        return "v2f16" if "f16" in base else "v2i16"
    if base in ("v_ldexp_f32", "v_ldexp_f64", "v_ldexp_f16", "v_trig_preop_f64") and slot == 1:
        return "i32"
    if base in ("v_sad_u16", "v_sat_pk_u8_i16"):
        return "i32"  # 32-bit operands in LLVM (packed halves)
    if base.startswith("v_cmp") and "class" in base and slot == 1:
        return "i32"
    if base.startswith(("v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64")) and slot == 0:
        return "i32"
    if base in ("v_lshl_add_u64",) and slot == 1:
        return "i32"
    if base.startswith(("v_dot2_", "v_dot2c_")):
        if slot == 2:
            return "f32" if "_f32_" in base else "i32"
        return "v2bf16" if "bf16" in base else ("v2f16" if "f16" in base else "v2i16")  # bf16 first
    if base.startswith(("v_dot4", "v_dot8")):
        return "i32"
    if base.startswith("v_fma_mix"):
        return "f32"
    if base in ("v_mad_u64_u32", "v_mad_i64_i32"):
        return "i64" if slot == 2 else "i32"
    if base.startswith(("v_qsad", "v_mqsad")):
        return "i64" if dwords == 2 else "i32"
    if base in ("v_cvt_pk_u8_f32",):
        return "f32" if slot == 0 else "i32"
    if base.startswith(("v_cvt_pk_fp8", "v_cvt_pk_bf8", "v_cvt_sr_fp8", "v_cvt_sr_bf8")):
        return "f32" if (slot == 0 or (slot == 1 and "_pk_" in base)) else "i32"
    if base.startswith(("v_mad_u32_u16", "v_mad_i32_i16")):
        return "i32" if slot == 2 else "i16"
    if base in ("v_pack_b32_f16",):
        return "f16"
    if base.startswith("v_cvt_") or base.startswith("v_frexp_"):
        # v_cvt_<dst>_<src>: the last type names the source
        if types:
            return _norm(types[-1], dwords)
        return "i32"
    if base.startswith(("v_sat_pk_u8_i16",)):
        return "i16"
    if types:
        return _norm(types[-1], dwords)
    return "i32" if dwords == 1 else "i64"


_TRANS = ("v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_", "v_exp_legacy", "v_log_legacy",
          "v_rcp_iflag")


def sem_class(base: str, ops: list[dict]) -> str:
    # ISA guide ch. 7 (matrix core) for MFMA/SMFMAC; 6.x transcendental unit; f64 VALU ops
    # issue to the double-precision path (ch. 6, "VALU instruction issue").
    if base.startswith(("v_mfma", "v_smfmac")) and not is_scale_load(base):
        return "mfma"
    if base.startswith(_TRANS):
        return "trans"
    if "f64" in base:
        return "valu_dp"
    return "valu"


def implicit(base: str, mnemonic: str, fam: str, ops: list[dict]) -> tuple[list[str], list[str]]:
    """(uses, defs) beyond explicit operands (ISA guide ch. 6: every VALU op reads EXEC
    except V_READLANE/V_WRITELANE/V_READFIRSTLANE's lane select; VOPC V_CMPX writes EXEC;
    e32 forms name VCC implicitly)."""
    uses = ["exec"] if base not in ("v_readlane_b32", "v_writelane_b32", "v_nop") else []
    defs: list[str] = []
    for o in ops:
        if o.get("kind") == "special" and o.get("text") == "vcc":
            (defs if o.get("role") == "def" else uses).append("vcc")
    if base.startswith("v_cmpx_"):
        defs.append("exec")
    if base in ("v_div_fmas_f32", "v_div_fmas_f64"):
        uses.append("vcc")  # ISA guide: V_DIV_FMAS uses VCC as the scale condition
    return sorted(set(uses)), sorted(set(defs))

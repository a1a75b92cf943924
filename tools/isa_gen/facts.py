"""Facts the LLVM probe cannot see, from AMD Instinct MI300 ISA Reference Guide (CDNA3):
implicit register reads/writes (ch. 5 "Scalar ALU Operations": which SALU ops write SCC;
4.5/4.6 branch conditions on SCC/VCCZ/EXECZ; 5.x *_saveexec ops; 4.6 M0-relative moves and
s_set_gpr_idx_*; 4.x s_sendmsg reads M0), wait counters (4.4 "Data Dependency Resolution")
and semantic classes (``gcnforge.isa.semantics``)."""

from __future__ import annotations

import re

# SALU ops that do NOT write SCC (ISA guide 5.x tables list SCC effects per opcode).
_NO_SCC_SOP2 = {"s_mul_i32", "s_bfm_b32", "s_bfm_b64", "s_cselect_b32", "s_cselect_b64", "s_pack_ll_b32_b16",
                "s_pack_lh_b32_b16", "s_pack_hh_b32_b16", "s_mul_hi_u32", "s_mul_hi_i32", "s_cbranch_g_fork",
                "s_rfe_restore_b64"}
_SCC_SOP1 = re.compile(r"^s_(not_|wqm_|bcnt[01]_|quadmask_|abs_i32|and_saveexec|or_saveexec|xor_saveexec|"
                       r"andn2_saveexec|orn2_saveexec|nand_saveexec|nor_saveexec|xnor_saveexec|"
                       r"andn1_saveexec|orn1_saveexec|andn1_wrexec|andn2_wrexec)")
_USES_SCC = re.compile(r"^s_(addc_u32|subb_u32|cselect_|cmov_|cmovk_|cbranch_scc)")


def implicit(base: str, encoding: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(implicit_uses, implicit_defs) of a scalar/SMEM instruction."""
    uses: list[str] = []
    defs: list[str] = []
    if encoding == "SOP2" and base not in _NO_SCC_SOP2:
        defs.append("scc")
    if encoding == "SOP1" and _SCC_SOP1.match(base):
        defs.append("scc")
    if encoding == "SOPC" and base.startswith(("s_cmp_", "s_bitcmp")):
        defs.append("scc")
    if encoding == "SOPK" and (base.startswith("s_cmpk_") or base in ("s_addk_i32",)):
        defs.append("scc")
    if _USES_SCC.match(base):
        uses.append("scc")
    if "saveexec" in base or "wrexec" in base:
        uses.append("exec")
        defs.append("exec")
    if base in ("s_cbranch_vccz", "s_cbranch_vccnz"):
        uses.append("vcc")
    if base in ("s_cbranch_execz", "s_cbranch_execnz"):
        uses.append("exec")
    if base.startswith(("s_movrels", "s_movreld", "s_sendmsg")) or base == "s_ttracedata":
        uses.append("m0")
    if base in ("s_set_gpr_idx_on", "s_set_gpr_idx_idx", "s_set_gpr_idx_mode"):
        defs.append("m0")
        if base == "s_set_gpr_idx_mode":
            uses.append("m0")
    if base == "s_set_gpr_idx_off":
        defs.append("mode")
    return tuple(uses), tuple(defs)


def scalar_counter(base: str, encoding: str) -> tuple[str, ...]:
    if encoding == "SMEM" or base in ("s_sendmsg", "s_sendmsghalt"):
        return ("lgkmcnt",)
    return ()


def memory_counter(encoding: str) -> tuple[str, ...]:
    if encoding == "DS":
        return ("lgkmcnt",)
    if encoding == "FLAT":
        return ("vmcnt", "lgkmcnt")
    return ("vmcnt",)


BRANCHES = re.compile(r"^s_(branch|cbranch_\w+|call_b64)$")
NOTE_SCALAR = "implicit operands, counters, class: AMD Instinct MI300 ISA Reference Guide ch. 4-5"
NOTE_MEMORY = "counters and class: AMD Instinct MI300 ISA Reference Guide 4.4, ch. 9-11"


# Atomics: the value type of the data an atomic reads, returns and writes (AMD Instinct MI300
# ISA Reference Guide ch. 5 SMEM and ch. 9-11, the scalar / DS / FLAT / MUBUF atomic opcode
# tables). DS names carry the type (ds_min_i32, ds_cmpst_f64, ds_pk_add_bf16: two 16-bit
# values); SMEM, FLAT, GLOBAL and MUBUF names without a type are 32-bit (``_x2``: 64-bit),
# signed for smin/smax, raw bits for swap/cmpswap/and/or/xor, unsigned otherwise.
_ATOMIC_PREFIX = ("s_atomic_", "s_buffer_atomic_", "flat_atomic_", "global_atomic_", "buffer_atomic_", "ds_")
_DS_ATOMIC_OPS = ("add", "sub", "rsub", "inc", "dec", "min", "max", "and", "or", "xor", "mskor", "wrxchg",
                  "wrxchg2", "wrxchg2st64", "cmpst", "wrap", "condxchg32", "pk")
_TYPES = {"u32", "i32", "b32", "f32", "u64", "i64", "b64", "f64"}
_BITS_OPS = ("swap", "cmpswap", "and", "or", "xor")


def atomic_optype(base: str) -> str:
    """The data type of atomic ``base`` (u32 i32 b32 f32 u64 i64 b64 f64 v2f16 v2bf16), or ""
    for an instruction that is not a typed atomic."""
    prefix = next((p for p in _ATOMIC_PREFIX if base.startswith(p)), None)
    if prefix is None:
        return ""
    parts = base[len(prefix):].replace("_rtn", "").split("_")
    if parts[0] == "pk" and parts[-1] in ("f16", "bf16"):  # pk_add_f16 / pk_add_bf16
        return "v2" + parts[-1]
    if prefix == "ds_":
        return parts[-1] if parts[0] in _DS_ATOMIC_OPS and parts[-1] in _TYPES else ""
    wide = parts[-1] == "x2"
    if parts[-1] in _TYPES:
        return parts[-1]
    if parts[0] in ("smin", "smax"):
        return "i64" if wide else "i32"
    return ("b64" if wide else "b32") if parts[0] in _BITS_OPS else ("u64" if wide else "u32")


def typed_atomic_operands(base: str, operands: list) -> list:
    """``operands`` with the atomic data type on its data and returned-value operands."""
    t = atomic_optype(base)
    if not t:
        return operands
    data = ("vdst", "vdata", "data0", "data1", "sdata")
    return [o.replace(optype=t) if o.name in data else o for o in operands]

"""Decoded instructions in the form the emulator executes.

The emulator decodes a kernel once (``gcnforge.asm.disassemble``) and turns each
instruction into an ``XInst``: the mnemonic, its operands in LLVM's print order (registers
as file/index/width, constants as bit patterns for the operand's type), and its modifiers
as numbers. It reads the operands from the decoder's LLVM-syntax text, which
``gcnforge.asm`` guarantees to be exactly LLVM 22's: that text is the one stable,
documented spelling of every operand and modifier (AMDGPU "Assembler Syntax"), so the
emulator does not depend on how the decoder structures its operand records.

Scalar registers are numbered as the hardware's scalar operand field numbers them
(ISA guide "Scalar ALU operands"): s0-s101, flat_scratch 102-103, xnack_mask 104-105,
vcc 106-107, ttmp0-15 108-123, m0 124, null 125, exec 126-127.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

import numpy as np

from gcnforge.emulator.memory import PRIVATE_BASE, SHARED_BASE

SPECIAL_SREG = {
    "flat_scratch": (102, 2), "flat_scratch_lo": (102, 1), "flat_scratch_hi": (103, 1),
    "xnack_mask": (104, 2), "xnack_mask_lo": (104, 1), "xnack_mask_hi": (105, 1),
    "vcc": (106, 2), "vcc_lo": (106, 1), "vcc_hi": (107, 1),
    "m0": (124, 1), "null": (125, 1), "exec": (126, 2), "exec_lo": (126, 1), "exec_hi": (127, 1),
    "tba": (108, 2), "tma": (110, 2),
}
SGPR_FILE = 128
VCC, M0, NULL, EXEC = 106, 124, 125, 126

# 64-bit apertures and other read-only sources become constants.
SPECIAL_CONST = {"src_shared_base": SHARED_BASE, "src_private_base": PRIVATE_BASE,
                 "src_shared_limit": SHARED_BASE | 0xFFFFFFFF, "src_private_limit": PRIVATE_BASE | 0xFFFFFFFF,
                 "src_pops_exiting_wave_id": 0}


@dataclass(frozen=True)
class XOp:
    """One operand. ``kind``: 'v' VGPR, 'a' AGPR, 's' scalar (index as above), 'imm'
    (``value`` holds the bit pattern, 64-bit for 64-bit operands), 'scc'/'execz'/'vccz'
    (the condition bits as sources), 'off', 'lds_direct'."""

    kind: str
    index: int = 0
    dwords: int = 1
    value: int = 0
    neg: bool = False
    abs: bool = False
    sext: bool = False
    fconst: str | None = None  # an inline float constant as printed ("1.0", "0.15915494")

    @property
    def is_reg(self) -> bool:
        return self.kind in ("v", "a", "s")

    def __str__(self) -> str:
        if self.kind in ("v", "a", "s"):
            p = self.kind
            return f"{p}{self.index}" if self.dwords == 1 else f"{p}[{self.index}:{self.index + self.dwords - 1}]"
        return self.kind if self.kind != "imm" else hex(self.value)


@dataclass
class XInst:
    pc: int
    size: int
    text: str
    mnemonic: str
    base: str  # mnemonic without _e32/_e64/_dpp/_sdwa
    enc: str  # "e32", "e64", "dpp", "sdwa" or "" (from the mnemonic suffix)
    ops: tuple[XOp, ...]
    mods: dict = field(default_factory=dict)
    sem: str = ""
    target: int | None = None  # branch target pc
    handler: object = None  # bound by the executor
    cycles: int = 4
    # sanitizer bookkeeping, filled by the executor: indices into a flat register space
    reads: tuple = ()
    writes: tuple = ()

    def __str__(self) -> str:
        return self.text


_REG = re.compile(r"^([vsa])(\d+)$|^([vsa])\[(\d+):(\d+)\]$|^ttmp(\d+)$|^ttmp\[(\d+):(\d+)\]$")
_SUFFIXES = ("_e32", "_e64", "_dpp", "_sdwa")


def _f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _f64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _f16(x: float) -> int:
    return int(np.array(x, dtype=np.float16).view(np.uint16))


# ISA guide "Inline constants": 1/(2*pi) is an inline constant on gfx8+.
_INV2PI = {"f16": 0x3118, "f32": 0x3E22F983, "f64": 0x3FC45F306DC9C882}


def float_const(text: str, ftype: str) -> int:
    if text in ("0.15915494", "0.159154943091895"):
        return _INV2PI[ftype]
    x = float(text)
    return {"f16": _f16, "f32": _f32, "f64": _f64, "bf16": lambda v: _f32(v) >> 16}[ftype](x)


def operand_ftype(mnemonic: str, pos: int) -> str:
    """Float type an inline float constant takes at source position ``pos``: from the
    type tokens in the mnemonic (``v_cvt_f32_f16``: dst f32, src f16)."""
    toks = [t for t in mnemonic.split("_") if re.fullmatch(r"[fiub](16|32|64)|bf16|pk", t)]
    if "pk" in toks or mnemonic.startswith("v_pk_"):
        return "f16"
    if "f64" in toks or mnemonic.endswith("_b64") or "_b64_" in mnemonic or "x2" in mnemonic.split("_")[-1]:
        return "f64" if ("f64" in toks or "b64" in toks) else "f32"
    if mnemonic.startswith("v_cvt_") and len(toks) >= 2:
        t = toks[1]
    else:
        t = toks[0] if toks else "f32"
    if t in ("f16", "i16", "u16", "b16", "bf16"):
        return "f16" if t != "bf16" else "f16"
    return "f32"


def split_operands(rest: str) -> tuple[list[str], list[str]]:
    """Split LLVM's operand text into operands (', '-separated) and trailing modifiers
    (space-separated after the last operand)."""
    if not rest:
        return [], []
    ops = []
    depth = 0
    cur = ""
    i = 0
    while i < len(rest):
        c = rest[i]
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        if c == "," and depth == 0 and rest[i + 1 : i + 2] == " ":
            ops.append(cur)
            cur = ""
            i += 2
            continue
        cur += c
        i += 1
    ops.append(cur)
    # the last operand may be followed by modifiers: "v1 offset:16 glc"
    last = ops[-1]
    parts = _split_spaces(last)
    ops[-1] = parts[0]
    mods = parts[1:]
    return ops, mods


def _split_spaces(s: str) -> list[str]:
    out, cur, depth = [], "", 0
    for c in s:
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        if c == " " and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += c
    if cur:
        out.append(cur)
    return out or [""]


def parse_operand(tok: str, mnemonic: str, pos: int, wide: int = 1) -> XOp:
    neg = absv = sext = False
    t = tok
    if t.startswith("sext(") and t.endswith(")"):
        sext, t = True, t[5:-1]
    if t.startswith("neg(") and t.endswith(")"):
        neg, t = True, t[4:-1]
    if t.startswith("-") and len(t) > 1 and (t[1] in "|vsa(" or t[1:].startswith("ttmp")):
        neg, t = True, t[1:]
    if t.startswith("|") and t.endswith("|"):
        absv, t = True, t[1:-1]
    if t.startswith("abs(") and t.endswith(")"):
        absv, t = True, t[4:-1]
    if t.startswith("-lit(") and t.endswith(")"):
        neg, t = True, t[1:]
    if t.startswith("lit(") and t.endswith(")"):  # a literal forced where an inline constant could be:
        t = t[4:-1].strip()  # the value is the literal dword, as for any printed literal
    m = _REG.match(t)
    if m:
        if m.group(1):
            return XOp(m.group(1), int(m.group(2)), 1, neg=neg, abs=absv, sext=sext)
        if m.group(3):
            lo, hi = int(m.group(4)), int(m.group(5))
            return XOp(m.group(3), lo, hi - lo + 1, neg=neg, abs=absv, sext=sext)
        if m.group(6):
            return XOp("s", 108 + int(m.group(6)), 1, neg=neg, abs=absv)
        lo, hi = int(m.group(7)), int(m.group(8))
        return XOp("s", 108 + lo, hi - lo + 1, neg=neg, abs=absv)
    if t in SPECIAL_SREG:
        i, n = SPECIAL_SREG[t]
        return XOp("s", i, n, neg=neg, abs=absv, sext=sext)
    if t in SPECIAL_CONST:
        return XOp("imm", value=SPECIAL_CONST[t], dwords=2)
    if t in ("scc", "src_scc"):
        return XOp("scc", neg=neg, abs=absv)
    if t in ("execz", "src_execz"):
        return XOp("execz")
    if t in ("vccz", "src_vccz"):
        return XOp("vccz")
    if t in ("off",):
        return XOp("off")
    if t.startswith("gpr_idx(") and t.endswith(")"):  # s_set_gpr_idx_on mode (ISA guide: SRC0=1 SRC1=2 SRC2=4 DST=8)
        bits = {"SRC0": 1, "SRC1": 2, "SRC2": 4, "DST": 8}
        return XOp("imm", value=sum(bits[m.strip()] for m in t[8:-1].split(",") if m.strip()))
    if t in ("src_lds_direct", "lds_direct"):
        return XOp("lds_direct")
    # constants
    try:
        if re.fullmatch(r"-?\d+\.\d+(e[-+]?\d+)?", t):
            ft = "f64" if wide == 2 else operand_ftype(mnemonic, pos)
            return XOp("imm", value=float_const(t, ft), dwords=wide, neg=neg, abs=absv, fconst=t)
        v = int(t, 0)
    except ValueError:
        raise ValueError(f"cannot parse operand '{tok}' of '{mnemonic}'") from None
    if wide == 2:
        if v < 0:
            v &= (1 << 64) - 1
        elif -16 <= v <= 64 or tok.startswith("-"):
            pass
        elif ("f64" in mnemonic) and v <= 0xFFFFFFFF and not (-16 <= v <= 64):
            v <<= 32  # a 32-bit literal of an f64 operand is the high dword (ISA guide 4.x)
        return XOp("imm", value=v & ((1 << 64) - 1), dwords=2, neg=neg, abs=absv)
    return XOp("imm", value=v & 0xFFFFFFFF, dwords=1, neg=neg, abs=absv)


_NUM = r"(-?(?:0x[0-9a-fA-F]+|\d+))"


def parse_modifiers(toks: list[str]) -> dict:
    mods: dict = {}
    for t in toks:
        if ":" in t:
            k, v = t.split(":", 1)
            if v.startswith("["):
                mods[k] = [int(x, 0) for x in v[1:-1].split(",")]
            elif k in ("dst_sel", "src0_sel", "src1_sel", "dst_unused"):
                mods[k] = v
            elif k in ("row_shl", "row_shr", "row_ror", "wave_shl", "wave_shr", "wave_rol", "wave_ror",
                       "row_bcast"):
                mods["dpp"] = (k, int(v, 0))
            else:
                try:
                    mods[k] = int(v, 0)
                except ValueError:
                    mods[k] = v  # e.g. offset:swizzle(QUAD_PERM,0,1,2,3), decoded by its user
        elif t in ("row_mirror", "row_half_mirror", "wave_shl:1", "wave_shr:1", "wave_rol:1", "wave_ror:1"):
            mods["dpp"] = (t, 0)
        else:
            mods[t] = 1  # glc, slc, sc0, sc1, nt, offen, idxen, lds, gds, bound_ctrl:0 handled above
    if "quad_perm" in mods:
        mods["dpp"] = ("quad_perm", mods.pop("quad_perm"))
    return mods


def base_of(mnemonic: str) -> tuple[str, str]:
    for s in _SUFFIXES:
        if mnemonic.endswith(s):
            return mnemonic[: -len(s)], s[1:]
    return mnemonic, ""


def parse_text(text: str, pc: int, size: int, wide_ops: tuple[int, ...] = ()) -> XInst:
    text = " ".join(text.split())
    mnem, _, rest = text.partition(" ")
    base, enc = base_of(mnem)
    if mnem == "s_waitcnt" or mnem.startswith("s_waitcnt_") and "cnt(" in rest or rest.startswith("vmcnt") \
            or rest.startswith("lgkmcnt") or rest.startswith("expcnt"):
        mods = {}
        for m in re.finditer(r"(vmcnt|expcnt|lgkmcnt)\((\d+)\)", rest):
            mods[m.group(1)] = int(m.group(2))
        if mnem == "s_waitcnt" and not mods and rest:
            v = int(rest, 0)  # a raw simm16 (gfx9 packing, ISA guide s_waitcnt)
            mods = {"vmcnt": (v & 0xF) | ((v >> 10) & 0x30), "expcnt": (v >> 4) & 7, "lgkmcnt": (v >> 8) & 0xF}
        return XInst(pc, size, text, mnem, base, enc, (), mods)
    if rest.startswith("hwreg(") or rest.startswith("sendmsg(") or ", hwreg(" in rest:
        ops, mods = [], {}
        for part in split_operands(rest)[0]:
            if part.startswith("hwreg("):
                args = [a.strip() for a in part[6:-1].split(",")]
                mods["hwreg"] = args
            elif part.startswith("sendmsg("):
                mods["sendmsg"] = part
            else:
                ops.append(parse_operand(part, mnem, len(ops)))
        return XInst(pc, size, text, mnem, base, enc, tuple(ops), mods)
    raw_ops, raw_mods = split_operands(rest)
    if raw_ops == [""]:
        raw_ops = []
    ops = []
    widths = wide_ops or _guess_wide(mnem, len(raw_ops))
    for i, tok in enumerate(raw_ops):
        ops.append(parse_operand(tok, mnem, i, 2 if i in widths else 1))
    mods = parse_modifiers(raw_mods)
    return XInst(pc, size, text, mnem, base, enc, tuple(ops), mods)


def _guess_wide(mnem: str, nops: int) -> tuple[int, ...]:
    """Operand positions that are 64-bit, so constants there are 64-bit patterns.
    Registers carry their own width; this only matters for inline constants/literals."""
    base, _ = base_of(mnem)
    if base.startswith("s_") and base.endswith("_b64") or base.startswith("s_") and base.endswith("_u64") \
            or base.startswith("s_") and base.endswith("_i64"):
        if base.startswith(("s_lshl_b64", "s_lshr_b64", "s_ashr_i64", "s_bfe_u64", "s_bfe_i64", "s_bfm_b64")):
            return (1,) if not base.startswith("s_bfm") else (0,)
        if base.startswith("s_cmp"):
            return (0, 1)
        if base.startswith(("s_bcnt", "s_ff", "s_flbit")):
            return (1,)
        return tuple(range(nops))
    if base.startswith("s_cselect_b64"):
        return (0, 1, 2)
    if base.startswith("v_") and "f64" in base:
        if base.startswith("v_cvt_f64"):
            return (0,)
        if base.startswith("v_cvt_") or base.startswith("v_frexp_exp_i32_f64"):
            return (1,)
        if base.startswith(("v_cmp", "v_cmpx", "v_cmp_class_f64", "v_cmpx_class_f64")):
            return (1,) if base.startswith(("v_cmp_class", "v_cmpx_class")) else (1, 2)
        if base in ("v_ldexp_f64", "v_trig_preop_f64"):
            return (0, 1)
        if base.startswith("v_div_scale_f64"):
            return (0, 2, 3, 4)
        return tuple(range(nops))
    if base.startswith("v_") and ("_u64" in base or "_i64" in base or "_b64" in base):
        if base in ("v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64"):
            return (0, 2)
        if base == "v_lshl_add_u64":
            return (0, 1, 3)
        if base.startswith(("v_mad_u64_u32", "v_mad_i64_i32")):
            return (0, 4)
        if base.startswith(("v_cmp", "v_cmpx")):
            return (1, 2)
        if base.startswith("v_readlane") or base.startswith("v_mov_b64"):
            return (0, 1)
        return tuple(range(nops))
    if base.startswith("v_mfma_f64"):
        return (0, 1, 2, 3)
    return ()

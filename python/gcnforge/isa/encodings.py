"""gfx942 microcode formats as ``Encoding`` records.

Layouts follow AMD's "AMD Instinct MI300 Instruction Set Architecture Reference Guide"
(CDNA3), chapter 12 "Microcode Formats", and were checked field by field against
``llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding`` (LLVM 22): see
``tests/isa/test_encodings.py``, which assembles one probe per field and compares bits.

Conventions: bit numbers count from bit 0 of the first dword; fields of the second dword
have ``lo >= 32``.  ``Field.scale`` says the field holds ``register_index // scale`` (SMEM
``sbase`` holds an SGPR pair index /2, MUBUF ``srsrc`` a quad index /4).

Decoding order matters where prefixes nest (ISA guide 12.1): the 9-bit SOP1/SOPC/SOPP
prefixes sit inside SOPK's 4-bit prefix which sits inside SOP2's 2-bit one, so
``DECODE_ORDER`` lists the most specific first.  FLAT, GLOBAL and SCRATCH share one format
told apart by ``seg`` (bits 15:14), so they are three records here; VOP3P-MAI is VOP3P
with opcode bit 6 set.  DPP and SDWA are VOP1/VOP2/VOPC with src0 = 0xFA / 0xF9 and a
second dword; they are given as combined 64-bit records ``VOP1_DPP`` ... ``VOPC_SDWA``.
"""

from __future__ import annotations

from gcnforge.isa.schema import Encoding, Field


def _enc(name: str, size: int, mask: int, value: int, *fields: tuple) -> Encoding:
    fs = {}
    for f in fields:
        fs[f[0]] = Field(*f)
    return Encoding(name, size, mask, value, fs)


# -- scalar ALU (ISA guide 12.1) ------------------------------------------------------
SOP2 = _enc("SOP2", 4, 0xC000_0000, 0x8000_0000,
            ("ssrc0", 0, 8), ("ssrc1", 8, 8), ("sdst", 16, 7), ("op", 23, 7))
SOPK = _enc("SOPK", 4, 0xF000_0000, 0xB000_0000,
            ("simm16", 0, 16), ("sdst", 16, 7), ("op", 23, 5))
SOP1 = _enc("SOP1", 4, 0xFF80_0000, 0xBE80_0000,
            ("ssrc0", 0, 8), ("op", 8, 8), ("sdst", 16, 7))
SOPC = _enc("SOPC", 4, 0xFF80_0000, 0xBF00_0000,
            ("ssrc0", 0, 8), ("ssrc1", 8, 8), ("op", 16, 7))
SOPP = _enc("SOPP", 4, 0xFF80_0000, 0xBF80_0000,
            ("simm16", 0, 16), ("op", 16, 7))

# -- scalar memory (ISA guide 12.2) ----------------------------------------------------
SMEM = _enc("SMEM", 8, 0xFC00_0000, 0xC000_0000,
            ("sbase", 0, 6, 2), ("sdata", 6, 7), ("soe", 14, 1), ("nv", 15, 1), ("glc", 16, 1),
            ("imm", 17, 1), ("op", 18, 8), ("offset", 32, 21), ("soffset", 57, 7))

# -- vector ALU (ISA guide 12.3-12.5) --------------------------------------------------
VOP2 = _enc("VOP2", 4, 0x8000_0000, 0x0000_0000,
            ("src0", 0, 9), ("vsrc1", 9, 8), ("vdst", 17, 8), ("op", 25, 6))
VOP1 = _enc("VOP1", 4, 0xFE00_0000, 0x7E00_0000,
            ("src0", 0, 9), ("op", 9, 8), ("vdst", 17, 8))
VOPC = _enc("VOPC", 4, 0xFE00_0000, 0x7C00_0000,
            ("src0", 0, 9), ("vsrc1", 9, 8), ("op", 17, 8))
_VOP3_HI = (("src0", 32, 9), ("src1", 41, 9), ("src2", 50, 9), ("omod", 59, 2), ("neg", 61, 3))
VOP3A = _enc("VOP3A", 8, 0xFC00_0000, 0xD000_0000,
             ("vdst", 0, 8), ("abs", 8, 3), ("op_sel", 11, 4), ("clamp", 15, 1), ("op", 16, 10), *_VOP3_HI)
VOP3B = _enc("VOP3B", 8, 0xFC00_0000, 0xD000_0000,
             ("vdst", 0, 8), ("sdst", 8, 7), ("clamp", 15, 1), ("op", 16, 10), *_VOP3_HI)
VOP3P = _enc("VOP3P", 8, 0xFFC0_0000, 0xD380_0000,
             ("vdst", 0, 8), ("neg_hi", 8, 3), ("op_sel", 11, 3), ("op_sel_hi2", 14, 1), ("clamp", 15, 1),
             ("op", 16, 7), ("src0", 32, 9), ("src1", 41, 9), ("src2", 50, 9), ("op_sel_hi", 59, 2),
             ("neg", 61, 3))
VOP3P_MAI = _enc("VOP3P_MAI", 8, 0xFFC0_0000, 0xD3C0_0000,
                 ("vdst", 0, 8), ("cbsz", 8, 3), ("abid", 11, 4), ("acc_cd", 15, 1), ("op", 16, 7),
                 ("src0", 32, 9), ("src1", 41, 9), ("src2", 50, 9), ("acc", 59, 2), ("blgp", 61, 3))

# DPP / SDWA second dword (ISA guide 12.3.3 / 12.3.4), offsets relative to that dword.
_DPP_HI = (("src0", 0, 8), ("dpp_ctrl", 8, 9), ("fi", 18, 1), ("bound_ctrl", 19, 1), ("src0_neg", 20, 1),
           ("src0_abs", 21, 1), ("src1_neg", 22, 1), ("src1_abs", 23, 1), ("bank_mask", 24, 4),
           ("row_mask", 28, 4))
_SDWA_HI = (("src0", 0, 8), ("dst_sel", 8, 3), ("dst_unused", 11, 2), ("clamp", 13, 1), ("omod", 14, 2),
            ("src0_sel", 16, 3), ("src0_sext", 19, 1), ("src0_neg", 20, 1), ("src0_abs", 21, 1),
            ("s0", 23, 1), ("src1_sel", 24, 3), ("src1_sext", 27, 1), ("src1_neg", 28, 1),
            ("src1_abs", 29, 1), ("s1", 31, 1))
# VOPC SDWA replaces dst_sel/dst_unused/clamp/omod with sdst[14:8] and sd (bit 15).
_SDWA_VOPC_HI = tuple(f for f in _SDWA_HI if f[0] not in ("dst_sel", "dst_unused", "clamp", "omod")) + (
    ("sdst", 8, 7), ("sd", 15, 1))


def _extra(base: Encoding, suffix: str, src0_code: int, hi: tuple) -> Encoding:
    fs = {n: f for n, f in base.fields.items() if n != "src0"}
    fs["src0_sel_code"] = Field("src0_sel_code", 0, 9)  # holds 0xFA (DPP) or 0xF9 (SDWA)
    for name, lo, width in hi:
        fs[name] = Field(name, 32 + lo, width)
    mask = base.match_mask | 0x1FF
    return Encoding(f"{base.name}_{suffix}", 8, mask, base.match_value | src0_code, fs)


DPP_SRC0, SDWA_SRC0 = 0xFA, 0xF9
VOP1_DPP, VOP2_DPP, VOPC_DPP = (_extra(e, "DPP", DPP_SRC0, _DPP_HI) for e in (VOP1, VOP2, VOPC))
VOP1_SDWA, VOP2_SDWA = (_extra(e, "SDWA", SDWA_SRC0, _SDWA_HI) for e in (VOP1, VOP2))
VOPC_SDWA = _extra(VOPC, "SDWA", SDWA_SRC0, _SDWA_VOPC_HI)

# -- LDS/GDS (ISA guide 12.9) ----------------------------------------------------------
DS = _enc("DS", 8, 0xFC00_0000, 0xD800_0000,
          ("offset0", 0, 8), ("offset1", 8, 8), ("gds", 16, 1), ("op", 17, 8), ("acc", 25, 1),
          ("addr", 32, 8), ("data0", 40, 8), ("data1", 48, 8), ("vdst", 56, 8))

# -- FLAT / GLOBAL / SCRATCH (ISA guide 12.8): one format, segment in bits 15:14 -------
# gfx940 cache-policy bits: sc0 (16, was glc), nt (17, was slc), sc1 (25).  Bit 13 is
# ``lds`` for flat/global and ``sve`` (vaddr enabled) for scratch.
_FLAT_FIELDS = (("offset", 0, 13), ("lds", 13, 1), ("seg", 14, 2), ("sc0", 16, 1), ("nt", 17, 1),
                ("op", 18, 7), ("sc1", 25, 1), ("addr", 32, 8), ("data", 40, 8), ("saddr", 48, 7),
                ("acc", 55, 1), ("vdst", 56, 8))
FLAT = _enc("FLAT", 8, 0xFC00_C000, 0xDC00_0000, *_FLAT_FIELDS)
SCRATCH = _enc("SCRATCH", 8, 0xFC00_C000, 0xDC00_4000, *_FLAT_FIELDS)
GLOBAL = _enc("GLOBAL", 8, 0xFC00_C000, 0xDC00_8000, *_FLAT_FIELDS)

# -- buffer (ISA guide 12.6 / 12.7) ----------------------------------------------------
_BUF_HI = (("vaddr", 32, 8), ("vdata", 40, 8), ("srsrc", 48, 5, 4), ("acc", 55, 1), ("soffset", 56, 8))
MUBUF = _enc("MUBUF", 8, 0xFC00_0000, 0xE000_0000,
             ("offset", 0, 12), ("offen", 12, 1), ("idxen", 13, 1), ("sc0", 14, 1), ("sc1", 15, 1),
             ("lds", 16, 1), ("nt", 17, 1), ("op", 18, 7), *_BUF_HI)
MTBUF = _enc("MTBUF", 8, 0xFC00_0000, 0xE800_0000,
             ("offset", 0, 12), ("offen", 12, 1), ("idxen", 13, 1), ("sc0", 14, 1), ("op", 15, 4),
             ("dfmt", 19, 4), ("nfmt", 23, 3), ("sc1", 53, 1), ("nt", 54, 1), *_BUF_HI)

ENCODINGS: dict[str, Encoding] = {
    e.name: e
    for e in (SOP2, SOPK, SOP1, SOPC, SOPP, SMEM, VOP2, VOP1, VOPC, VOP3A, VOP3B, VOP3P, VOP3P_MAI,
              VOP1_DPP, VOP2_DPP, VOPC_DPP, VOP1_SDWA, VOP2_SDWA, VOPC_SDWA, DS, FLAT, SCRATCH, GLOBAL,
              MUBUF, MTBUF)
}

# Formats that a decoder tells apart by fixed bits alone, most specific prefix first.
# VOP3A/VOP3B (and VOP1/VOP2/VOPC vs their DPP/SDWA forms) share prefixes and are told
# apart by opcode / src0 in the table; the decoder tries the listed ones in order.
DECODE_ORDER: tuple[str, ...] = (
    "SOP1", "SOPC", "SOPP", "SOPK", "SOP2",
    "VOP3P_MAI", "VOP3P", "VOP3A", "VOP3B",
    "SMEM", "DS", "FLAT", "SCRATCH", "GLOBAL", "MUBUF", "MTBUF",
    "VOP1_DPP", "VOP1_SDWA", "VOP1", "VOPC_DPP", "VOPC_SDWA", "VOPC", "VOP2_DPP", "VOP2_SDWA", "VOP2",
)


def encodings() -> dict[str, Encoding]:
    return ENCODINGS

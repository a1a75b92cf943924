"""Hand-written gfx950 forms for the gfx950 corpus test (``tests/asm/test_gfx950_corpus.py``):
the operand shapes and modifiers of CDNA4's new instructions that the table-driven corpus
generators do not produce (MFMA/SMFMAC register files and modifiers, direct-to-LDS and
transposing loads, wide fp6/fp4 conversions, bf16 constants). Every line is checked live
against ``llvm-mc -mcpu=gfx950``; none is an expected output.
``bitop3:N`` above 255 is refused (LLVM 22 silently keeps the low 8 bits)."""

from __future__ import annotations

FORMS: tuple[str, ...] = (
    'buffer_atomic_pk_add_bf16 v1, off, s[0:3], 0',
    'buffer_atomic_pk_add_bf16 v1, v2, s[4:7], s3 offen offset:4 sc0',
    'buffer_load_dword off, s[0:3], 0 lds',
    'buffer_load_dwordx3 off, s[0:3], 0 lds',
    'buffer_load_dwordx4 off, s[0:3], 0 lds',
    'buffer_load_dwordx4 v1, s[4:7], s2 offen offset:16 lds',
    'ds_read_b64_tr_b16 a[0:1], v2',
    'ds_read_b64_tr_b16 v[0:1], v2',
    'ds_read_b64_tr_b4 v[0:1], v2',
    'ds_read_b64_tr_b8 v[0:1], v2 offset:64',
    'ds_read_b96_tr_b6 v[0:2], v1 offset:8',
    'global_load_lds_dwordx3 v[0:1], off',
    'global_load_lds_dwordx4 v2, s[4:5] offset:-16',
    'global_load_lds_dwordx4 v[2:3], off sc0 nt',
    'v_ashr_pk_i8_i32 v0, v1, v2, v3',
    'v_ashr_pk_u8_i32 v0, v1, v2, v3 op_sel:[0,0,0,1]',
    'v_bitop3_b32 v0, v1, v2, v3',
    'v_cvt_f32_bf16 v0, v1',
    'v_cvt_f32_bf16_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf',
    'v_cvt_f32_bf16_e64 v0, -v1 clamp mul:2',
    'v_cvt_f32_bf16_sdwa v0, v1 src0_sel:WORD_1',
    'v_cvt_pk_bf16_f32 v0, -v1, |v2| clamp',
    'v_cvt_pk_f16_f32 v0, v1, v2',
    'v_cvt_scalef32_2xpk16_bf6_f32 v[0:5], v[2:17], v[18:33], 1.0',
    'v_cvt_scalef32_2xpk16_fp6_f32 v[0:5], v[2:17], v[18:33], v34',
    'v_cvt_scalef32_f32_fp8 v0, v1, v2 op_sel:[1,1,0]',
    'v_cvt_scalef32_pk32_bf16_bf6 v[0:15], v[16:21], v22',
    'v_cvt_scalef32_pk32_f32_fp6 v[0:31], v[32:37], v38',
    'v_cvt_scalef32_pk32_fp6_f16 v[0:5], v[6:21], v22',
    'v_cvt_scalef32_pk_f32_fp4 v[0:1], v1, v2 op_sel:[1,1,0]',
    'v_cvt_scalef32_pk_f32_fp8 v[0:1], v1, v2',
    'v_cvt_scalef32_pk_fp4_f16 v0, v1, v2 op_sel:[0,0,1,1]',
    'v_cvt_scalef32_pk_fp4_f32 v0, v1, v2, v3 op_sel:[0,0,1,1]',
    'v_cvt_scalef32_pk_fp8_f32 v0, v1, v2, v3',
    'v_cvt_scalef32_pk_fp8_f32 v0, v1, v2, v3 op_sel:[0,0,0,1]',
    'v_cvt_scalef32_sr_fp8_f32 v0, v1, v2, v3 op_sel:[0,0,1,1]',
    'v_cvt_scalef32_sr_pk32_bf6_bf16 v[0:5], v[6:21], v22, v23',
    'v_cvt_scalef32_sr_pk32_fp6_f32 v[0:5], v[6:37], v38, v39',
    'v_cvt_scalef32_sr_pk_fp4_f32 v0, v[2:3], v4, v5',
    'v_cvt_sr_bf16_f32 v0, v1, s2',
    'v_cvt_sr_f16_f32 v0, v1, v2 op_sel:[0,0,1]',
    'v_dot2_f32_bf16 v0, 1.0, v2, v3',
    'v_dot2_f32_bf16 v0, v1, v2, v3',
    'v_dot2c_f32_bf16 v0, 0.1, v2',
    'v_dot2c_f32_bf16 v0, 0.5, v2',
    'v_dot2c_f32_bf16 v0, 1.0, v2',
    'v_dot2c_f32_bf16 v0, v1, v2',
    'v_dot2c_f32_bf16_dpp v0, v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf',
    'v_dot2c_f32_bf16_e64 v0, v1, v2',
    'v_maximum3_f32 v0, -v1, |v2|, 1.0',
    'v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[4:11], v[12:19], a[4:7]',
    'v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23]',
    'v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23] cbsz:1 blgp:1',
    'v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[8:11], 1.0',
    'v_mfma_f32_16x16x32_f16 a[0:3], v[4:7], v[8:11], a[12:15] cbsz:1 abid:1 blgp:2',
    'v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[12:15]',
    'v_mfma_f32_32x32x16_bf16 a[0:15], v[16:19], v[20:23], a[0:15] blgp:7',
    'v_mfma_f32_32x32x16_f16 v[0:15], v[16:19], v[20:23], v[0:15]',
    'v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[32:47]',
    'v_mfma_i32_16x16x64_i8 v[0:3], v[4:7], v[8:11], v[12:15]',
    'v_mfma_i32_32x32x32_i8 v[0:15], v[16:19], v[20:23], v[0:15]',
    'v_minimum3_f32 v0, v1, v2, v3',
    'v_permlane16_swap_b32 v1, v2',
    'v_permlane32_swap_b32 v1, v2',
    'v_pk_maximum3_f16 v0, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[0,1,1]',
    'v_pk_minimum3_f16 v0, v1, v2, v3',
    'v_prng_b32 v1, s2',
    'v_prng_b32 v1, v2',
    'v_smfmac_f32_16x16x128_fp8_fp8 v[0:3], v[4:7], v[8:15], v16',
    'v_smfmac_f32_16x16x64_f16 v[0:3], v[4:7], v[8:15], v16',
    'v_smfmac_f32_32x32x32_bf16 v[0:15], v[16:19], v[20:27], v28 cbsz:1 abid:1',
    'v_smfmac_f32_32x32x64_bf8_fp8 v[0:15], v[16:19], v[20:27], v28',
    'v_smfmac_i32_16x16x128_i8 a[0:3], v[4:7], v[8:15], v16',
)



def _f8f6f4() -> list[str]:
    """Every cbsz x blgp format pair of both f8f6f4 MFMAs, with the register sizes LLVM wants
    (fp8/bf8 and 5..7: 8 dwords, fp6/bf6: 6, fp4: 4), plus AGPR forms and a wrong size."""
    w = {2: 6, 3: 6, 4: 4}
    out = []
    for m, d, c, b0 in (("v_mfma_f32_16x16x128_f8f6f4", "[0:3]", "[20:23]", 12),
                        ("v_mfma_f32_32x32x64_f8f6f4", "[0:15]", "[32:47]", 16)):
        for cb in range(8):
            for bl in range(8):
                a, b = w.get(cb, 8), w.get(bl, 8)
                mods = (f" cbsz:{cb}" if cb else "") + (f" blgp:{bl}" if bl else "")
                out.append(f"{m} v{d}, v[4:{3 + a}], v[{b0}:{b0 + b - 1}], v{c}{mods}")
        out.append(f"{m} a{d}, a[4:11], v[{b0}:{b0 + 7}], a{c}")
        out.append(f"{m} v{d}, v[4:7], v[{b0}:{b0 + 7}], v{c} cbsz:2")  # 4 dwords for fp6: refused
    return out


def _bitop3() -> list[str]:
    out = [f"v_bitop3_b32 v0, v1, v2, v3 bitop3:{b}" for b in range(256)]
    out += [f"v_bitop3_b16 v0, s1, 2, v3 bitop3:{hex(b)} op_sel:[1,0,1,0]" for b in range(0, 256, 7)]
    return out + ["v_bitop3_b32 v0, v1, 0x1234, v3 bitop3:0x12", "v_bitop3_b32 v0, -v1, v2, v3",
                  "v_bitop3_b32 v0, v1, v2, v3 clamp", "v_bitop3_b16 v0, v1, v2, v3 op_sel:[0,0,0,1]"]


_SWAPS = (
    "v_permlane16_swap_b32_e64 v1, v2 bound_ctrl:0", "v_permlane16_swap_b32_e64 v1, v2 bound_ctrl:1",
    "v_permlane16_swap_b32_e64 v1, v2 fi:1", "v_permlane16_swap_b32_e64 v1, v2 fi:0",
    "v_permlane32_swap_b32_e64 v1, v2 bound_ctrl:1 fi:1", "v_permlane32_swap_b32_e64 v1, v2 bound_ctrl:1 fi:0",
    "v_permlane32_swap_b32_e64 v255, v0", "v_permlane32_swap_b32_e64 v1, v2 fi:1 bound_ctrl:1",
    "v_permlane32_swap_b32_e64 v1, v2 op_sel:[1,0]", "v_permlane32_swap_b32_e64 v1, s2",
)

_LD_SCALE = (
    "v_mfma_ld_scale_b32 v24, v25", "v_mfma_ld_scale_b32 s1, v2", "v_mfma_ld_scale_b32 1, -4",
    "v_mfma_ld_scale_b32 v1, 0x1234", "v_mfma_ld_scale_b32 v1, v2 op_sel:[1,1]",
    "v_mfma_ld_scale_b32 v1, v2 op_sel_hi:[0,1]", "v_mfma_ld_scale_b32 v1, v2 op_sel_hi:[0,0]",
    "v_mfma_ld_scale_b32 a1, v2", "v_mfma_ld_scale_b32 v1, 1.0", "v_mfma_ld_scale_b32 v1, -v2",
    "v_mfma_ld_scale_b32 v1, v2 op_sel:[0,1] op_sel_hi:[1,1]", "v_mfma_ld_scale_b32 v1, v2 clamp",
    "v_mfma_ld_scale_b32 vcc_lo, m0",
)

FORMS += tuple(_f8f6f4()) + tuple(_bitop3()) + _SWAPS + _LD_SCALE

_SCALED = tuple(ln.strip() for ln in """
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25 op_sel:[0,1,0]
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25 op_sel:[0,0,1]
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25 op_sel_hi:[1,0,0]
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25 op_sel_hi:[0,0,1]
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25 op_sel:[1,1] op_sel_hi:[1,1]
v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[4:9], v[12:15], a[20:23], v24, v25 cbsz:2 blgp:4
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], s24, v25
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, 1
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], 1.0, v24, v25
v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[32:47], v48, v49 cbsz:1 blgp:3
v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[32:47], v48, v49 cbsz:1 blgp:2
v_mfma_scale_f32_32x32x64_f8f6f4 a[0:15], a[16:23], a[24:31], a[32:47], v48, v49
v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:19], v[24:27], v[32:47], v255, v0 op_sel:[1,0,0] op_sel_hi:[0,1,0] cbsz:4 blgp:4
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25 abid:1
v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24
""".strip().splitlines())

FORMS += _SCALED

# Byte sequences around the block-scaled pair, for the disassembler: a pair, an ld_scale
# followed by an MFMA without the abid bit or by another MFMA (two instructions), ignored
# ld_scale bits 13-14, AGPR operands.
PAIR_BYTES: tuple[str, ...] = (
    "00 00 ac d3 18 33 02 00 00 08 ad d3 04 19 52 04",
    "00 00 ac d3 18 33 02 00 00 00 ad d3 04 19 52 04",
    "00 40 ac d3 18 33 02 18 00 08 ad d3 04 19 52 04",
    "00 00 ac d3 18 33 02 00 00 08 b5 d3 04 11 32 24",
    "00 60 ac d3 18 33 02 00 00 08 ad d3 04 19 52 04",
    "00 00 ac d3 18 33 02 00 00 88 ae d3 10 31 82 1c",
    "00 08 ad d3 04 19 52 04",
)

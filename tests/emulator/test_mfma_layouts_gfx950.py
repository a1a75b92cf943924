"""gfx950 MFMA layouts (isa/data/mfma_layouts_gfx950.json) against the lane/register placement AMD
publishes in worked examples. AMD's Matrix Instruction Calculator has no CDNA4 yet
(ROCm/amd_matrix_instruction_calculator#7), so the oracle is AMD's ROCm blog "Matrix Core
Programming on AMD CDNA3 and CDNA4 architecture" (2025-10-01), sections 5.4 and 5.5: the HIP
kernels there say which A/B/C elements each lane loads for v_mfma_scale_f32_32x32x64_f8f6f4
with fp8 and fp4 operands. The index expressions below are transcribed from those kernels."""

import json

import pytest

from gcnforge.emulator import ops_mfma
from gcnforge.isa import mfma_layout

DATA = json.loads(mfma_layout.DATA_GFX950.read_text())["instructions"]


def _slots(lay):
    """{(lane, first bit within the lane's operand dwords): (row, col)}"""
    return {(lane, 32 * lay["cols"][c][0] + lay["cols"][c][1]): (i, j) for lane, c, i, j, _b in lay["cells"]}


def test_32x32x64_fp8_matches_amd_example():
    f = DATA["v_mfma_f32_32x32x64_f8f6f4"]["formats"]["FP8"]
    a, b = _slots(f["A"]), _slots(f["B"])
    for t in range(64):
        for i in range(2):
            for j in range(16):  # a_reg[i*16+j] = A[t%32][(t/32)*16 + i*32 + j]; b likewise, transposed
                assert a[(t, 8 * (i * 16 + j))] == (t % 32, (t // 32) * 16 + i * 32 + j)
                assert b[(t, 8 * (i * 16 + j))] == ((t // 32) * 16 + 32 * i + j, t % 32)
    assert f["gprs"] == 8 and len(a) == len(b) == 32 * 64


def test_32x32x64_fp4_matches_amd_example():
    f = DATA["v_mfma_f32_32x32x64_f8f6f4"]["formats"]["FP4"]
    a, b = _slots(f["A"]), _slots(f["B"])
    for t in range(64):
        for i in range(16):  # byte i: low nibble element 2i, high nibble 2i+1 of the lane's K run
            k0 = 2 * ((t // 32) * 16 + i)  # a_reg[i] = A_fp4x2[(t%32)*32 + (t/32)*16 + i]
            assert a[(t, 8 * i)] == (t % 32, k0) and a[(t, 8 * i + 4)] == (t % 32, k0 + 1)
            kb = 32 * (t // 32) + 2 * i  # b_reg[i] = (B[kb][t%32], B[kb+1][t%32])
            assert b[(t, 8 * i)] == (kb, t % 32) and b[(t, 8 * i + 4)] == (kb + 1, t % 32)
    assert f["gprs"] == 4


def test_32x32_d_matches_amd_example():
    # C[t%32 + (t/32)*4*32 + 32*r + i*32*8] = c_reg[i*4 + r]: row (t/32)*4 + r + 8i, column t%32
    d = _slots(DATA["v_mfma_f32_32x32x64_f8f6f4"]["D"])
    for t in range(64):
        for i in range(4):
            for r in range(4):
                assert d[(t, 32 * (i * 4 + r))] == ((t // 32) * 4 + r + 8 * i, t % 32)


@pytest.mark.parametrize("name", sorted(DATA))
def test_every_element_once(name):
    t = DATA[name]
    mats = [(t["formats"][f], f) for f in t["formats"]] if "formats" in t else [(t, "")]
    for lay, _fmt in mats:
        for mat, (r, c) in (("A", ("m", "k")), ("B", ("k", "n"))):
            elems = {(i, j) for _, _, i, j, _ in lay[mat]["cells"]}
            assert len(elems) == t[r] * t[c] == len(lay[mat]["cells"]), (name, mat)
    assert len({(i, j) for _, _, i, j, _ in t["D"]["cells"]}) == t["m"] * t["n"]


def test_generator_reproduces_the_committed_file(tmp_path, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_mfma_layouts", mfma_layout.DATA.with_name("gen_mfma_layouts.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen.gfx950(tmp_path / "out.json")
    assert (tmp_path / "out.json").read_bytes() == mfma_layout.DATA_GFX950.read_bytes()


@pytest.mark.parametrize("dense,smfmac", [
    ("v_mfma_f32_16x16x32_f16", "v_smfmac_f32_16x16x32_f16"), ("v_mfma_f32_32x32x16_f16", "v_smfmac_f32_32x32x16_f16"),
    ("v_mfma_f32_16x16x32_bf16", "v_smfmac_f32_16x16x32_bf16"),
    ("v_mfma_f32_32x32x16_bf16", "v_smfmac_f32_32x32x16_bf16"),
    ("v_mfma_i32_16x16x64_i8", "v_smfmac_i32_16x16x64_i8"), ("v_mfma_i32_32x32x32_i8", "v_smfmac_i32_32x32x32_i8")])
def test_new_dense_shapes_b_as_the_calculators_cdna3_smfmac_b(dense, smfmac):
    """Supporting evidence for the new 16-bit and i8 shapes (no AMD example shows them): CDNA3's
    SMFMAC of the same M x N x K has a dense B of the same size (4 VGPRs), and the calculator's
    layout for it is the one the CDNA4 rule gives the new dense MFMA's B."""
    cdna3 = json.loads(mfma_layout.DATA.read_text())["instructions"][smfmac]
    assert (cdna3["m"], cdna3["n"], cdna3["k"]) == tuple(DATA[dense][x] for x in "mnk")
    assert _slots(DATA[dense]["B"]) == _slots(cdna3["B"])


# gfx950 SMFMACs. No AMD worked example exists; the oracle is AMD's composable_kernel, whose
# ck_tile/core/arch/mma/sparse gfx950 specialisations state (amdgcn_mma_base parameters, meaning
# documented in ck_tile/core/arch/mma/amdgcn_mma.hpp) kABKPerLane dense K a lane, A in ONE access
# (K = K1 x K0, K1 the lane group) and B in TWO (K = K2 x K1 x K0, vector item = k2 * K0 + k0), and
# LLVM PR #193541: the index set is 16 bits for 16-bit sources, 32 bits for 8-bit sources.
SPARSE_CK = {  # name: kABKPerLane
    **{f"v_smfmac_f32_{s}_{t}": 16 for s in ("16x16x64", "32x32x32") for t in ("f16", "bf16")},
    "v_smfmac_i32_16x16x128_i8": 32, "v_smfmac_i32_32x32x64_i8": 32,
    **{f"v_smfmac_f32_{s}_{x}_{y}": 32 for s in ("16x16x128", "32x32x64")
       for x in ("fp8", "bf8") for y in ("fp8", "bf8")},
}


@pytest.mark.parametrize("name", sorted(SPARSE_CK))
def test_smfmac_layouts_match_composable_kernel(name):
    t = DATA[name]
    m, n, k, per = t["m"], t["n"], t["k"], SPARSE_CK[name]
    width = 16 if per == 16 else 8
    assert t["sparse"] and t["index_bits"] == (16 if width == 16 else 32)
    assert (t["gprs"]["A"], t["gprs"]["B"]) == (per * width // 2 // 32, per * width // 32)
    # A (one access): lane k1 * M + i holds the dense run k1 * per .. + per - 1 of row i, group q of four in
    # compressed slot q (bits 2 * width * q), whose index is nibble q of the set
    a = {(lane, 32 * t["A"]["cols"][c][0] + t["A"]["cols"][c][1], i, kk) for lane, c, i, kk, _ in t["A"]["cells"]}
    want = {(k1 * m + i, 2 * width * (q // 4), i, k1 * per + q) for k1 in range(64 // m) for i in range(m)
            for q in range(per)}
    assert a == want
    kl = {(lane, t["K"]["cols"][c][1], i, kk) for lane, c, i, kk, _ in t["K"]["cells"]}
    assert kl == {(k1 * m + i, 4 * (q // 4), i, k1 * per + q) for k1 in range(64 // m) for i in range(m)
                  for q in range(per)}
    # B (two accesses): item v = k2 * K0 + k0 of lane k1 * N + j holds K k2 * (K1 * K0) + k1 * K0 + k0
    k0n, k1n = per // 2, 64 // n
    b = _slots(t["B"])
    assert b == {(k1 * n + j, width * (k2 * k0n + k0)): (k2 * k1n * k0n + k1 * k0n + k0, j)
                 for k2 in range(2) for k1 in range(k1n) for k0 in range(k0n) for j in range(n)}

"""gfx950 MFMA layouts (data/mfma_layouts_gfx950.json) against the lane/register placement AMD
publishes in worked examples. AMD's Matrix Instruction Calculator has no CDNA4 yet
(ROCm/amd_matrix_instruction_calculator#7), so the oracle is AMD's ROCm blog "Matrix Core
Programming on AMD CDNA3 and CDNA4 architecture" (2025-10-01), sections 5.4 and 5.5: the HIP
kernels there say which A/B/C elements each lane loads for v_mfma_scale_f32_32x32x64_f8f6f4
with fp8 and fp4 operands. The index expressions below are transcribed from those kernels."""

import json

import pytest

from gcnforge.emulator import ops_mfma

DATA = json.loads(ops_mfma.DATA_GFX950.read_text())["instructions"]


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

    spec = importlib.util.spec_from_file_location("gen_mfma_layouts", ops_mfma.DATA.with_name("gen_mfma_layouts.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    gen.gfx950(tmp_path / "out.json")
    assert (tmp_path / "out.json").read_bytes() == ops_mfma.DATA_GFX950.read_bytes()


@pytest.mark.parametrize("dense,smfmac", [
    ("v_mfma_f32_16x16x32_f16", "v_smfmac_f32_16x16x32_f16"), ("v_mfma_f32_32x32x16_f16", "v_smfmac_f32_32x32x16_f16"),
    ("v_mfma_f32_16x16x32_bf16", "v_smfmac_f32_16x16x32_bf16"),
    ("v_mfma_f32_32x32x16_bf16", "v_smfmac_f32_32x32x16_bf16"),
    ("v_mfma_i32_16x16x64_i8", "v_smfmac_i32_16x16x64_i8"), ("v_mfma_i32_32x32x32_i8", "v_smfmac_i32_32x32x32_i8")])
def test_new_dense_shapes_b_as_the_calculators_cdna3_smfmac_b(dense, smfmac):
    """Supporting evidence for the new 16-bit and i8 shapes (no AMD example shows them): CDNA3's
    SMFMAC of the same M x N x K has a dense B of the same size (4 VGPRs), and the calculator's
    layout for it is the one the CDNA4 rule gives the new dense MFMA's B."""
    cdna3 = json.loads(ops_mfma.DATA.read_text())["instructions"][smfmac]
    assert (cdna3["m"], cdna3["n"], cdna3["k"]) == tuple(DATA[dense][x] for x in "mnk")
    assert _slots(DATA[dense]["B"]) == _slots(cdna3["B"])

"""gcnforge.lib layouts: MFMA fragment facts for every MFMA of gfx942 and gfx950 against the
ISA table (operand widths from LLVM 22) and an MFMA run on the emulator against NumPy's
matmul; LDS layouts, swizzles and the bank-conflict count against the bank rule worked by
hand; the in-kernel LDS offset against the host formula."""

from __future__ import annotations

import numpy as np
import pytest

from gcnforge.builder import Arg, Module
from gcnforge.isa import mfma, table
from gcnforge.isa.mfma_layout import raw
from gcnforge.lib import LdsLayout, Swizzle, bank_conflicts, lds_passes, mfma_fragment, pack, unpack
from tests.gcnforge_lib.helpers import run

ALL = [(t, n) for t in ("gfx942", "gfx950") for n in mfma.names(t) if raw(n) is not None]


def _operand_dwords(name, target):
    inst = table.by_mnemonic(name, target) or next(iter(table.variants(name, target)))
    return {o.name: o.dwords for o in inst.operands}


@pytest.mark.parametrize("target,name", ALL)
def test_every_mfma_has_fragments_of_its_shape_and_widths(target, name):
    """Every MFMA of the target has A/B/D fragments covering its M x K, K x N and M x N
    (each element once), sized as the instruction's operands in the ISA table."""
    info, w = mfma.info(name, target), _operand_dwords(name, target)
    for matrix, shape, op in (("A", (info.m, info.k), "src0"), ("B", (info.k, info.n), "src1"),
                              ("D", (info.m, info.n), "vdst")):
        if matrix == "A" and info.sparse:
            continue  # 2:4 compressed: two of each four K per slot (raw layout only)
        f = mfma_fragment(name, matrix)
        assert f.shape == (info.blocks, *shape)
        assert (f.reg >= 0).all()
        assert f.registers == w[op], (matrix, f.registers, w[op])
        # no two elements share a lane, register and bit range
        key = (f.reg * 64 + f.lane) * 64 + f.lo
        assert len(np.unique(key)) == key.size


def _mfma_kernel(name, target, ra, rb, rd):
    m = Module("m", target=target)
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("b", access="read_only"), Arg.ptr("d", access="write_only")]
    with m.kernel("k", args, workgroup_size=(64, 1, 1)) as k:
        pa, pb, pd = k.args()
        off = k.v_lshlrev_b32(2, k.thread_id("x"))

        def load(p, n):
            parts = []
            for r in range(n):
                v, t = k.global_load_dword(off, p, offset=256 * r)
                k.wait(t)
                parts.append(v)
            return k.concat(*parts) if n > 1 else parts[0]

        a, b = load(pa, ra), load(pb, rb)
        acc = k.concat(*[k.v_mov_b32(0) for _ in range(rd)])
        d = k.inst(name, a, b, acc)
        for r, part in enumerate(d.split() if rd > 1 else [d]):
            k.global_store_dword(off, part, pd, offset=256 * r)
    return m


_CASES = [("gfx942", "v_mfma_f32_32x32x8_f16"), ("gfx942", "v_mfma_f32_16x16x16_bf16"),
          ("gfx942", "v_mfma_f32_16x16x4_f32"), ("gfx942", "v_mfma_i32_16x16x32_i8"),
          ("gfx942", "v_mfma_f32_4x4x4_16b_f16"), ("gfx942", "v_mfma_f32_32x32x2_f32"),
          ("gfx942", "v_mfma_f64_16x16x4_f64"), ("gfx950", "v_mfma_f32_16x16x32_f16"),
          ("gfx950", "v_mfma_f32_32x32x16_bf16")]


def _operand(kind: str, shape, rng):
    """Small integers (exact in every type) as the operand type's bit patterns."""
    x = rng.integers(-4, 5, shape)
    if kind == "FP16":
        return x.astype(np.float16)
    if kind == "BF16":
        return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if kind == "int8":
        return x.astype(np.int8)
    if kind == "FP64":
        return x.astype(np.float64)
    return x.astype(np.float32)


@pytest.mark.parametrize("target,name", _CASES)
def test_fragments_pack_an_mfma_that_matches_numpy(target, name):
    """pack(A), pack(B) -> the MFMA on the emulator -> unpack(D) == A @ B per block."""
    import gcnforge

    from tests.gcnforge_lib.helpers import compile_module

    fa, fb, fd = (mfma_fragment(name, x) for x in "ABD")
    types = raw(name)["types"]
    rng = np.random.default_rng(7)
    a, b = _operand(types["Src0"], fa.shape, rng), _operand(types["Src1"], fb.shape, rng)
    ia, ib = pack(fa, a), pack(fb, b)
    d = np.zeros((fd.registers, 64), np.uint32)
    kern = gcnforge.load(compile_module(_mfma_kernel(name, target, fa.registers, fb.registers, fd.registers)),
                         device="emulator")["k"]
    kern(ia, ib, d, grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    out_t = {"FP32": np.float32, "int32": np.int32, "FP64": np.float64}[types["Vdst"]]
    got = unpack(fd, d, out_t).astype(np.float64)

    def val(x, kind):
        return (x.astype(np.uint32) << 16).view(np.float32) if kind == "BF16" else x
    want = np.matmul(val(a, types["Src0"]).astype(np.float64), val(b, types["Src1"]).astype(np.float64))
    assert np.array_equal(got, want)


def test_column_read_bank_conflicts_and_the_swizzle_that_removes_them():
    """ds_read_b32 of one column of a 64 x 32 f32 tile (lane = row): unswizzled every lane of a
    32-lane group hits bank 0 (rows are 128 bytes = 32 banks apart): 32 passes per group, 64 in
    all, against 2 without conflicts. XOR-ing dword bits [2, 7) with row bits [7, 12) puts row
    i's element in bank (c ^ i) % 32: conflict-free. gfx950's 64 banks (rows 32 banks apart:
    banks 0 and 32 only) take all 64 lanes in one group: 32 passes against 1."""
    rows = np.arange(64)
    plain = LdsLayout(64, 32, 4)
    swz = LdsLayout(64, 32, 4, swizzle=Swizzle(5, 2, 5))
    assert lds_passes(plain.offset(rows, 3), 4) == 64
    assert bank_conflicts(plain.offset(rows, 3), 4) == 32
    assert bank_conflicts(swz.offset(rows, 3), 4) == 1
    assert lds_passes(plain.offset(rows, 3), 4, "gfx950") == 32
    assert bank_conflicts(plain.offset(rows, 3), 4, "gfx950") == 32
    assert bank_conflicts(plain.offset(0, rows % 32), 4) == 1  # a row: consecutive banks
    # the swizzle is a permutation of the tile's bytes, and keeps 4-byte elements whole
    offs = swz.offset(*np.meshgrid(np.arange(64), np.arange(32), indexing="ij"))
    assert sorted(offs.ravel().tolist()) == list(range(0, swz.nbytes, 4))


def test_padding_spreads_a_column():
    """One dword of padding per row: row i's column lands in bank (i + c) % 32."""
    assert bank_conflicts(LdsLayout(64, 32, 4, pad=4).offset(np.arange(64), 0), 4) == 1


def test_emitted_lds_offset_equals_the_host_formula():
    lay = LdsLayout(64, 64, 2, swizzle=Swizzle(3, 4, 3))
    m = Module("m")
    with m.kernel("k", [Arg.ptr("y", access="write_only")], workgroup_size=(64, 1, 1)) as k:
        (y,) = k.args()
        tid = k.thread_id("x")
        row, col = tid, k.v_and_b32(63, k.v_mul_u32_u24(37, tid))
        k.global_store_dword(k.v_lshlrev_b32(2, tid), lay.emit_offset(k, row, col), y)
    out = np.zeros(64, np.uint32)
    run(m, "k", out)
    t = np.arange(64)
    assert np.array_equal(out, lay.offset(t, (37 * t) & 63))

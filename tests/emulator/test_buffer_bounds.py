"""MUBUF/MTBUF range checking, addressing and data formats on hand-built buffer resources (V#).

Each expected value is worked out here from the AMD Instinct MI300 (CDNA3) ISA guide,
"Buffer Addressing", "Range Checking" and "Swizzled Buffer Addressing":
  raw buffer (IDXEN=0, ADD_TID_EN=0): out of range if soffset + offset >= num_records (bytes),
    offset = (OFFEN ? vgpr_offset : 0) + inst_offset (SOFFSET counts on CDNA, issue 19);
  structured (IDXEN=1): out of range if index >= num_records (records);
  private (ADD_TID_EN=1, IDXEN=0): no range check;
  dword x2/x4 accesses are checked per dword, atomics and format accesses all or nothing;
  the offset is a 32-bit sum that wraps (Table 46 makes SGPR_offset and VGPR_offset unsigned
    32-bit; triton PR 10673 on gfx942: voffset + soffset wraps back in range, 0xFFFFFFFF stays
    out; LLVM D40585: a negative vaddr plus a positive instruction offset addresses correctly),
    before the range check and before the 48-bit base add;
  out-of-range loads return 0 (also into LDS), stores and atomics are dropped.
The buffer lies inside a larger allocation filled with a known pattern, so an access the
emulator wrongly lets through reads or changes that pattern instead of faulting.
The kernels are assembled by llvm-mc (tests/emulator/buffer_kernels.s)."""

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

L = np.arange(64, dtype=np.uint64)
ARENA_WORDS = 2048
PATTERN = (0x10000 + np.arange(ARENA_WORDS)).astype(np.uint32)


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    t = require_llvm("llvm-mc", "ld.lld")
    d = tmp_path_factory.mktemp("buf")
    src = Path(__file__).with_name("buffer_kernels.s")
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", str(src), "-o",
                    str(d / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(d / "k.o"), "-o", str(d / "k.so")], check=True)
    return (d / "k.so").read_bytes()


def vsharp(base, stride=0, num=0, swizzle=False, add_tid=False, elem_code=0, istride_code=0, dfmt=4, nfmt=7,
           dst_sel=(0, 0, 0, 0)):
    """The four dwords of a V# (guide Table 48; element size / index stride positions from
    LLVM SIDefines.h RSRC_ELEMENT_SIZE_SHIFT / RSRC_INDEX_STRIDE_SHIFT)."""
    w1 = ((base >> 32) & 0xFFFF) | (stride << 16) | (int(swizzle) << 31)
    sel = sum(c << (3 * i) for i, c in enumerate(dst_sel))
    w3 = sel | (nfmt << 12) | (dfmt << 15) | (elem_code << 19) | (istride_code << 21) | (int(add_tid) << 23)
    return [base & 0xFFFFFFFF, w1, num, w3]


def run(code, name, v0, v1=None, soffset=0, nout=1, arena_words=PATTERN, **rsrc):
    """-> (out (nout, 64) uint32, arena (ARENA_WORDS,) uint32 after the kernel)."""
    dev = Device()
    arena = dev.memory.alloc(4 * ARENA_WORDS)
    dev.memory.write(arena, np.asarray(arena_words, np.uint32).tobytes())
    out = dev.memory.alloc(4 * 64 * nout)
    dev.memory.write(out, b"\0" * (4 * 64 * nout))
    varr = dev.memory.alloc(512)
    v1 = np.zeros(64, np.uint32) if v1 is None else v1
    dev.memory.write(varr, np.concatenate([np.asarray(v0, np.uint32), np.asarray(v1, np.uint32)]).tobytes())
    ka = struct.pack("<QQ4II", out, varr, *vsharp(arena, **rsrc), soffset) + b"\0" * 4
    dev.run(code, name, ka, (1, 1, 1), (64, 1, 1))
    o = np.frombuffer(dev.memory.read(out, 4 * 64 * nout), np.uint32).reshape(nout, 64)
    a = np.frombuffer(dev.memory.read(arena, 4 * ARENA_WORDS), np.uint32)
    return o, a


def words_at(byte_addr):
    return PATTERN[(np.asarray(byte_addr) // 4).astype(np.int64)]


def test_offen_on_strided_buffer_checks_bytes(code):
    # production pattern: stride 4 in the V#, OFFEN addressing, num_records in bytes
    o, _ = run(code, "ld_offen", 4 * L, stride=4, num=100)
    off = 4 * L + 4  # offset:4
    np.testing.assert_array_equal(o[0], np.where(off < 100, words_at(off), 0))


@pytest.mark.parametrize("stride", [0, 4])
def test_soffset_counts_toward_raw_check(code, stride):
    o, _ = run(code, "ld_offen", 4 * L, soffset=64, stride=stride, num=256)
    off = 4 * L + 4
    np.testing.assert_array_equal(o[0], np.where(64 + off < 256, words_at(64 + off), 0))


M32 = 1 << 32


def test_negative_voffset_plus_inst_offset_wraps(code):
    # aiter's int8 GEMM pattern: VGPR offset = row - 260 (negative), offset:260 adds it back
    voff = (4 * L.astype(np.int64) - 260) % M32
    o, _ = run(code, "ld_offen_hi", voff, num=200)
    np.testing.assert_array_equal(o[0], np.where(4 * L < 200, words_at(4 * L), 0))


def test_soffset_wraps_into_raw_offset(code):
    # even lanes: voffset + 4 + soffset wraps to 4*lane; odd lanes: triton's masked sentinel
    # -1 - soffset - 4, whose sum is 0xFFFFFFFF and stays out of range
    voff = np.where(L % 2 == 0, (4 * L.astype(np.int64) - 68) % M32, M32 - 1 - 68)
    o, _ = run(code, "ld_offen", voff, soffset=64, num=200)
    np.testing.assert_array_equal(o[0], np.where((L % 2 == 0) & (4 * L < 200), words_at(4 * L), 0))


def test_offset_sentinel_carried_back_in_range(code):
    # the gfx942 miscompile triton PR 10673 fixed: an OOB-looking voffset plus soffset lands in range
    o, _ = run(code, "ld_offen", np.full(64, M32 - 4), soffset=64, num=200)
    np.testing.assert_array_equal(o[0], np.full(64, words_at(64)))


def test_store_through_wrapped_offset(code):
    voff = (4 * L.astype(np.int64) - 8) % M32
    _, a = run(code, "st_offen", voff, soffset=8, num=128)
    expect = PATTERN.copy()
    inb = 4 * L < 128
    expect[(L[inb]).astype(np.int64)] = 0x7000 + L[inb]
    np.testing.assert_array_equal(a, expect)


def test_private_buffer_negative_vaddr_wraps(code):
    # ADD_TID_EN scratch-style buffer (LLVM SelectMUBUFScratchOffen folds a negative vaddr with a
    # positive instruction offset on gfx9): (8 - 260) + 260 = 8
    o, _ = run(code, "ld_offen_hi", np.full(64, (8 - 260) % M32), stride=4, num=0, add_tid=True, dfmt=0)
    np.testing.assert_array_equal(o[0], words_at(4 * L + 8))


def test_idxen_checks_index_against_records(code):
    o, _ = run(code, "ld_idxen", L, stride=8, num=20)
    np.testing.assert_array_equal(o[0], np.where(L < 20, words_at(8 * L + 4), 0))


def test_idxen_offen_index_check_ignores_offset(code):
    # the offset may point past the record: only the index is range-checked
    o, _ = run(code, "ld_idxen_offen", L, np.full(64, 12), stride=8, num=30)
    np.testing.assert_array_equal(o[0], np.where(L < 30, words_at(8 * L + 12), 0))


def test_add_tid_private_buffer_is_not_range_checked(code):
    # ADD_TID_EN=1, IDXEN=0: scratch-style buffer, index = thread id, no range check at all
    o, _ = run(code, "ld_off", L, stride=4, num=0, add_tid=True, dfmt=0)
    np.testing.assert_array_equal(o[0], words_at(4 * L + 8))


def test_dwordx4_checked_per_dword(code):
    o, _ = run(code, "ld_x4_offen", 16 * L, nout=4, num=72)
    for k in range(4):
        off = 16 * L + 4 * k
        np.testing.assert_array_equal(o[k], np.where(off < 72, words_at(off), 0), err_msg=f"dword {k}")


def test_ubyte_raw_bounds(code):
    o, _ = run(code, "ld_ubyte_offen", L, stride=4, num=37)
    expect = np.where(L < 37, PATTERN.view(np.uint8)[L.astype(np.int64)], 0)
    np.testing.assert_array_equal(o[0], expect)


def test_store_out_of_range_dropped(code):
    _, a = run(code, "st_offen", 4 * L, soffset=8, stride=4, num=128)
    expect = PATTERN.copy()
    inb = 8 + 4 * L < 128
    expect[((8 + 4 * L) // 4)[inb].astype(np.int64)] = 0x7000 + L[inb]
    np.testing.assert_array_equal(a, expect)


def test_store_x2_per_dword(code):
    _, a = run(code, "st_x2_offen", 8 * L, num=36)
    expect = PATTERN.copy()
    for k, val in ((0, 0x7000 + L), (1, 0x8000 + L)):
        off = 8 * L + 4 * k
        inb = off < 36
        expect[(off // 4)[inb].astype(np.int64)] = val[inb]
    np.testing.assert_array_equal(a, expect)


def test_store_idxen(code):
    _, a = run(code, "st_idxen", L, stride=16, num=10)
    expect = PATTERN.copy()
    inb = L < 10
    expect[(16 * L // 4)[inb].astype(np.int64)] = 0x7000 + L[inb]
    np.testing.assert_array_equal(a, expect)


def test_atomic_out_of_range_dropped_and_returns_zero(code):
    o, a = run(code, "atomic_add_offen", 4 * L, stride=4, num=128)
    inb = 4 * L < 128
    np.testing.assert_array_equal(o[0], np.where(inb, words_at(4 * L), 0))
    expect = PATTERN.copy()
    expect[:64][inb] += 1
    np.testing.assert_array_equal(a, expect)


def test_lds_load_out_of_range_writes_zero(code):
    o, _ = run(code, "ld_lds_offen", 4 * L, stride=4, num=100)
    np.testing.assert_array_equal(o[0], np.where(4 * L < 100, words_at(4 * L), 0))


def test_swizzled_structured_buffer(code):
    # element size 4 (code 1), index stride 8 (code 0), record stride 8: the guide's
    # buffer_offset = (index_msb*stride + offset_msb*elem)*index_stride + index_lsb*elem + offset_lsb
    voff = (L % 2) * 4
    o, _ = run(code, "ld_idxen_offen", L, voff, stride=8, num=40, swizzle=True, elem_code=1, istride_code=0)
    idx, off = L, voff
    boff = ((idx // 8) * 8 + (off // 4) * 4) * 8 + (idx % 8) * 4 + off % 4
    np.testing.assert_array_equal(o[0], np.where(idx < 40, words_at(boff), 0))


# ---- typed buffers: tbuffer_* (format in the instruction), buffer_*_format_* (format in the V#) ----
def _f32(u32):
    return np.asarray(u32, np.uint32).view(np.float32)


def test_tbuffer_8888_unorm(code):
    o, _ = run(code, "tbuf_ld_8888_unorm", 4 * L, num=200, nout=4)
    raw = PATTERN.view(np.uint8)
    for c in range(4):
        byte = raw[(4 * L + c).astype(np.int64)]
        expect = np.where(4 * L < 200, (byte / 255.0).astype(np.float32), np.float32(0))
        np.testing.assert_array_equal(_f32(o[c]), expect, err_msg=f"component {c}")


def test_tbuffer_16_16_sint_identity_select(code):
    halves = (np.arange(2 * ARENA_WORDS) * 997 - 30000).astype(np.int16)
    o, _ = run(code, "tbuf_ld_16_16_sint", 4 * L, num=128, nout=4, arena_words=halves.view(np.uint32))
    inb = 4 * L < 128
    for c in range(2):
        expect = np.where(inb, halves[(2 * L + c).astype(np.int64)].astype(np.int32), 0).astype(np.uint32)
        np.testing.assert_array_equal(o[c], expect, err_msg=f"component {c}")
    np.testing.assert_array_equal(o[2:], 0)  # DST_SEL identity XY00 for a two-component format


def test_tbuffer_32_32_all_or_nothing(code):
    # 8-byte elements: lane 4 starts at 32 < 36, so both dwords load though the second lies past 36
    o, _ = run(code, "tbuf_ld_32_32_uint", 8 * L, num=36, nout=4)
    inb = 8 * L < 36
    np.testing.assert_array_equal(o[0], np.where(inb, words_at(8 * L), 0))
    np.testing.assert_array_equal(o[1], np.where(inb, words_at(8 * L + 4), 0))
    np.testing.assert_array_equal(o[2:], 0xDEADBEEF)


def test_tbuffer_d16_16_16_float_packs_halves(code):
    o, _ = run(code, "tbuf_ld_d16_16_16_float", 4 * L, num=100, nout=4)
    np.testing.assert_array_equal(o[0], np.where(4 * L < 100, words_at(4 * L), 0))
    np.testing.assert_array_equal(o[1:], 0xDEADBEEF)


def test_buffer_format_dst_sel_from_resource(code):
    halves = (np.arange(2 * ARENA_WORDS) % 2000 * 0.25 - 100).astype(np.float16)
    # V#: data format 16_16 (5), FLOAT, dst_sel = (Y, X, 1, 0)
    o, _ = run(code, "buf_ld_format_xyzw", 4 * L, num=120, nout=4, arena_words=halves.view(np.uint32),
               dfmt=5, nfmt=7, dst_sel=(5, 4, 1, 0))
    inb = 4 * L < 120
    for c, h in ((0, 1), (1, 0)):
        expect = np.where(inb, halves[(2 * L + h).astype(np.int64)].astype(np.float32), np.float32(0))
        np.testing.assert_array_equal(_f32(o[c]), expect, err_msg=f"component {c}")
    np.testing.assert_array_equal(_f32(o[2]), 1.0)  # SEL_1 reads 1, in range or not (guide note 1)
    np.testing.assert_array_equal(o[3], 0)


def test_tbuffer_store_32_32_all_or_nothing(code):
    _, a = run(code, "tbuf_st_32_32_uint", 8 * L, num=36)
    expect = PATTERN.copy()
    inb = 8 * L < 36
    expect[(2 * L)[inb].astype(np.int64)] = 0x7000 + L[inb]
    expect[(2 * L + 1)[inb].astype(np.int64)] = 0x8000 + L[inb]
    np.testing.assert_array_equal(a, expect)


@pytest.mark.parametrize("soff,num", [(8, 100), (0, 8), (100, 100), (96, 64)])
def test_scalar_buffer_load_reads_the_vsharp_base_and_range(code, soff, num):
    # s_buffer_load_dwordx2 s[14:15], s[8:11], s12: the V#'s 48-bit base (the arena lies above
    # 4 GiB, so its upper bits count) plus the SGPR offset, dword-aligned; a dword whose bytes
    # end past num_records reads 0 (guide, "Scalar Memory Operations": buffer range checking).
    # Both dwords wholly in range or wholly out here, so per-dword and all-or-nothing agree.
    o, a = run(code, "sld_x2", np.zeros(64), soffset=soff, nout=4, num=num)
    want = [words_at(soff + 4 * d) if soff + 4 * d + 4 <= num else 0 for d in range(2)]
    np.testing.assert_array_equal(o[0], np.full(64, want[0], np.uint32))
    np.testing.assert_array_equal(o[1], np.full(64, want[1], np.uint32))
    np.testing.assert_array_equal(a, PATTERN)

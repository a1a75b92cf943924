"""The clang gfx950 suite: OpenCL C kernels (kernels/gfx950/ops.cl: a folder of their own, so the gfx942
suites that build every kernels/*.cl leave them alone) built by clang 22 with
-mcpu=gfx950 through the __builtin_amdgcn_* builtins of each new instruction group, run on
the emulator (which runs them as gfx950: the target comes from the code object), checked
against NumPy and ml_dtypes (OCP fp8/bf8/fp6/fp4 formats)."""

from __future__ import annotations

import ml_dtypes as md
import numpy as np
import pytest

from gcnforge.testing import require_llvm

from harness import Buf, build_cl, run

U = np.uint32
FP8, BF8, FP6, FP4, BF16 = md.float8_e4m3fn, md.float8_e5m2, md.float6_e2m3fn, md.float4_e2m1fn, md.bfloat16
N = 256


@pytest.fixture(scope="module")
def code():
    return build_cl("gfx950/ops.cl", require_llvm("clang", "ld.lld"), mcpu="gfx950")


def inputs(seed, spread=4.0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(N) * spread).astype(np.float32)
    b = (rng.standard_normal(N) * spread).astype(np.float32)
    s = (np.ldexp(1.0, rng.integers(-3, 4, N)) * rng.choice([1.0, -1.25, 1.75], N)).astype(np.float32)
    r = rng.integers(0, 2**32, N, dtype=np.uint64).astype(U)
    scale = np.ldexp(1.0, ((s.view(U) >> U(23)) & U(0xFF)).astype(np.int64) - 127)  # the exponent field only
    return a, b, s, r, scale, np.concatenate([a.view(U), b.view(U), s.view(U), r]).view(np.float32)


def enc(x, dt):
    return np.asarray(x, np.float32).astype(dt).view(np.uint8).astype(U)


def dec(c, dt):
    return np.asarray(c).astype(np.uint8).view(dt).astype(np.float32)


def prng(r):
    return np.array([((int(v) << 1) ^ (197 if int(v) >> 31 else 0)) & 0xFFFFFFFF for v in r], U)


def test_scaled_conversions(code):
    a, b, _, r, sc, inp = inputs(1)
    out = Buf(np.zeros(8 * N, U))
    run(code, "scaled_cvt", [out, Buf(inp), np.int32(N)], (N // 64,), (64,))
    o = out.array.reshape(N, 8)
    np.testing.assert_array_equal(o[:, 0], enc(a / sc, FP8) | enc(b / sc, FP8) << 8)
    np.testing.assert_array_equal(o[:, 1], 0x1234 | (enc(a / sc, BF8) | enc(b / sc, BF8) << 8) << 16)
    np.testing.assert_array_equal(o[:, 2], 0x11220044 | (enc(a / sc, FP4) | enc(b / sc, FP4) << 4) << 8)
    byte = lambda k: (r >> U(8 * k)) & U(0xFF)  # noqa: E731
    f = lambda k: o[:, k].view(np.float32)  # noqa: E731
    np.testing.assert_array_equal(f(3), dec(byte(2), FP8) * sc)
    np.testing.assert_array_equal(f(4), dec(byte(3), FP8) * sc)
    np.testing.assert_array_equal(f(5), dec(byte(3), BF8) * sc)
    np.testing.assert_array_equal(f(6), dec(byte(2) & U(15), FP4) * sc)
    np.testing.assert_array_equal(f(7), dec(byte(2) >> U(4), FP4) * sc)


def _sr(bits, add, drop):
    return ((bits.astype(np.uint64) + add) >> np.uint64(drop) << np.uint64(drop)).astype(U)


def test_scaled_stochastic_rounding(code):
    a, b, _, r, sc, inp = inputs(2)
    out = Buf(np.zeros(2 * N, U))
    run(code, "scaled_sr", [out, Buf(inp), np.int32(N)], (N // 64,), (64,))
    o = out.array.reshape(N, 2)
    v = (a / sc).astype(np.float32)
    ok = (np.abs(v) >= 2.0**-6) & (np.abs(v) < 448)  # FP8's normal range: the bit-level model holds
    want = enc(_sr(v.view(U), r.astype(np.uint64) >> np.uint64(12), 20).view(np.float32), FP8)
    np.testing.assert_array_equal(((o[:, 0] >> 16) & 0xFF)[ok], want[ok])
    np.testing.assert_array_equal(o[:, 0] & 0xFF00FFFF, 0xAA00CCDD)
    for k, (x, rr) in enumerate(((a, r), (b, prng(r)))):
        v = (x / sc).astype(np.float32)
        ok = np.abs(v) >= 1.0
        m = np.minimum(_sr(np.abs(v).view(U), rr.astype(np.uint64) >> np.uint64(10), 22).view(np.float32), 6)
        np.testing.assert_array_equal(((o[:, 1] >> U(4 * k)) & U(15))[ok], enc(np.copysign(m, v), FP4)[ok])


def test_fp6_pack32_round_trip(code):
    n = 128
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((n, 32)) * 3).astype(np.float32)
    s = np.ldexp(1.0, rng.integers(-2, 3, n)).astype(np.float32)
    out, back = Buf(np.zeros(6 * n, U)), Buf(np.zeros(32 * n, np.float32))
    run(code, "fp6_pk32", [out, back, Buf(x), Buf(s), np.int32(n)], (n // 64,), (64,))
    # 2xpk16: element 2k is x[k], element 2k+1 is x[16+k]; 6-bit fields from bit 0 up
    order = np.stack([x[:, :16], x[:, 16:]], axis=2).reshape(n, 32)
    codes = enc(order / s[:, None], FP6)
    bits = ((codes[:, :, None] >> np.arange(6, dtype=U)) & 1).astype(np.uint8).reshape(n, 192)
    np.testing.assert_array_equal(out.array.reshape(n, 6), np.packbits(bits, axis=1, bitorder="little").view(U))
    np.testing.assert_array_equal(back.array.reshape(n, 32), dec(codes, FP6) * s[:, None])


def test_pk_f16_bf16_and_minimum3(code):
    a, b, s, _, _, inp = inputs(4)
    a[:4], b[:4], s[:4] = [0.0, -0.0, np.nan, 1.0], [-0.0, 0.0, 1.0, np.inf], [-5.0, 5.0, 2.0, -np.inf]
    inp[: N], inp[N : 2 * N], inp[2 * N : 3 * N] = a, b, s
    out = Buf(np.zeros(4 * N, U))
    run(code, "pk_minmax", [out, Buf(inp), np.int32(N)], (N // 64,), (64,))
    o = out.array.reshape(N, 4)
    h = lambda x: x.astype(np.float16).view(np.uint16).astype(U)  # noqa: E731
    bf = lambda x: x.astype(BF16).view(np.uint16).astype(U)  # noqa: E731
    np.testing.assert_array_equal(o[:, 0], h(a) | h(b) << 16)
    np.testing.assert_array_equal(o[:, 1], bf(a) | bf(b) << 16)
    # IEEE 754-2019 minimum/maximum: NaN propagates, -0 < +0 (NumPy's minimum/maximum agree)
    np.testing.assert_array_equal(o[:, 2].view(np.float32), np.minimum(np.minimum(a, b), s))
    np.testing.assert_array_equal(o[:, 3].view(np.float32), np.maximum(np.maximum(a, b), s))
    assert o[0, 3] == 0 and o[1, 2] == 0x80000000  # +0 is the maximum of +-0, -0 the minimum


def test_integer_bits_and_lane_swaps(code):
    a, b, _, r, _, inp = inputs(5)
    out = Buf(np.zeros(7 * N, U))
    run(code, "bits_lanes", [out, Buf(inp), np.int32(N)], (N // 64,), (64,))
    o = out.array.reshape(N, 7)
    ua, ub = a.view(U), b.view(U)
    np.testing.assert_array_equal(o[:, 0], prng(r))
    np.testing.assert_array_equal(o[:, 1], ua ^ ub ^ r)  # bitop3 0x96: xor3
    sh = (r & 31).astype(np.int64)
    ai, bi = ua.view(np.int32).astype(np.int64) >> sh, ub.view(np.int32).astype(np.int64) >> sh
    np.testing.assert_array_equal(o[:, 2], (np.clip(ai, -128, 127) & 0xFF) | (np.clip(bi, -128, 127) & 0xFF) << 8)
    np.testing.assert_array_equal(o[:, 3], np.clip(ai, 0, 255) | np.clip(bi, 0, 255) << 8)
    # permlane16_swap(old=a, src=b): .x is the new 'old' (odd rows take src's even rows), .y the new src
    lane = np.arange(N) % 64
    base = np.arange(N) - lane
    odd = (lane // 16) % 2 == 1
    np.testing.assert_array_equal(o[:, 4], np.where(odd, ub[base + (lane - 16) % 64], ua))
    np.testing.assert_array_equal(o[:, 5], np.where(~odd, ua[base + (lane + 16) % 64], ub))
    hi = lane >= 32
    x32 = np.where(hi, ub[base + (lane - 32) % 64], ua)
    y32 = np.where(~hi, ua[base + (lane + 32) % 64], ub)
    np.testing.assert_array_equal(o[:, 6], x32 ^ (y32 << U(1)))


def _fields(stream, bits):
    b = np.unpackbits(stream, bitorder="little").reshape(-1, bits)
    return (b.astype(np.int64) << np.arange(bits)).sum(axis=1)


def test_transposing_lds_reads(code):
    """ds_read_b64_tr_b16/b8/b4 and ds_read_b96_tr_b6: in each 16-lane block, element r of lane i
    is element 16r + i of the block's loads (back to back), CDNA4 ISA 11.4."""
    data = np.random.default_rng(6).integers(0, 2**32, 768, dtype=np.uint64).astype(U)
    out = Buf(np.zeros(9 * 64, U))
    run(code, "lds_tr", [out, Buf(data)], (1,), (64,))
    o = out.array.reshape(64, 9)
    stream = data.view(np.uint8)
    for first, nbytes, bits in ((0, 8, 16), (2, 8, 8), (4, 8, 4), (6, 12, 6)):
        e = nbytes * 8 // bits
        stride = 16 if nbytes == 12 else nbytes  # b96 reads at 16*lane (128-bit aligned)
        for lane in range(64):
            blk, i = divmod(lane, 16)
            elems = _fields(np.concatenate([stream[stride * k : stride * k + nbytes] for k in range(16 * blk, 16 * blk + 16)]), bits)
            got = _fields(o[lane, first : first + nbytes // 4].copy().view(np.uint8), bits)
            np.testing.assert_array_equal(got, elems[16 * np.arange(e) + i], err_msg=f"b{bits} lane {lane}")


def test_load_to_lds_of_16_bytes(code):
    data = np.random.default_rng(7).integers(0, 2**32, 256, dtype=np.uint64).astype(U)
    out = Buf(np.zeros(256, U))
    run(code, "lds_dma16", [out, Buf(data)], (1,), (64,))
    np.testing.assert_array_equal(out.array, data)  # lane l's 16 bytes at LDS 16*l


def test_buffer_load_to_lds_rows_advance_with_soffset_offset_and_m0(code):
    """Pins the LDS-DMA address rule aiter's gfx950 GEMMs depend on (issue 30), on code clang 22
    built from __builtin_amdgcn_raw_ptr_buffer_load_lds(..., 16, voffset, soffset, imm): clang
    puts the LDS pointer in M0 and the intrinsic's immediate in the instruction's offset field,
    which LLVM (IntrinsicsAMDGPU.td, "imm offset ... applied to both global and LDS address")
    and the ISA guides' LDS_ADDR = M0 + inst_offset + TID * size apply to both addresses. Each
    row r lands at M0_r + 16 r + 16 lane and holds global bytes sbase + 2048 r + 16 r + 16 lane."""
    data = np.random.default_rng(11).integers(0, 2**32, 4096, dtype=np.uint64).astype(U)
    sbase = 256
    out = Buf(np.zeros(18 * 64, U))
    run(code, "lds_dma16_rows", [out, Buf(data), np.uint32(sbase)], (1,), (64,))
    got = out.array.view(np.uint8)
    src = data.view(np.uint8)
    for r in range(4):
        lds0, g0 = 4 * 272 * r + 16 * r, sbase + 2048 * r + 16 * r
        np.testing.assert_array_equal(got[lds0 : lds0 + 1024], src[g0 : g0 + 1024], err_msg=f"row {r}")


def test_dot2_f32_bf16(code):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(2 * N).astype(np.float32).astype(BF16)
    y = rng.standard_normal(2 * N).astype(np.float32).astype(BF16)
    c = rng.standard_normal(N).astype(np.float32)
    out = Buf(np.zeros(N, np.float32))
    run(code, "dot_bf16", [out, Buf(x.view(U)), Buf(y.view(U)), Buf(c), np.int32(N)], (N // 64,), (64,))
    xf, yf = x.astype(np.float64).reshape(N, 2), y.astype(np.float64).reshape(N, 2)
    want = (xf * yf).sum(axis=1) + c  # bf16 products are exact in f32; one rounding at the end
    np.testing.assert_allclose(out.array, want.astype(np.float32), rtol=2e-7, atol=1e-30)


def _unpack6(words):
    """(n, 6) dwords -> (n, 32) 6-bit codes, element 0 in the lowest bits."""
    b = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=1, bitorder="little").reshape(len(words), 32, 6)
    return (b.astype(U) << np.arange(6, dtype=U)).sum(axis=2, dtype=U)


def test_fp6_bf6_pack32_f16_bf16_and_stochastic(code):
    n = 64
    rng = np.random.default_rng(9)
    x = (rng.standard_normal((n, 32)) * 3).astype(np.float32)
    h = (rng.standard_normal((n, 32)) * 6).astype(np.float16)
    seed = rng.integers(0, 2**32, n, dtype=np.uint64).astype(U)
    s = np.ldexp(1.0, rng.integers(-2, 3, n)).astype(np.float32)
    out, back = Buf(np.zeros(12 * n, U)), Buf(np.zeros(64 * n, np.uint16))
    run(code, "fp6_pk32_more", [out, back, Buf(x), Buf(h), Buf(seed), Buf(s), np.int32(n)], (1,), (64,))
    o, bk = out.array.reshape(n, 12), back.array.reshape(n, 64)
    # f16 -> bf6 (E3M2, round to nearest even, saturating) and back to f16
    bcodes = _unpack6(o[:, 6:])
    np.testing.assert_array_equal(bcodes, enc(h.astype(np.float32) / s[:, None], md.float6_e3m2fn))
    np.testing.assert_array_equal(bk[:, :32], (dec(bcodes, md.float6_e3m2fn) * s[:, None]).astype(np.float16).view(np.uint16))
    # f32 -> fp6 stochastically: element k rounds with the seed stepped k times by v_prng_b32
    acodes = _unpack6(o[:, :6])
    r = seed.copy()
    for k in range(32):
        v = (x[:, k] / s).astype(np.float32)
        ok = np.abs(v) >= 1.0  # E2M3's normal range: the bit-level model holds (saturation at 7.5)
        m = np.minimum(_sr(np.abs(v).view(U), r.astype(np.uint64) >> np.uint64(12), 20).view(np.float32), 7.5)
        np.testing.assert_array_equal(acodes[ok, k], enc(np.copysign(m, v), FP6)[ok], err_msg=f"element {k}")
        r = prng(r)
    np.testing.assert_array_equal(bk[:, 32:], (dec(acodes, FP6) * s[:, None]).astype(BF16).view(np.uint16))

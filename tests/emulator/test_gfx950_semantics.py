"""gfx950 (CDNA4) on the emulator: the target comes from the code object (its LDS size, its
instruction table), and the new instructions' semantics on hand-written kernels assembled by
llvm-mc -mcpu=gfx950 (tests/emulator/gfx950_kernels.s); expected values from NumPy, ml_dtypes
and the CDNA4 ISA guide."""

import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator import Device
from gcnforge.testing import require_llvm

L = np.arange(64)
SRC = Path(__file__).with_name("gfx950_kernels.s")


def _build(d, mcpu, text):
    t = require_llvm("llvm-mc", "ld.lld")
    (d / "k.s").write_text(text)
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-filetype=obj", str(d / "k.s"),
                    "-o", str(d / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(d / "k.o"), "-o", str(d / "k.so")], check=True)
    return (d / "k.so").read_bytes()


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("g950"), "gfx950", SRC.read_text())


def run(code, name, nout, extra=b"", sanitize=True, block=64):
    dev = Device()
    out = dev.memory.alloc(4 * 64 * nout)
    dev.memory.write(out, b"\0" * (4 * 64 * nout))
    dev.run(code, name, struct.pack("<Q", out) + extra, (1, 1, 1), (block, 1, 1), sanitize=sanitize)
    return np.frombuffer(dev.memory.read(out, 4 * 64 * nout), np.uint32).reshape(nout, 64).copy()


def test_lds_is_160_kib_on_gfx950(code):
    o = run(code, "lds_big", 1)
    np.testing.assert_array_equal(o[0], 1000 + L)


def test_gfx942_object_keeps_64_kib_and_1024_work_items(code, tmp_path):
    text = SRC.read_text()
    head, rodata = text[: text.index("// The VALU additions")], text[text.index("\n.rodata\n"):]
    rodata = rodata[: rodata.index("KD lds_big, 163840") + len("KD lds_big, 163840")] + "\n"
    co = _build(tmp_path, "gfx942", (head + rodata).replace("gfx950", "gfx942"))
    with pytest.raises(Diagnostic, match="gfx942 has 65536 per workgroup"):
        run(co, "lds_big", 1)
    with pytest.raises(Diagnostic, match="exceeds gfx950's 1024"):
        run(code, "lds_big", 1, block=1025)


# ---- the VALU additions (kernel 'valu'); references from ml_dtypes, NumPy and bit-level models ----
import ml_dtypes as md  # noqa: E402

FP8, BF8, FP4, BF16 = md.float8_e4m3fn, md.float8_e5m2, md.float4_e2m1fn, md.bfloat16
U = np.uint32


def enc(x, dt):
    return np.asarray(x, np.float32).astype(dt).view(np.uint8).astype(U)


def dec(codes, dt):
    return (np.asarray(codes).astype(np.uint8)).view(dt).astype(np.float32)


def prng_ref(r):
    return np.array([((int(v) << 1) ^ (197 if int(v) >> 31 else 0)) & 0xFFFFFFFF for v in r], U)


def sr_ref(bits, rnd_add, drop):
    """Stochastic rounding on the bit pattern: add the random bits below the kept ones, truncate
    (valid in the normal range of the target, where the kept bits are the top of the source's)."""
    return ((bits.astype(np.uint64) + rnd_add) >> np.uint64(drop) << np.uint64(drop)).astype(U)


@pytest.fixture(scope="module")
def valu(code):
    rng = np.random.default_rng(5)
    A = (rng.standard_normal(64) * 4).astype(np.float32)
    B = (rng.standard_normal(64) * 4).astype(np.float32)
    S = np.ldexp(1.0, rng.integers(-3, 4, 64)).astype(np.float32) * np.where(rng.random(64) < 0.5, -1, 1).astype(np.float32)
    S = S * np.float32(1.5)  # only the exponent field is the scale (ISA 7.3): sign and mantissa ignored
    R = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(U)
    P = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(U)
    H = rng.standard_normal(128).astype(np.float16).view(U)
    H2 = rng.standard_normal(128).astype(np.float16).view(U)
    inp = np.concatenate([A.view(U), B.view(U), S.view(U), R, P, H, H2]).astype(U)
    dev = Device()
    ib = dev.memory.alloc(inp.nbytes)
    dev.memory.write(ib, inp.tobytes())
    n = 42
    ob = dev.memory.alloc(256 * n)
    dev.memory.write(ob, b"\0" * (256 * n))
    dev.run(code, "valu", struct.pack("<QQ", ob, ib), (1, 1, 1), (64, 1, 1), sanitize=True)
    o = np.frombuffer(dev.memory.read(ob, 256 * n), U).reshape(n, 64).copy()
    scale = np.ldexp(1.0, ((S.view(U) >> U(23)) & U(0xFF)).astype(np.int64) - 127)  # 2^(e-127)
    return o, dict(A=A, B=B, S=scale, R=R, P=P, H=H, H2=H2)


def test_scaled_conversions_to_fp8_bf8_fp4(valu):
    o, d = valu
    A, B, S = d["A"], d["B"], d["S"]
    np.testing.assert_array_equal(o[0], enc(A / S, FP8) | enc(B / S, FP8) << 8)
    np.testing.assert_array_equal(o[1], 0x5678 | (enc(A / S, BF8) | enc(B / S, BF8) << 8) << 16)
    np.testing.assert_array_equal(o[3], 0x345678 | (enc(A / S, FP4) | enc(B / S, FP4) << 4) << 24)
    h = d["H"].view(np.float16).astype(np.float32).reshape(64, 2)
    np.testing.assert_array_equal(o[11], enc(h[:, 0] / S, FP8) | enc(h[:, 1] / S, FP8) << 8)
    hb = (d["H"].astype(U) << U(16)).view(np.float32), (d["H"] & U(0xFFFF0000)).view(np.float32)
    np.testing.assert_array_equal(o[34] & 0xFF, enc(hb[0] / S, FP4) | enc(hb[1] / S, FP4) << 4)
    np.testing.assert_array_equal(o[17], enc(A, FP8) | enc(B, FP8) << 8)  # v_cvt_pk_fp8_f32: OCP on gfx950


def test_scaled_conversions_from_fp8_bf8_fp4(valu):
    o, d = valu
    P, S = d["P"], d["S"]
    byte = lambda k: (P >> U(8 * k)) & U(0xFF)  # noqa: E731
    f32 = lambda r: r.view(np.float32)  # noqa: E731
    np.testing.assert_array_equal(f32(o[4]), dec(byte(2), FP8) * S)
    np.testing.assert_array_equal(f32(o[5]), dec(byte(3), FP8) * S)
    np.testing.assert_array_equal(f32(o[6]), dec(byte(3), BF8) * S)
    np.testing.assert_array_equal(f32(o[7]), dec(byte(2) & U(15), FP4) * S)
    np.testing.assert_array_equal(f32(o[8]), dec(byte(2) >> U(4), FP4) * S)
    f16 = lambda c: (dec(c, FP8) * S).astype(np.float16).view(np.uint16).astype(U)  # noqa: E731
    np.testing.assert_array_equal(o[9], f16(byte(0)) | f16(byte(1)) << 16)
    bf = lambda c: (dec(c, BF8) * S).astype(BF16).view(np.uint16).astype(U)  # noqa: E731
    np.testing.assert_array_equal(o[10], bf(byte(2)) | bf(byte(3)) << 16)
    np.testing.assert_array_equal(o[33], 0x5678 | f16(byte(2)) << 16)
    np.testing.assert_array_equal(f32(o[18]), dec(byte(0), FP8))  # v_cvt_f32_fp8: OCP on gfx950
    np.testing.assert_array_equal(f32(o[37]), dec(byte(2), BF8))  # v_cvt_pk_f32_bf8 SDWA WORD_1
    np.testing.assert_array_equal(f32(o[38]), dec(byte(3), BF8))


def test_stochastic_rounding(valu):
    o, d = valu
    A, B, S, R = d["A"], d["B"], d["S"], d["R"]
    # scaled to FP8 (f32 source, the top 20 random bits under the kept mantissa); op_sel:[0,0,1,0]
    # is OPSEL[2]: the byte OPSEL[3:2] = 1
    v = (A / S).astype(np.float32)
    ok = (np.abs(v) >= 2.0**-6) & (np.abs(v) < 448)  # normal FP8 range
    want = enc(sr_ref(v.view(U), R.astype(np.uint64) >> np.uint64(12), 20).view(np.float32), FP8)
    np.testing.assert_array_equal(((o[2] >> 8) & 0xFF)[ok], want[ok])
    np.testing.assert_array_equal(o[2] & 0xFFFF00FF, 0x12340078)
    assert ok.sum() > 50
    # scaled pair to FP4: the second value rounds with v_prng_b32 of the random word
    got = o[12] & 0xFF
    for k, (x, r) in enumerate(((A, R), (B, prng_ref(R)))):
        v = (x / S).astype(np.float32)
        ok = np.abs(v) >= 1.0  # FP4's normal range (saturation above is the ISA's rule)
        ref = np.minimum(np.abs(sr_ref(np.abs(v).view(U), r.astype(np.uint64) >> np.uint64(10), 22).view(np.float32)), 6)
        want = enc(np.copysign(ref, v), FP4)
        np.testing.assert_array_equal(((got >> U(4 * k)) & U(15))[ok], want[ok])
    # scaled bf16 (the low half) -> BF8 (bf16 mantissa 7 bits: the top 5 random bits)
    hb = ((d["H"].astype(U) << U(16)).view(np.float32) / S).astype(np.float32)  # exact: S is 2^k
    ok = (np.abs(hb) >= 2.0**-14) & (np.abs(hb) < 57344)
    b16 = (hb.view(U) >> U(16)).astype(np.uint64)
    want = enc((sr_ref(b16, R.astype(np.uint64) >> np.uint64(27), 5) << U(16)).view(np.float32), BF8)
    np.testing.assert_array_equal(((o[35] >> 16) & 0xFF)[ok], want[ok])  # op_sel:[0,0,0,1]: OPSEL[3:2] = 2
    np.testing.assert_array_equal(o[35] & 0xFF00FFFF, 0x12005678)
    # v_cvt_sr_bf16_f32 / v_cvt_sr_f16_f32 (the random word's low bits; f16 to the high half)
    np.testing.assert_array_equal(o[15] & 0xFFFF, sr_ref(A.view(U), (R & U(0xFFFF)).astype(np.uint64), 16) >> U(16))
    f16 = sr_ref(A.view(U), (R & U(0x1FFF)).astype(np.uint64), 13).view(np.float32).astype(np.float16)
    np.testing.assert_array_equal(o[16], 0x5678 | f16.view(np.uint16).astype(U) << 16)


def test_packed_f16_bf16_conversions(valu):
    o, d = valu
    A, B = d["A"], d["B"]
    h = lambda x: x.astype(np.float16).view(np.uint16).astype(U)  # noqa: E731
    np.testing.assert_array_equal(o[13], h(A) | h(B) << 16)
    b = lambda x: x.astype(BF16).view(np.uint16).astype(U)  # noqa: E731
    np.testing.assert_array_equal(o[14], b(A) | b(B) << 16)
    np.testing.assert_array_equal(o[31], (d["H"] & U(0xFFFF)) << U(16))  # v_cvt_f32_bf16
    np.testing.assert_array_equal(o[40], (d["H"] & U(0xFFFF0000)) ^ U(0x80000000))  # SDWA WORD_1, neg


def test_integer_and_bitwise(valu):
    o, d = valu
    a, b, r = d["A"].view(U), d["B"].view(U), d["R"]
    np.testing.assert_array_equal(o[19], prng_ref(r))
    np.testing.assert_array_equal(o[39], prng_ref(r[L ^ 1]))  # DPP quad_perm:[1,0,3,2]
    np.testing.assert_array_equal(o[20], (a & b) | (a & r) | (b & r))  # bitop3:0xe8 = majority
    np.testing.assert_array_equal(o[21], 0x5678 | (((a >> 16) ^ (b & 0xFFFF) ^ (r >> 16)) & 0xFFFF) << 16)
    sh = (r & 31).astype(np.int64)
    ai, bi = a.view(np.int32).astype(np.int64) >> sh, b.view(np.int32).astype(np.int64) >> sh
    np.testing.assert_array_equal(o[22], (np.clip(ai, -128, 127) & 0xFF) | (np.clip(bi, -128, 127) & 0xFF) << 8)
    np.testing.assert_array_equal(o[23], 0x5678 | (np.clip(ai, 0, 255) | np.clip(bi, 0, 255) << 8) << 16)


def test_ieee_minimum_maximum(valu):
    o, d = valu
    A, B, H = d["A"], d["B"], d["H"].view(np.float32)
    np.testing.assert_array_equal(o[24].view(np.float32), np.minimum(np.minimum(A, B), H))  # NaN propagates
    np.testing.assert_array_equal(o[25].view(np.float32), np.maximum(np.maximum(A, B), H))
    half = lambda x, k: ((x >> U(16 * k)) & U(0xFFFF)).astype(np.uint16).view(np.float16)  # noqa: E731
    H, H2, P = d["H"], d["H2"], d["P"]
    for k in (0, 1):
        got = half(o[26], k)
        np.testing.assert_array_equal(got, np.minimum(np.minimum(half(H, k), half(H2, k)), half(P, k)))
    # op_sel:[1,0,0] op_sel_hi:[0,1,1]: the low result from H's high half, the high from its low half
    np.testing.assert_array_equal(half(o[36], 0), np.maximum(np.maximum(half(H, 1), half(H2, 0)), half(P, 0)))
    np.testing.assert_array_equal(half(o[36], 1), np.maximum(np.maximum(half(H, 0), half(H2, 1)), half(P, 1)))


def test_permlane_swaps_write_both_registers(valu):
    o, d = valu
    A, B = d["A"].view(U), d["B"].view(U)
    odd = (L // 16) % 2 == 1
    np.testing.assert_array_equal(o[27], np.where(odd, B[L - 16], A))  # v38 = A: odd rows from B's even rows
    np.testing.assert_array_equal(o[28], np.where(~odd, A[(L + 16) % 64], B))  # v39 = B: even rows from A's odd
    np.testing.assert_array_equal(o[29], np.where(L >= 32, B[L - 32], A))
    np.testing.assert_array_equal(o[30], np.where(L < 32, A[(L + 32) % 64], B))


def test_dot2c_f32_bf16(valu):
    o, d = valu
    bf = lambda x, k: ((x >> U(16 * k)) & U(0xFFFF)).astype(U) << U(16)  # noqa: E731
    want = d["A"].astype(np.float64) + sum(bf(d["H"], k).view(np.float32).astype(np.float64)
                                            * bf(d["H2"], k).view(np.float32).astype(np.float64) for k in (0, 1))
    np.testing.assert_allclose(o[32].view(np.float32), want.astype(np.float32), rtol=1e-6)
    # DPP row_shr:1 bound_ctrl: src0 (H) from lane l-1 of its 16-lane row, 0 for the row's first lane
    src = np.where(L % 16 == 0, 0, d["H"][np.maximum(L - 1, 0)]).astype(U)
    want = d["A"].astype(np.float64) + sum(bf(src, k).view(np.float32).astype(np.float64)
                                            * bf(d["H2"], k).view(np.float32).astype(np.float64) for k in (0, 1))
    np.testing.assert_allclose(o[41].view(np.float32), want.astype(np.float32), rtol=1e-6)


# ---- loads to LDS of 3/4 dwords, transposing LDS reads (kernel 'mem') -----------------------------
@pytest.fixture(scope="module")
def mem(code):
    rng = np.random.default_rng(1)
    data = rng.integers(0, 2**32, 256, dtype=np.uint64).astype(U)
    pattern = rng.integers(0, 256, 2048, dtype=np.uint64).astype(np.uint8)
    inp = np.concatenate([data.view(np.uint8), pattern])
    dev = Device()
    ib = dev.memory.alloc(inp.nbytes)
    dev.memory.write(ib, inp.tobytes())
    n = 21
    ob = dev.memory.alloc(256 * n)
    dev.memory.write(ob, b"\0" * (256 * n))
    dev.run(code, "mem", struct.pack("<QQ", ob, ib), (1, 1, 1), (64, 1, 1), sanitize=True)
    return np.frombuffer(dev.memory.read(ob, 256 * n), U).reshape(n, 64).copy(), data.reshape(64, 4), pattern


def test_loads_of_3_and_4_dwords_to_lds(mem):
    """CDNA4 ISA 9.1.9 / 10.2: LDS_ADDR = M0 + offset + TID*16 for 3 and 4 dwords; x3 skips the 4th."""
    o, data, _ = mem
    np.testing.assert_array_equal(o[0:4].T, data)  # global_load_lds_dwordx4, M0 = 0
    np.testing.assert_array_equal(o[4:7].T, data[:, :3])  # global_load_lds_dwordx3, M0 = 0x1000
    np.testing.assert_array_equal(o[7], 0xAAAAAAAA)  # its 4th dword untouched
    np.testing.assert_array_equal(o[8:12].T, data)  # buffer_load_dwordx4 ... lds, M0 = 0x2000


def _fields(stream: np.ndarray, bits: int) -> np.ndarray:
    b = np.unpackbits(stream, bitorder="little").reshape(-1, bits)
    return (b.astype(np.int64) << np.arange(bits)).sum(axis=1)


@pytest.mark.parametrize("first,nbytes,bits", [(12, 8, 16), (14, 8, 8), (16, 8, 4), (18, 12, 6)])
def test_transposing_lds_reads(mem, first, nbytes, bits):
    """CDNA4 ISA 11.4: each block of 16 lanes loads an E x 16 tile (E = elements per lane, the
    lanes' loads back to back, row after row) and lane i receives column i: element r of lane i
    is element 16r + i of its block's loads (ds_read_b64_tr_b16/b8/b4, ds_read_b96_tr_b6; lane l
    reads at 8l, or 16l for b96)."""
    o, _, pattern = mem
    e = nbytes * 8 // bits
    stride = 16 if nbytes == 12 else nbytes
    got = o[first : first + nbytes // 4].T.copy().view(np.uint8)  # (64, nbytes): each lane's result bytes
    for lane in range(64):
        blk, i = divmod(lane, 16)
        loads = np.concatenate([pattern[stride * lk : stride * lk + nbytes] for lk in range(16 * blk, 16 * blk + 16)])
        want = _fields(loads, bits)[16 * np.arange(e) + i]
        np.testing.assert_array_equal(_fields(got[lane], bits), want, err_msg=f"lane {lane}")


@pytest.mark.parametrize("first_arg,kind", [(1, "exec"), (0, "misaligned")])
def test_sanitizer_transposing_read_rules(code, first_arg, kind):
    """CDNA4 ISA 11.4: EXEC all ones and the address aligned to the data size (8 bytes)."""
    dev = Device()
    with pytest.raises(Diagnostic) as e:
        dev.run(code, "tr_bad", struct.pack("<II", first_arg, 0), (1, 1, 1), (64, 1, 1), sanitize=True)
    assert e.value.kind == kind and "ds_read_b64_tr" in str(e.value)
    dev.run(code, "tr_bad", struct.pack("<II", first_arg, 0), (1, 1, 1), (64, 1, 1))  # runs without the sanitizer


@pytest.mark.parametrize("m", ["v_permlane16_swap_b32_e32", "v_permlane32_swap_b32_e64"])
def test_permlane_swaps_read_and_write_both_registers_in_the_table(m):
    """Both operands are read and written (CDNA4 ISA V_PERMLANE16_SWAP_B32 pseudo-code; clang's
    __builtin_amdgcn_permlane16_swap returns both new values, see test_kernels_gfx950): the
    table says so, so the sanitizer, liveness and waits see the source register as written."""
    from gcnforge.isa import table
    from gcnforge.isa.schema import Role

    inst = table.by_mnemonic(m, target="gfx950")
    assert [o.role for o in inst.operands] == [Role.DEFUSE, Role.DEFUSE]

"""Every dense gfx942 MFMA, called from OpenCL C through ``__builtin_amdgcn_mfma_*`` and
compiled by clang 22, run on the emulator and checked against NumPy.

Each kernel loads A, B, C register images lane by lane (buffer[reg * 64 + lane]), calls
the builtin once and stores D. The reference places random matrices into those register
images with AMD's documented layouts (data/mfma_layouts.json, from AMD's Matrix
Instruction Calculator), multiplies with NumPy and reads the expected D back through the
same layouts. A separate GEMM test (test_mfma_gemm) checks a full matrix product using
the well-known 32x32x8 f16 layout written out independently."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gcnforge.testing import require_llvm

from harness import Buf, build_cl, run

LAYOUTS = json.loads((Path(__file__).parents[2] / "python/gcnforge/isa/data/mfma_layouts.json").read_text())

# mnemonic -> (builtin, A type, B type, C/D type, dwords of A, dwords of B)
BUILTINS = {
    "v_mfma_f32_32x32x1_2b_f32": ("mfma_f32_32x32x1f32", "float", "float", 32),
    "v_mfma_f32_16x16x1_4b_f32": ("mfma_f32_16x16x1f32", "float", "float", 16),
    "v_mfma_f32_4x4x1_16b_f32": ("mfma_f32_4x4x1f32", "float", "float", 4),
    "v_mfma_f32_32x32x2_f32": ("mfma_f32_32x32x2f32", "float", "float", 16),
    "v_mfma_f32_16x16x4_f32": ("mfma_f32_16x16x4f32", "float", "float", 4),
    "v_mfma_f32_32x32x4_2b_f16": ("mfma_f32_32x32x4f16", "half4", "float", 32),
    "v_mfma_f32_16x16x4_4b_f16": ("mfma_f32_16x16x4f16", "half4", "float", 16),
    "v_mfma_f32_4x4x4_16b_f16": ("mfma_f32_4x4x4f16", "half4", "float", 4),
    "v_mfma_f32_32x32x8_f16": ("mfma_f32_32x32x8f16", "half4", "float", 16),
    "v_mfma_f32_16x16x16_f16": ("mfma_f32_16x16x16f16", "half4", "float", 4),
    "v_mfma_i32_32x32x4_2b_i8": ("mfma_i32_32x32x4i8", "int", "int", 32),
    "v_mfma_i32_16x16x4_4b_i8": ("mfma_i32_16x16x4i8", "int", "int", 16),
    "v_mfma_i32_4x4x4_16b_i8": ("mfma_i32_4x4x4i8", "int", "int", 4),
    "v_mfma_i32_32x32x16_i8": ("mfma_i32_32x32x16_i8", "long", "int", 16),
    "v_mfma_i32_16x16x32_i8": ("mfma_i32_16x16x32_i8", "long", "int", 4),
    "v_mfma_f32_32x32x4_2b_bf16": ("mfma_f32_32x32x4bf16_1k", "short4", "float", 32),
    "v_mfma_f32_16x16x4_4b_bf16": ("mfma_f32_16x16x4bf16_1k", "short4", "float", 16),
    "v_mfma_f32_4x4x4_16b_bf16": ("mfma_f32_4x4x4bf16_1k", "short4", "float", 4),
    "v_mfma_f32_32x32x8_bf16": ("mfma_f32_32x32x8bf16_1k", "short4", "float", 16),
    "v_mfma_f32_16x16x16_bf16": ("mfma_f32_16x16x16bf16_1k", "short4", "float", 4),
    "v_mfma_f64_16x16x4_f64": ("mfma_f64_16x16x4f64", "double", "double", 4),
    "v_mfma_f64_4x4x4_4b_f64": ("mfma_f64_4x4x4f64", "double", "double", 1),
    "v_mfma_f32_16x16x8_xf32": ("mfma_f32_16x16x8_xf32", "float2", "float", 4),
    "v_mfma_f32_32x32x4_xf32": ("mfma_f32_32x32x4_xf32", "float2", "float", 16),
}
for _s in ("16x16x32", "32x32x16"):
    for _a in ("fp8", "bf8"):
        for _b in ("fp8", "bf8"):
            BUILTINS[f"v_mfma_f32_{_s}_{_a}_{_b}"] = (f"mfma_f32_{_s}_{_a}_{_b}", "long", "float",
                                                       4 if _s == "16x16x32" else 16)

DENSE = {n for n, t in LAYOUTS["instructions"].items() if not t.get("sparse")}
assert set(BUILTINS) == DENSE, DENSE ^ set(BUILTINS)

# sparse (4:2) SMFMAC: mnemonic -> (builtin, A type, B type, C/D type, D count)
SPARSE = {
    "v_smfmac_f32_16x16x32_f16": ("smfmac_f32_16x16x32_f16", "half4", "half8", "float", 4),
    "v_smfmac_f32_32x32x16_f16": ("smfmac_f32_32x32x16_f16", "half4", "half8", "float", 16),
    "v_smfmac_f32_16x16x32_bf16": ("smfmac_f32_16x16x32_bf16", "short4", "short8", "float", 4),
    "v_smfmac_f32_32x32x16_bf16": ("smfmac_f32_32x32x16_bf16", "short4", "short8", "float", 16),
    "v_smfmac_i32_16x16x64_i8": ("smfmac_i32_16x16x64_i8", "int2", "int4", "int", 4),
    "v_smfmac_i32_32x32x32_i8": ("smfmac_i32_32x32x32_i8", "int2", "int4", "int", 16),
}
for _s, _d in (("16x16x64", 4), ("32x32x32", 16)):
    for _a in ("fp8", "bf8"):
        for _b in ("fp8", "bf8"):
            SPARSE[f"v_smfmac_f32_{_s}_{_a}_{_b}"] = (f"smfmac_f32_{_s}_{_a}_{_b}", "int2", "int4", "float", _d)
assert set(SPARSE) == set(LAYOUTS["instructions"]) - DENSE

_DWORDS = {"float": 1, "half4": 2, "int": 1, "long": 2, "short4": 2, "double": 2, "float2": 2,
           "half8": 4, "short8": 4, "int2": 2, "int4": 4}


def _source() -> str:
    out = ["#pragma OPENCL EXTENSION cl_khr_fp16 : enable", "#pragma OPENCL EXTENSION cl_khr_fp64 : enable",
           "typedef float f32x32 __attribute__((ext_vector_type(32)));",
           "typedef int i32x32 __attribute__((ext_vector_type(32)));",
           "typedef double f64x4 __attribute__((ext_vector_type(4)));"]
    for name, (bi, at, ct, cn) in BUILTINS.items():
        na = _DWORDS[at]
        ctype = {("float", 32): "f32x32", ("int", 32): "i32x32", ("double", 4): "f64x4"}.get(
            (ct, cn), ct if cn == 1 else f"{ct}{cn}")
        cd = cn * (2 if ct == "double" else 1)
        out.append(f"""
__kernel void k_{name}(__global uint* D, __global const uint* A, __global const uint* B, __global const uint* C,
                       int cbsz_unused) {{
  int l = (int)__builtin_amdgcn_workitem_id_x();
  union {{ uint u[{na}]; {at} v; }} a, b;
  union {{ uint u[{cd}]; {ctype} v; }} c, d;
  for (int r = 0; r < {na}; r++) {{ a.u[r] = A[r * 64 + l]; b.u[r] = B[r * 64 + l]; }}
  for (int r = 0; r < {cd}; r++) c.u[r] = C[r * 64 + l];
  d.v = __builtin_amdgcn_{bi}(a.v, b.v, c.v, 0, 0, 0);
  for (int r = 0; r < {cd}; r++) D[r * 64 + l] = d.u[r];
}}""")
    for name, (bi, at, bt, ct, cn) in SPARSE.items():
        na, nb = _DWORDS[at], _DWORDS[bt]
        ctype = {("float", 16): "float16", ("int", 16): "int16"}.get((ct, cn), f"{ct}{cn}")
        out.append(f"""
__kernel void k_{name}(__global uint* D, __global const uint* A, __global const uint* B, __global const uint* C,
                       int idx_unused) {{
  int l = (int)__builtin_amdgcn_workitem_id_x();
  union {{ uint u[{na}]; {at} v; }} a;
  union {{ uint u[{nb}]; {bt} v; }} b;
  union {{ uint u[{cn}]; {ct if cn == 1 else ctype} v; }} c;
  for (int r = 0; r < {na}; r++) a.u[r] = A[r * 64 + l];
  for (int r = 0; r < {nb}; r++) b.u[r] = B[r * 64 + l];
  for (int r = 0; r < {cn}; r++) c.u[r] = D[r * 64 + l];
  int idx = (int)C[l];
  c.v = __builtin_amdgcn_{bi}(a.v, b.v, c.v, idx, 0, 0);
  for (int r = 0; r < {cn}; r++) D[r * 64 + l] = c.u[r];
}}""")
    return "\n".join(out)


def _values(ty: str, shape, rng):
    """Random element values and their bit patterns for a layout element type."""
    if ty == "FP32":
        v = rng.uniform(-2, 2, shape).astype(np.float32)
        return v.astype(np.float64), v.view(np.uint32).astype(np.uint64)
    if ty == "FP16":
        v = rng.uniform(-2, 2, shape).astype(np.float16)
        return v.astype(np.float64), v.view(np.uint16).astype(np.uint64)
    if ty == "BF16":
        v = (rng.uniform(-2, 2, shape).astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
        return v.astype(np.float64), (v.view(np.uint32) >> 16).astype(np.uint64)
    if ty == "FP64":
        v = rng.uniform(-2, 2, shape)
        return v, v.view(np.uint64)
    if ty == "int8":
        v = rng.integers(-128, 128, shape)
        return v, (v & 0xFF).astype(np.uint64)
    if ty == "int32":
        v = rng.integers(-(2**20), 2**20, shape)
        return v, (v & 0xFFFFFFFF).astype(np.uint64)
    if ty in ("FP8", "BF8"):
        # codes 0..127 and 128..255 except 0x80 (NaN); values from the FNUZ definition
        codes = rng.integers(0, 256, shape)
        codes = np.where(codes == 0x80, 0, codes)
        mb, bias = (3, 8) if ty == "FP8" else (2, 16)
        mag = codes & 0x7F
        e, m = mag >> mb, mag & ((1 << mb) - 1)
        val = np.where(e == 0, m / 2.0**mb * 2.0 ** (1 - bias), (1 + m / 2.0**mb) * 2.0 ** (e - bias))
        return np.where(codes & 0x80, -val, val), codes.astype(np.uint64)
    raise ValueError(ty)


def _place(lay, bits_arr, nregs, rng_fill):
    """Put element bit patterns (blocks, rows, cols) into a (nregs, 64) uint32 register image."""
    regs = np.zeros((nregs, 64), np.uint64)
    cols = lay["cols"]
    for lane, c, i, j, b in lay["cells"]:
        reg, lo, bits = cols[c]
        v = int(bits_arr[b, i, j])
        if bits == 64:
            regs[reg, lane] = v & 0xFFFFFFFF
            regs[reg + 1, lane] = v >> 32
        else:
            regs[reg, lane] |= np.uint64(v << lo)
    return regs.astype(np.uint32)


def _read(lay, regs, blocks, m, n):
    out = np.zeros((blocks, m, n), np.uint64)
    for lane, c, i, j, b in lay["cells"]:
        reg, lo, bits = lay["cols"][c]
        v = int(regs[reg, lane])
        if bits == 64:
            v |= int(regs[reg + 1, lane]) << 32
        out[b, i, j] = v
    return out


@pytest.fixture(scope="module")
def mfma_code():
    tools = require_llvm("clang", "ld.lld")
    return build_cl(_source(), tools)


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_mfma(mfma_code, name):
    t = LAYOUTS["instructions"][name]
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    m, n, k, nb = t["m"], t["n"], t["k"], t["blocks"]
    ty = t["types"]
    A, Abits = _values(ty["Src0"], (nb, m, k), rng)
    B, Bbits = _values(ty["Src1"], (nb, k, n), rng)
    C, Cbits = _values(ty["Src2"], (nb, m, n), rng)
    ga, gb, gd = t["gprs"]["A"], t["gprs"]["B"], t["gprs"]["D"]
    Aregs = _place(t["A"], Abits, ga, rng)
    Bregs = _place(t["B"], Bbits, gb, rng)
    Cregs = _place(t["D"], Cbits, gd, rng)
    D = Buf(np.zeros((gd, 64), np.uint32))
    run(mfma_code, f"k_{name}", [D, Buf(Aregs), Buf(Bregs), Buf(Cregs), np.int32(0)], (1,), (64,))
    got_bits = _read(t["D"], D.array, nb, m, n)
    if name.endswith("_xf32"):  # XF32 multiplies with reduced-precision inputs
        exp = np.einsum("bik,bkj->bij", A, B) + C
        got = got_bits.astype(np.uint32).view(np.float32)
        np.testing.assert_allclose(got, exp, rtol=2e-3, atol=2e-3 * k)
    elif ty["Vdst"] == "int32":
        exp = np.einsum("bik,bkj->bij", A, B) + C
        np.testing.assert_array_equal(got_bits.astype(np.uint32).view(np.int32), exp.astype(np.int32))
    elif ty["Vdst"] == "FP64":
        exp = np.einsum("bik,bkj->bij", A, B) + C
        np.testing.assert_allclose(got_bits.view(np.float64), exp, rtol=1e-13, atol=1e-13)
    else:
        exp = np.einsum("bik,bkj->bij", A, B) + C
        got = got_bits.astype(np.uint32).view(np.float32)
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_smfmac(mfma_code, name):
    """4:2 sparse A: per chunk of 4, two stored values and their 2-bit positions in Src2."""
    t = LAYOUTS["instructions"][name]
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    m, n, k = t["m"], t["n"], t["k"]
    ty = t["types"]
    vals, vbits = _values(ty["Src0"], (m, k // 4, 2), rng)
    pos = np.array([sorted(rng.choice(4, 2, replace=False)) for _ in range(m * (k // 4))]).reshape(m, k // 4, 2)
    A = np.zeros((m, k))
    for i in range(m):
        for c in range(k // 4):
            A[i, 4 * c + pos[i, c, 0]] = vals[i, c, 0]
            A[i, 4 * c + pos[i, c, 1]] = vals[i, c, 1]
    B, Bbits = _values(ty["Src1"], (1, k, n), rng)
    C, Cbits = _values(ty["Vdst"], (1, m, n), rng)
    Aregs = np.zeros((t["gprs"]["A"], 64), np.uint64)
    Kreg = np.zeros(64, np.uint64)
    seen = set()
    for lane, col, i, kk, _b in t["A"]["cells"]:
        c = kk // 4
        if (lane, col, c) in seen:
            continue
        seen.add((lane, col, c))
        reg, lo, bits = t["A"]["cols"][col]
        h = bits // 2
        Aregs[reg, lane] |= np.uint64((int(vbits[i, c, 0]) << lo) | (int(vbits[i, c, 1]) << (lo + h)))
    seen = set()
    for lane, col, i, kk, _b in t["K"]["cells"]:
        c = kk // 4
        if (lane, col, c) in seen:
            continue
        seen.add((lane, col, c))
        _reg, lo, _bits = t["K"]["cols"][col]
        Kreg[lane] |= np.uint64((int(pos[i, c, 0]) | (int(pos[i, c, 1]) << 2)) << lo)
    Bregs = _place(t["B"], Bbits, t["gprs"]["B"], rng)
    Dregs = _place(t["D"], Cbits, t["gprs"]["D"], rng)
    D = Buf(Dregs)
    run(mfma_code, f"k_{name}", [D, Buf(Aregs.astype(np.uint32)), Buf(Bregs), Buf(Kreg.astype(np.uint32)[None, :]),
                                 np.int32(0)], (1,), (64,))
    got_bits = _read(t["D"], D.array, 1, m, n)
    exp = A @ B[0] + C[0]
    if ty["Vdst"] == "int32":
        np.testing.assert_array_equal(got_bits[0].astype(np.uint32).view(np.int32), exp.astype(np.int32))
    else:
        np.testing.assert_allclose(got_bits[0].astype(np.uint32).view(np.float32), exp, rtol=1e-5, atol=1e-5)


GEMM = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef float f32x16 __attribute__((ext_vector_type(16)));
// C[32x32] = A[32xK] * B[Kx32] with v_mfma_f32_32x32x8_f16: lane l holds A[l%32][k0 + 4*(l/32) + 0..3]
// and B[k0 + 4*(l/32) + 0..3][l%32]; D register r of lane l is C[8*(r/4) + 4*(l/32)... ] per AMD's
// published 32x32x8 layout: row = (r%4) + 8*(r/4) + 4*(l/32), col = l%32.
__kernel void gemm32(__global float* Cm, __global const half* Am, __global const half* Bm, int K) {
  int l = (int)__builtin_amdgcn_workitem_id_x();
  f32x16 acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 8) {
    half4 a, b;
    for (int e = 0; e < 4; e++) {
      a[e] = Am[(l % 32) * K + k0 + 4 * (l / 32) + e];
      b[e] = Bm[(k0 + 4 * (l / 32) + e) * 32 + (l % 32)];
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  }
  for (int r = 0; r < 16; r++) Cm[((r % 4) + 8 * (r / 4) + 4 * (l / 32)) * 32 + (l % 32)] = acc[r];
}
"""


def test_mfma_gemm():
    tools = require_llvm("clang", "ld.lld")
    code = build_cl(GEMM, tools)
    rng = np.random.default_rng(7)
    K = 64
    A = rng.uniform(-1, 1, (32, K)).astype(np.float16)
    B = rng.uniform(-1, 1, (K, 32)).astype(np.float16)
    C = Buf(np.zeros((32, 32), np.float32))
    run(code, "gemm32", [C, Buf(A), Buf(B), np.int32(K)], (1,), (64,))
    np.testing.assert_allclose(C.array, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-5, atol=1e-5)

"""gfx950 (CDNA4) MFMAs called from OpenCL C through ``__builtin_amdgcn_*``, compiled by clang 22
for ``-mcpu=gfx950``, run on the emulator and checked against NumPy.

As in test_mfma.py, each kernel loads A, B, C register images lane by lane
(buffer[reg * 64 + lane]), calls the builtin once and stores D. The images are filled from
random matrices through the layouts in data/mfma_layouts_gfx950.json (CDNA4 rule, checked
against AMD's published examples in tests/emulator/test_mfma_layouts_gfx950.py). Element values
come from ml_dtypes (an independent implementation of the OCP fp8/fp6/fp4/E8M0 formats), the
product from NumPy in float64. Covered: the new f16/bf16/i8 shapes, both f8f6f4 shapes for every
CBSZ x BLGP format pair, unscaled and block-scaled (E8M0 scales per 32 K-elements with every
op_sel byte), the CDNA3 fp8/bf8 MFMAs and SMFMACs, which read OCP fp8 on gfx950, and the 14 SMFMACs
new in gfx950 (each ABID index set of the 16-bit ones, the other set filled with random bits).

clang 22 turns ``__builtin_amdgcn_mfma_scale_*`` with constant scale 0 into the unscaled
``v_mfma_f32_*_f8f6f4`` (checked below with llvm-objdump), so the unscaled kernels pass 0 and
the scaled kernels load their scales from memory."""

from __future__ import annotations

import os
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnforge.isa import table
from gcnforge.testing import require_llvm

from harness import _OUT, Buf, run

ml_dtypes = pytest.importorskip("ml_dtypes")

ROOT = Path(__file__).parents[2]
L950 = json.loads((ROOT / "python/gcnforge/isa/data/mfma_layouts_gfx950.json").read_text())["instructions"]
L942 = json.loads((ROOT / "python/gcnforge/isa/data/mfma_layouts.json").read_text())["instructions"]

# element type -> (ml_dtypes dtype name, bits) ; codes that are NaN/Inf are left out of the random data
OCP = {"FP8": ("float8_e4m3fn", 8), "BF8": ("float8_e5m2", 8), "FP6": ("float6_e2m3fn", 6),
       "BF6": ("float6_e3m2fn", 6), "FP4": ("float4_e2m1fn", 4)}
FORMATS = ["FP8", "BF8", "FP6", "BF6", "FP4"]  # CBSZ / BLGP value = index

DENSE = {  # new gfx950 shapes: mnemonic -> (builtin, OpenCL A/B type, dwords, C/D type)
    "v_mfma_f32_16x16x32_f16": ("mfma_f32_16x16x32_f16", "half8", "float4"),
    "v_mfma_f32_32x32x16_f16": ("mfma_f32_32x32x16_f16", "half8", "float16"),
    "v_mfma_f32_16x16x32_bf16": ("mfma_f32_16x16x32_bf16", "bf16x8", "float4"),
    "v_mfma_f32_32x32x16_bf16": ("mfma_f32_32x32x16_bf16", "bf16x8", "float16"),
    "v_mfma_i32_16x16x64_i8": ("mfma_i32_16x16x64_i8", "int4", "int4"),
    "v_mfma_i32_32x32x32_i8": ("mfma_i32_32x32x32_i8", "int4", "int16"),
}
CDNA3_FP8 = {f"v_mfma_f32_{s}_{a}_{b}": (f"mfma_f32_{s}_{a}_{b}", "long", "float4" if s == "16x16x32" else "float16")
             for s in ("16x16x32", "32x32x16") for a in ("fp8", "bf8") for b in ("fp8", "bf8")}
SPARSE_FP8 = {f"v_smfmac_f32_{s}_{a}_{b}": (f"smfmac_f32_{s}_{a}_{b}", "float4" if s == "16x16x64" else "float16")
              for s in ("16x16x64", "32x32x32") for a in ("fp8", "bf8") for b in ("fp8", "bf8")}
F8F6F4 = {"16x16x128": "float4", "32x32x64": "float16"}
# gfx950's new SMFMACs: mnemonic -> (builtin, OpenCL A type (4 dwords, compressed), B type (8 dwords), C/D type)
SPARSE950 = {
    **{f"v_smfmac_f32_{s}_{t}": (f"smfmac_f32_{s}_{t}", a, b, c)
       for s, c in (("16x16x64", "float4"), ("32x32x32", "float16"))
       for t, a, b in (("f16", "half8", "half16"), ("bf16", "bf16x8", "bf16x16"))},
    "v_smfmac_i32_16x16x128_i8": ("smfmac_i32_16x16x128_i8", "int4", "int8v", "int4"),
    "v_smfmac_i32_32x32x64_i8": ("smfmac_i32_32x32x64_i8", "int4", "int8v", "int16"),
    **{f"v_smfmac_f32_{s}_{x}_{y}": (f"smfmac_f32_{s}_{x}_{y}", "int4", "int8v", c)
       for s, c in (("16x16x128", "float4"), ("32x32x64", "float16")) for x in ("fp8", "bf8") for y in ("fp8", "bf8")},
}
# the index set each kernel selects (ABID; CBSZ 0): 16-bit sources have two 16-bit sets, 8-bit sources one
SPARSE950_CASES = [(nm, abid) for nm in sorted(SPARSE950) for abid in ((0, 1) if "f16" in nm else (0,))]
PAIRS = [(a, b) for a in range(5) for b in range(5)]


def _dwords(ty: str) -> int:
    return {"half8": 4, "bf16x8": 4, "int4": 4, "long": 2, "float4": 4, "float16": 16, "int16": 16, "half16": 8,
            "bf16x16": 8, "int8v": 8}[ty]


def _source() -> str:
    out = ["#pragma OPENCL EXTENSION cl_khr_fp16 : enable",
           "typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));",
           "typedef int int8v __attribute__((ext_vector_type(8)));",
           "typedef half half16 __attribute__((ext_vector_type(16)));",
           "typedef __bf16 bf16x16 __attribute__((ext_vector_type(16)));"]

    def kernel(name, at, na, nb, ct, call):
        nc = _dwords(ct)
        out.append(f"""
__kernel void {name}(__global uint* D, __global const uint* A, __global const uint* B, __global const uint* C,
                     __global const uint* S) {{
  int l = (int)__builtin_amdgcn_workitem_id_x();
  union {{ uint u[8]; {at} v; }} a, b;
  union {{ uint u[{nc}]; {ct} v; }} c, d;
  for (int r = 0; r < 8; r++) {{ a.u[r] = r < {na} ? A[r * 64 + l] : 0u; b.u[r] = r < {nb} ? B[r * 64 + l] : 0u; }}
  for (int r = 0; r < {nc}; r++) c.u[r] = C[r * 64 + l];
  uint sa = S[l], sb = S[64 + l];
  d.v = {call};
  for (int r = 0; r < {nc}; r++) D[r * 64 + l] = d.u[r];
}}""")

    for name, (bi, at, ct) in {**DENSE, **CDNA3_FP8}.items():
        n = _dwords(at)
        kernel(f"k_{name}", at, n, n, ct, f"__builtin_amdgcn_{bi}(a.v, b.v, c.v, 0, 0, 0)")
    for name, (bi, ct) in SPARSE_FP8.items():  # A: 2 dwords (compressed), B: 4, index: S[l]
        out.append(f"""
__kernel void k_{name}(__global uint* D, __global const uint* A, __global const uint* B, __global const uint* C,
                     __global const uint* S) {{
  int l = (int)__builtin_amdgcn_workitem_id_x();
  union {{ uint u[2]; int2 v; }} a;
  union {{ uint u[4]; int4 v; }} b;
  union {{ uint u[{_dwords(ct)}]; {ct} v; }} c;
  for (int r = 0; r < 2; r++) a.u[r] = A[r * 64 + l];
  for (int r = 0; r < 4; r++) b.u[r] = B[r * 64 + l];
  for (int r = 0; r < {_dwords(ct)}; r++) c.u[r] = C[r * 64 + l];
  c.v = __builtin_amdgcn_{bi}(a.v, b.v, c.v, (int)S[l], 0, 0);
  for (int r = 0; r < {_dwords(ct)}; r++) D[r * 64 + l] = c.u[r];
}}""")
    for name, abid in SPARSE950_CASES:  # A: 4 dwords (compressed), B: 8, index: S[l]
        bi, at, bt, ct = SPARSE950[name]
        nc = _dwords(ct)
        out.append(f"""
__kernel void k_{name}_abid{abid}(__global uint* D, __global const uint* A, __global const uint* B,
                     __global const uint* C, __global const uint* S) {{
  int l = (int)__builtin_amdgcn_workitem_id_x();
  union {{ uint u[4]; {at} v; }} a;
  union {{ uint u[8]; {bt} v; }} b;
  union {{ uint u[{nc}]; {ct} v; }} c;
  for (int r = 0; r < 4; r++) a.u[r] = A[r * 64 + l];
  for (int r = 0; r < 8; r++) b.u[r] = B[r * 64 + l];
  for (int r = 0; r < {nc}; r++) c.u[r] = C[r * 64 + l];
  c.v = __builtin_amdgcn_{bi}(a.v, b.v, c.v, (int)S[l], 0, {abid});
  for (int r = 0; r < {nc}; r++) D[r * 64 + l] = c.u[r];
}}""")
    for shape, ct in F8F6F4.items():
        for fa, fb in PAIRS:
            na, nb = (L950[f"v_mfma_f32_{shape}_f8f6f4"]["formats"][FORMATS[f]]["gprs"] for f in (fa, fb))
            bi = f"__builtin_amdgcn_mfma_scale_f32_{shape}_f8f6f4"
            kernel(f"k_{shape}_{fa}{fb}", "int8v", na, nb, ct, f"{bi}(a.v, b.v, c.v, {fa}, {fb}, 0, 0, 0, 0)")
            oa, ob = (fa + fb) % 4, (fa + 2 * fb + 1) % 4  # every op_sel byte for A and for B
            kernel(f"k_{shape}_{fa}{fb}_scaled", "int8v", na, nb, ct,
                   f"{bi}(a.v, b.v, c.v, {fa}, {fb}, {oa}, sa, {ob}, sb)")
    return "\n".join(out)


@pytest.fixture(scope="module")
def code():
    tools = require_llvm("clang", "ld.lld", "llvm-objdump")
    _OUT.mkdir(exist_ok=True)
    tag = f"mfma_gfx950.{os.getpid()}"  # per process (pytest-xdist workers)
    src, obj, so = _OUT / f"{tag}.cl", _OUT / f"{tag}.o", _OUT / f"{tag}.so"
    src.write_text(_source())
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950", "-nogpulib",
                    "-O2", "-c", str(src), "-o", str(obj)], check=True, capture_output=True)
    subprocess.run([tools["ld.lld"], "-shared", str(obj), "-o", str(so)], check=True, capture_output=True)
    dis = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx950", str(so)], check=True, capture_output=True,
                         text=True).stdout
    return so.read_bytes(), dis


def _kernel_text(dis: str, kernel: str) -> str:
    start = dis.index(f"<{kernel}>:")
    end = dis.find(">:\n", start + len(kernel) + 3)
    return dis[start:end]


def _place(lay, codes, nregs: int) -> np.ndarray:
    """Element codes (rows, cols) -> (nregs, 64) uint32 register image; an element may cross
    into the next dword (fp6), so each lane is built as one wide integer."""
    lanes = [0] * 64
    for lane, c, i, j, _b in lay["cells"]:
        reg, lo, _bits = lay["cols"][c]
        lanes[lane] |= int(codes[i, j]) << (32 * reg + lo)
    return np.array([[(lanes[ln] >> (32 * r)) & 0xFFFFFFFF for ln in range(64)] for r in range(nregs)], np.uint32)


def _read(lay, regs, m, n) -> np.ndarray:
    out = np.zeros((m, n), np.uint32)
    for lane, c, i, j, _b in lay["cells"]:
        out[i, j] = regs[lay["cols"][c][0], lane]
    return out


def _ocp(fmt: str, shape, rng):
    """Random finite codes of an OCP format and their values (from ml_dtypes)."""
    dt, bits = OCP[fmt]
    vals = np.arange(1 << bits, dtype=np.uint8).view(getattr(ml_dtypes, dt)).astype(np.float64)
    ok = np.flatnonzero(np.isfinite(vals))
    codes = rng.choice(ok, size=shape)
    return codes, vals[codes]


def _run(code, kernel, A, B, C, S, nd):
    D = Buf(np.zeros((nd, 64), np.uint32))
    with table.use_target("gfx950"):
        run(code, kernel, [D, Buf(A), Buf(B), Buf(C), Buf(S)], (1,), (64,))
    return D.array


def _c(lay, m, n, rng, nd):
    C = rng.uniform(-4, 4, (m, n)).astype(np.float32)
    return C.astype(np.float64), _place(lay, C.view(np.uint32), nd)


@pytest.mark.parametrize("shape", sorted(F8F6F4))
@pytest.mark.parametrize("scaled", [False, True], ids=["plain", "scaled"])
@pytest.mark.parametrize("fa,fb", PAIRS, ids=[f"{FORMATS[a]}x{FORMATS[b]}".lower() for a, b in PAIRS])
def test_f8f6f4(code, shape, scaled, fa, fb):
    co, dis = code
    name = f"v_mfma_f32_{shape}_f8f6f4"
    t = L950[name]
    m, n, k = t["m"], t["n"], t["k"]
    kernel = f"k_{shape}_{fa}{fb}" + ("_scaled" if scaled else "")
    text = _kernel_text(dis, kernel)
    assert (f"v_mfma_scale_f32_{shape}_f8f6f4" in text) == scaled and f"_{shape}_f8f6f4" in text
    rng = np.random.default_rng(7 + 31 * fa + 5 * fb + (1000 if scaled else 0) + k)
    Fa, Fb = t["formats"][FORMATS[fa]], t["formats"][FORMATS[fb]]
    ac, A = _ocp(FORMATS[fa], (m, k), rng)
    bc, B = _ocp(FORMATS[fb], (k, n), rng)
    nd = t["gprs"]["D"]
    C, Cregs = _c(t["D"], m, n, rng, nd)
    S = np.zeros((2, 64), np.uint32)
    exp = A @ B + C
    if scaled:
        nb = k // 32
        ea = rng.integers(120, 135, (m, nb))  # E8M0 codes: 2^(e-127)
        eb = rng.integers(120, 135, (nb, n))
        oa, ob = (fa + fb) % 4, (fa + 2 * fb + 1) % 4
        # scale VGPRs: random words with the E8M0 code of A row i / B column j, K-block b in the
        # op_sel byte of lane i + M*b / j + N*b
        S = rng.integers(0, 2**32, (2, 64), dtype=np.uint64)
        for blk in range(nb):
            for i in range(m):
                S[0, i + m * blk] = int(S[0, i + m * blk]) & ~(0xFF << 8 * oa) | int(ea[i, blk]) << 8 * oa
            for j in range(n):
                S[1, j + n * blk] = int(S[1, j + n * blk]) & ~(0xFF << 8 * ob) | int(eb[blk, j]) << 8 * ob
        S = S.astype(np.uint32)
        sa = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
        exp = C + sum(sa[ea[:, blk]][:, None] * sa[eb[blk]][None, :] * (A[:, 32 * blk:32 * blk + 32] @
                                                                          B[32 * blk:32 * blk + 32]) for blk in range(nb))
    Ar, Br = _place(Fa["A"], ac, 8), _place(Fb["B"], bc, 8)
    got = _read(t["D"], _run(co, kernel, Ar, Br, Cregs, S, nd), m, n).view(np.float32)
    np.testing.assert_array_equal(got, exp.astype(np.float32))


@pytest.mark.parametrize("name", sorted(DENSE))
def test_new_dense_shapes(code, name):
    co, _ = code
    t = L950[name]
    m, n, k = t["m"], t["n"], t["k"]
    rng = np.random.default_rng(len(name) * 97 + k)
    ty = t["types"]["Src0"]
    if ty == "int8":
        A, B = rng.integers(-128, 128, (m, k)), rng.integers(-128, 128, (k, n))
        ab, bb = A & 0xFF, B & 0xFF
    elif ty == "FP16":
        A, B = rng.uniform(-2, 2, (m, k)).astype(np.float16), rng.uniform(-2, 2, (k, n)).astype(np.float16)
        ab, bb = A.view(np.uint16), B.view(np.uint16)
    else:
        A = rng.uniform(-2, 2, (m, k)).astype(ml_dtypes.bfloat16)
        B = rng.uniform(-2, 2, (k, n)).astype(ml_dtypes.bfloat16)
        ab, bb = A.view(np.uint16), B.view(np.uint16)
    nd = t["gprs"]["D"]
    if ty == "int8":
        C = rng.integers(-(2**20), 2**20, (m, n))
        Cregs = _place(t["D"], C & 0xFFFFFFFF, nd)
    else:
        C, Cregs = _c(t["D"], m, n, rng, nd)
    exp = A.astype(np.float64 if ty != "int8" else np.int64) @ B.astype(np.float64 if ty != "int8" else np.int64) + C
    D = _run(co, f"k_{name}", _place(t["A"], ab, 8), _place(t["B"], bb, 8), Cregs, np.zeros((2, 64), np.uint32), nd)
    got = _read(t["D"], D, m, n)
    if ty == "int8":
        np.testing.assert_array_equal(got.view(np.int32), exp.astype(np.int32))
    else:
        np.testing.assert_array_equal(got.view(np.float32), exp.astype(np.float32))


@pytest.mark.parametrize("name", sorted(CDNA3_FP8))
def test_cdna3_fp8_mfma_reads_ocp_fp8(code, name):
    """The gfx942 fp8/bf8 MFMAs keep their layouts on gfx950 but read OCP E4M3 / E5M2."""
    co, _ = code
    t = L942[name]
    m, n, k = t["m"], t["n"], t["k"]
    rng = np.random.default_rng(len(name) + 13 * k)
    fa, fb = ("BF8" if "_bf8_" in name else "FP8"), ("BF8" if name.endswith("_bf8") else "FP8")
    ac, A = _ocp(fa, (m, k), rng)
    bc, B = _ocp(fb, (k, n), rng)
    nd = t["gprs"]["D"]
    C, Cregs = _c(t["D"], m, n, rng, nd)
    D = _run(co, f"k_{name}", _place(t["A"], ac, 8), _place(t["B"], bc, 8), Cregs,
             np.zeros((2, 64), np.uint32), nd)
    np.testing.assert_array_equal(_read(t["D"], D, m, n).view(np.float32), (A @ B + C).astype(np.float32))


@pytest.mark.parametrize("name", sorted(SPARSE_FP8))
def test_cdna3_fp8_smfmac_reads_ocp_fp8(code, name):
    """4:2 sparse A (two stored values and their 2-bit positions per chunk of 4, the positions in
    the index VGPR), OCP fp8/bf8 values on gfx950; gfx942's SMFMAC layouts."""
    co, _ = code
    t = L942[name]
    m, n, k = t["m"], t["n"], t["k"]
    rng = np.random.default_rng(len(name) + 7 * k)
    fa, fb = ("BF8" if "_bf8_" in name else "FP8"), ("BF8" if name.endswith("_bf8") else "FP8")
    vc, vals = _ocp(fa, (m, k // 4, 2), rng)
    pos = np.array([sorted(rng.choice(4, 2, replace=False)) for _ in range(m * (k // 4))]).reshape(m, k // 4, 2)
    A = np.zeros((m, k))
    for i in range(m):
        for c in range(k // 4):
            A[i, 4 * c + pos[i, c]] = vals[i, c]
    Aregs = np.zeros((t["gprs"]["A"], 64), np.uint64)
    S = np.zeros((2, 64), np.uint64)
    seen, seen_k = set(), set()
    for lane, col, i, kk, _b in t["A"]["cells"]:
        c = kk // 4
        if (lane, col, c) not in seen:
            seen.add((lane, col, c))
            reg, lo, bits = t["A"]["cols"][col]
            Aregs[reg, lane] |= np.uint64(int(vc[i, c, 0]) << lo | int(vc[i, c, 1]) << (lo + bits // 2))
    for lane, col, i, kk, _b in t["K"]["cells"]:
        c = kk // 4
        if (lane, col, c) not in seen_k:
            seen_k.add((lane, col, c))
            S[0, lane] |= np.uint64((int(pos[i, c, 0]) | int(pos[i, c, 1]) << 2) << t["K"]["cols"][col][1])
    bc, B = _ocp(fb, (k, n), rng)
    nd = t["gprs"]["D"]
    C, Cregs = _c(t["D"], m, n, rng, nd)
    D = _run(co, f"k_{name}", Aregs.astype(np.uint32), _place(t["B"], bc, 8), Cregs, S.astype(np.uint32), nd)
    np.testing.assert_array_equal(_read(t["D"], D, m, n).view(np.float32), (A @ B + C).astype(np.float32))


def _sparse_a(t, rng, vals_of):
    """A random 4:2-sparse A (m, k): per row and group of four, two kept values at distinct positions
    p0 < p1; returns the dense matrix and the A and index register images built through the
    layout file (pair slot: first kept value low; index nibble: p0 | p1 << 2)."""
    m, k = t["m"], t["k"]
    codes, vals = vals_of((m, k // 4, 2))
    pos = np.array([sorted(rng.choice(4, 2, replace=False)) for _ in range(m * (k // 4))]).reshape(m, k // 4, 2)
    dense = np.zeros((m, k))
    for i in range(m):
        for c in range(k // 4):
            dense[i, 4 * c + pos[i, c]] = vals[i, c]
    aregs = np.zeros((t["gprs"]["A"], 64), np.uint64)
    idx = np.zeros(64, np.uint64)
    for lane, col, i, kk, _b in t["A"]["cells"]:
        if kk % 4 == 0:  # once per slot (each slot lists the four positions of its group)
            reg, lo, bits = t["A"]["cols"][col]
            c = kk // 4
            aregs[reg, lane] |= np.uint64(int(codes[i, c, 0]) << lo | int(codes[i, c, 1]) << (lo + bits // 2))
    for lane, col, i, kk, _b in t["K"]["cells"]:
        if kk % 4 == 0:
            c = kk // 4
            idx[lane] |= np.uint64((int(pos[i, c, 0]) | int(pos[i, c, 1]) << 2) << t["K"]["cols"][col][1])
    return dense, aregs.astype(np.uint32), idx


@pytest.mark.parametrize("name,abid", SPARSE950_CASES, ids=[f"{n}-abid{a}" for n, a in SPARSE950_CASES])
def test_gfx950_smfmac(code, name, abid):
    """The SMFMACs new in gfx950: 4:2 sparse A (twice CDNA3's K), dense B, the index set picked by
    ABID; layouts of data/mfma_layouts_gfx950.json (composable_kernel's rule; not confirmed by an AMD
    worked example, see isa/data/mfma_layouts.md). NumPy reference: the dense A rebuilt from values + indices."""
    co, dis = code
    assert f"{name} " in _kernel_text(dis, f"k_{name}_abid{abid}")
    t = L950[name]
    m, n, k = t["m"], t["n"], t["k"]
    rng = np.random.default_rng(len(name) * 31 + k + abid)
    ta, tb = t["types"]["Src0"], t["types"]["Src1"]

    def values(ty, shape):
        if ty == "int8":
            v = rng.integers(-128, 128, shape)
            return v & 0xFF, v.astype(np.float64)
        if ty in ("FP16", "BF16"):
            v = rng.uniform(-2, 2, shape).astype(np.float16 if ty == "FP16" else ml_dtypes.bfloat16)
            return v.view(np.uint16), v.astype(np.float64)
        return _ocp(ty, shape, rng)

    A, aregs, idx = _sparse_a(t, rng, lambda shape: values(ta, shape))
    bc, B = values(tb, (k, n))
    nd = t["gprs"]["D"]
    S = rng.integers(0, 2**32, (2, 64), dtype=np.uint64)  # the other index set: random (must be ignored)
    if t["index_bits"] == 32:
        S[0] = idx
    else:
        keep = ~np.uint64(0xFFFF << (16 * abid)) & np.uint64(0xFFFFFFFF)
        S[0] = (S[0] & keep) | (idx << np.uint64(16 * abid))
    if ta == "int8":
        C = rng.integers(-(2**20), 2**20, (m, n))
        Cregs = _place(t["D"], C & 0xFFFFFFFF, nd)
    else:
        C, Cregs = _c(t["D"], m, n, rng, nd)
    D = _run(co, f"k_{name}_abid{abid}", aregs, _place(t["B"], bc, 8), Cregs, S.astype(np.uint32), nd)
    got = _read(t["D"], D, m, n)
    if ta == "int8":
        exp = A.astype(np.int64) @ B.astype(np.int64) + C
        np.testing.assert_array_equal(got.view(np.int32), exp.astype(np.int32))
    else:
        np.testing.assert_array_equal(got.view(np.float32), (A @ B + C).astype(np.float32))

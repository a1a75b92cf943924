"""MXFP4 block-scaled GEMM for gfx950 (CDNA4: MI350X, MI355X) on ``v_mfma_scale_f32_16x16x128_f8f6f4``.

``C[M, N] (f32) = A[M, K] @ B[K, N]`` with A and B in OCP MXFP4 (OCP Microscaling Formats v1.0):
E2M1 elements, two to a byte (the even K index in the low nibble), and one E8M0 scale
``2^(e - 127)`` per 32 consecutive K-elements of a row of A (``sa``: M x K/32 bytes) and of a
column of B (B is passed transposed, ``bt``: N x K/2 bytes, ``sb``: N x K/32 bytes).

One wave computes a 16x16 tile of C; per 128-deep K step lane ``l`` loads the 16 bytes (32 fp4)
of row ``l % 16`` of its A tile at K ``32 * (l // 16)`` (the same of its B tile), and the E8M0
scale of that row and 32-block, the operand layout of the f8f6f4 MFMA with fp4 operands
(cbsz:4 blgp:4) and of its scales (lane ``i + 16 * b`` holds the scale of row i, K-block b;
op_sel/op_sel_hi pick byte 0). The result's four registers hold column ``l % 16`` and rows
``4 * (l // 16) + j``. See python/gcnforge/isa/data/mfma_layouts.md for where these come from.

A Python metaprogram over the builder (``Module(target="gfx950")``): the K loop unrolls into
one load group and one ``k.v_mfma_scale_f32_16x16x128_f8f6f4(a, b, acc, scale_a, scale_b,
op_sel=..., op_sel_hi=..., cbsz=4, blgp=4)`` per 128-deep step; the token waits become
``s_waitcnt vmcnt``, registers are allocated and the MFMA's result hazard is padded by the
default pass pipeline (``gcnforge compile examples/gemm_mxfp.py`` does the same), then the
built-in assembler makes the code object and the runtime launches it.

``python examples/gemm_mxfp.py [--m 32 --n 32 --k 256]`` runs it on the emulator against a NumPy
reference of the MX format (quantize f32 data to MXFP4, decode, multiply in float64).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from gcnforge.builder import Arg, Module
from gcnforge.lib import store_result_tile

TILE = 16  # the MFMA's M and N
KSTEP = 128  # the MFMA's K
BLOCK = 32  # K-elements per E8M0 scale (the OCP MX block)
NAME = "gemm_mxfp4_16x16x128"

# OCP E2M1 magnitudes by code 0..7 (the sign is bit 3); largest 6 = 1.5 * 2^2, so emax_elem = 2
E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
EMAX_ELEM = 2


def build(m_dim: int = 32, n_dim: int = 32, k_dim: int = 256) -> Module:
    """The kernel for fixed M, N, K (multiples of 16, 16, 128); grid = (N / 16, M / 16) waves."""
    if m_dim % TILE or n_dim % TILE or k_dim % KSTEP:
        raise ValueError(f"M and N must be multiples of {TILE} and K of {KSTEP}")
    if 64 * (k_dim // KSTEP - 1) > 4095:
        raise ValueError("K too large for the kernel's immediate load offsets (K <= 8192)")
    m = Module(NAME, target="gfx950")
    args = [Arg.ptr(n, access="read_only") for n in ("a", "sa", "bt", "sb")] + [Arg.ptr("c", access="write_only")]
    with m.kernel(NAME, args, workgroup_size=(64, 1, 1)) as k:
        a, sa, bt, sb, c = k.args()
        lane = k.thread_id("x")
        row = k.v_and_b32(TILE - 1, lane)  # l % 16: row of the A tile, column of the B tile
        grp = k.v_lshrrev_b32(4, lane)  # l // 16: which 32 of each 128-deep K step
        tile_n = k.s_lshl_b32(k.block_id("x"), 4)
        tile_m = k.s_lshl_b32(k.block_id("y"), 4)
        row_bytes = k.s_mov_b32(k_dim // 2)  # bytes per row of A and of Bt
        row_scales = k.s_mov_b32(k_dim // BLOCK)  # scales per row
        a_row, b_row = k.v_add_u32(tile_m, row), k.v_add_u32(tile_n, row)
        # byte offsets: row * K/2 + 16 * grp (elements), row * K/32 + grp (scales)
        a_off = k.v_lshl_add_u32(grp, 4, k.v_mul_lo_u32(a_row, row_bytes))
        b_off = k.v_lshl_add_u32(grp, 4, k.v_mul_lo_u32(b_row, row_bytes))
        sa_off = k.v_add_u32(k.v_mul_lo_u32(a_row, row_scales), grp)
        sb_off = k.v_add_u32(k.v_mul_lo_u32(b_row, row_scales), grp)
        acc = None
        for s in range(k_dim // KSTEP):  # one 128-deep K step: 64 bytes of A/Bt rows, 4 scales further
            av, ta = k.global_load_dwordx4(a_off, a, offset=64 * s)
            bv, tb = k.global_load_dwordx4(b_off, bt, offset=64 * s)
            xa, tsa = k.global_load_ubyte(sa_off, sa, offset=4 * s)
            xb, tsb = k.global_load_ubyte(sb_off, sb, offset=4 * s)
            k.wait(ta, tb, tsa, tsb)
            # fp4 A and B (cbsz:4 blgp:4: four dwords each), scale byte 0 of each scale VGPR
            acc = k.v_mfma_scale_f32_16x16x128_f8f6f4(av, bv, 0 if acc is None else acc, xa, xb,
                                                      op_sel=[0, 0, 0], op_sel_hi=[0, 0, 0], cbsz=4, blgp=4)
        # C (lane l, register j: row 4 * (l // 16) + j, column l % 16), applied by gcnforge.lib
        store_result_tile(k, acc, c, tile_m, tile_n, n_dim, "v_mfma_f32_16x16x128_f8f6f4")
        k.s_endpgm()
    m.verify()
    return m


def code_object(m_dim: int = 32, n_dim: int = 32, k_dim: int = 256, toolchain: str = "builtin") -> bytes:
    """The code object: the default pass pipeline, then gcnforge's assembler (or LLVM's)."""
    from gcnforge.binary import assemble

    return assemble(assembly(m_dim, n_dim, k_dim), target="gfx950", toolchain=toolchain, filename="gemm_mxfp.s")


def assembly(m_dim: int = 32, n_dim: int = 32, k_dim: int = 256) -> str:
    """The compiled kernel's assembly text (the default pass pipeline on ``build``)."""
    from gcnforge.passes import pipeline
    from gcnforge.translate import to_assembly

    module = build(m_dim, n_dim, k_dim)
    pipeline.run(module.top, pipeline.parse(pipeline.DEFAULT))
    return to_assembly(module.top)


# ---- the OCP MX format on the host (NumPy) -----------------------------------------------------------
def quantize_mxfp4(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """f32/f64 ``x`` (rows, K) -> (packed fp4 bytes (rows, K/2), E8M0 scales (rows, K/32)).
    OCP MX v1.0 section 6.3: shared exponent floor(log2(max |x| of the block)) - emax_elem,
    elements x / 2^shared rounded to nearest even E2M1, saturating at 6."""
    rows, k = x.shape
    blocks = np.asarray(x, np.float64).reshape(rows, k // BLOCK, BLOCK)
    amax = np.abs(blocks).max(axis=2)
    with np.errstate(divide="ignore"):
        shared = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1))) - EMAX_ELEM, -127)
    shared = np.clip(shared, -127, 127).astype(np.int64)
    v = blocks / np.exp2(shared)[..., None]
    a = np.minimum(np.abs(v), 6.0)
    # nearest E2M1 magnitude; a tie (a midpoint) goes to the even code
    dist = np.abs(a[..., None] - E2M1)
    code = np.argmin(dist, axis=-1)  # the lower code of a tie
    nxt = np.minimum(code + 1, 7)
    tie = (np.take_along_axis(dist, nxt[..., None], -1) == np.take_along_axis(dist, code[..., None], -1))[..., 0]
    code = np.where(tie & (code % 2 == 1), nxt, code)
    code = (code | np.where(np.signbit(v) & (code > 0), 8, 0)).reshape(rows, k).astype(np.uint8)
    packed = code[:, 0::2] | code[:, 1::2] << 4
    return packed.astype(np.uint8), (shared + 127).astype(np.uint8)


def dequantize_mxfp4(packed: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """(rows, K/2) fp4 bytes and (rows, K/32) E8M0 scales -> float64 (rows, K)."""
    codes = np.stack([packed & 0xF, packed >> 4], axis=-1).reshape(packed.shape[0], -1)
    vals = np.where(codes & 8, -1.0, 1.0) * E2M1[codes & 7]
    s = np.where(scales == 0xFF, np.nan, np.exp2(scales.astype(np.float64) - 127))
    return vals * np.repeat(s, BLOCK, axis=1)


def run(m_dim: int = 32, n_dim: int = 32, k_dim: int = 256, seed: int = 0, device: str = "emulator"):
    """Quantize random data, run the kernel, return (C from the kernel, NumPy reference)."""
    import gcnforge

    rng = np.random.default_rng(seed)
    a, sa = quantize_mxfp4(rng.standard_normal((m_dim, k_dim)) * rng.uniform(0.1, 10, (m_dim, 1)))
    bt, sb = quantize_mxfp4(rng.standard_normal((n_dim, k_dim)) * rng.uniform(0.1, 10, (n_dim, 1)))
    c = np.zeros((m_dim, n_dim), np.float32)
    kernel = gcnforge.load(code_object(m_dim, n_dim, k_dim))[NAME]
    kernel(a, sa, bt, sb, c, grid=(n_dim // TILE, m_dim // TILE), block=(64, 1, 1), device=device)
    ref = dequantize_mxfp4(a, sa) @ dequantize_mxfp4(bt, sb).T
    return c, ref


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=32)
    p.add_argument("--n", type=int, default=32)
    p.add_argument("--k", type=int, default=256)
    p.add_argument("--device", default="emulator")
    ns = p.parse_args(argv)
    c, ref = run(ns.m, ns.n, ns.k, device=ns.device)
    err = float(np.max(np.abs(c - ref) / (np.abs(ref) + 1e-6)))
    ok = np.allclose(c, ref, rtol=1e-5, atol=1e-5)
    print(f"MXFP4 GEMM {ns.m}x{ns.n}x{ns.k} on gfx950 ({ns.device}): max rel. error {err:.2e} -> {'OK' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

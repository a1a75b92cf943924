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
``4 * (l // 16) + j``. See python/gcnforge/emulator/data/README.md for where these come from.

Written as gcnforge assembly text, assembled by the built-in assembler for gfx950 (what
``gcnforge as --target gfx950 -o gemm.hsaco`` does) and launched through the runtime: the
builder does not target gfx950 yet (``#amdgcn.target<gfx950>`` is in progress), so this example
does not go through the dialect.

``python examples/gemm_mxfp.py [--m 32 --n 32 --k 256]`` runs it on the emulator against a NumPy
reference of the MX format (quantize f32 data to MXFP4, decode, multiply in float64).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

TILE = 16  # the MFMA's M and N
KSTEP = 128  # the MFMA's K
BLOCK = 32  # K-elements per E8M0 scale (the OCP MX block)
NAME = "gemm_mxfp4_16x16x128"

# OCP E2M1 magnitudes by code 0..7 (the sign is bit 3); largest 6 = 1.5 * 2^2, so emax_elem = 2
E2M1 = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])
EMAX_ELEM = 2


def assembly(m_dim: int, n_dim: int, k_dim: int) -> str:
    """The kernel for fixed M, N, K (multiples of 16, 16, 128); grid = (N / 16, M / 16) waves."""
    if m_dim % TILE or n_dim % TILE or k_dim % KSTEP:
        raise ValueError(f"M and N must be multiples of {TILE} and K of {KSTEP}")
    steps = k_dim // KSTEP
    if 64 * (steps - 1) > 4095:
        raise ValueError("K too large for the kernel's immediate load offsets (K <= 8192)")
    body = [
        "s_load_dwordx8 s[4:11], s[0:1], 0x0",  # a, sa, bt, sb
        "s_load_dwordx2 s[12:13], s[0:1], 0x20",  # c
        "v_and_b32_e32 v1, 15, v0",  # r = l % 16: row of the A tile, column of the B tile
        "v_lshrrev_b32_e32 v2, 4, v0",  # g = l // 16: which 32 of each 128-deep K step
        "s_lshl_b32 s14, s3, 4",  # tile_m = workgroup_id_y * 16
        "s_lshl_b32 s15, s2, 4",  # tile_n = workgroup_id_x * 16
        f"s_mov_b32 s16, {k_dim // 2}",  # bytes per row of A and of Bt
        f"s_mov_b32 s17, {k_dim // BLOCK}",  # scales per row
        "v_add_u32_e32 v3, s14, v1",  # A row
        "v_add_u32_e32 v4, s15, v1",  # Bt row (column of B)
        "v_mul_lo_u32 v5, v3, s16",
        "v_lshl_add_u32 v5, v2, 4, v5",  # A byte offset: row * K/2 + 16 * g
        "v_mul_lo_u32 v6, v4, s16",
        "v_lshl_add_u32 v6, v2, 4, v6",  # Bt byte offset
        "v_mul_lo_u32 v7, v3, s17",
        "v_add_u32_e32 v7, v7, v2",  # scale of A row, block g of the step
        "v_mul_lo_u32 v8, v4, s17",
        "v_add_u32_e32 v8, v8, v2",  # scale of B column, block g
        "v_mov_b32_e32 v20, 0",
        "v_mov_b32_e32 v21, 0",
        "v_mov_b32_e32 v22, 0",
        "v_mov_b32_e32 v23, 0",
        "s_waitcnt lgkmcnt(0)",
    ]
    for s in range(steps):  # one 128-deep K step: 64 bytes of A/Bt rows, 4 scales further
        body += [
            f"global_load_dwordx4 v[24:27], v5, s[4:5] offset:{64 * s}",
            f"global_load_dwordx4 v[28:31], v6, s[8:9] offset:{64 * s}",
            f"global_load_ubyte v32, v7, s[6:7] offset:{4 * s}",
            f"global_load_ubyte v33, v8, s[10:11] offset:{4 * s}",
            "s_waitcnt vmcnt(0)",
            "v_mfma_scale_f32_16x16x128_f8f6f4 v[20:23], v[24:27], v[28:31], v[20:23], v32, v33 "
            "op_sel_hi:[0,0,0] cbsz:4 blgp:4",
        ]
    body += [
        # C offset of lane l, register j: ((tile_m + 4 * g + j) * N + tile_n + r) * 4
        "v_lshl_add_u32 v9, v2, 2, s14",
        f"s_mov_b32 s18, {n_dim}",
        "v_mul_lo_u32 v9, v9, s18",
        "v_add_u32_e32 v9, s15, v9",
        "v_add_u32_e32 v9, v9, v1",
        "v_lshlrev_b32_e32 v9, 2, v9",
        # the MFMA's result is read by a store: wait out its passes (ISA guide 4.5; 3 x 8 states)
        "s_nop 7",
        "s_nop 7",
        "s_nop 7",
    ]
    for j in range(4):
        if j:
            body.append(f"v_add_u32_e32 v10, {4 * n_dim * j}, v9")
        body.append(f"global_store_dword {'v10' if j else 'v9'}, v{20 + j}, s[12:13]")
    body.append("s_endpgm")
    text = "\n".join("\t" + ln for ln in body)
    args = "\n".join(f"""      - .offset: {8 * i}
        .name: '{a}'
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .access: {'write_only' if a == 'c' else 'read_only'}""" for i, a in enumerate(("a", "sa", "bt", "sb", "c")))
    return f"""\t.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
\t.amdhsa_code_object_version 5
\t.text
\t.globl\t{NAME}
\t.p2align\t8
\t.type\t{NAME},@function
{NAME}:
{text}
.Lfunc_end0:
\t.size\t{NAME}, .Lfunc_end0-{NAME}

\t.section\t.rodata,"a",@progbits
\t.p2align\t6, 0x0
\t.amdhsa_kernel {NAME}
\t\t.amdhsa_kernarg_size 40
\t\t.amdhsa_user_sgpr_count 2
\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1
\t\t.amdhsa_system_sgpr_workgroup_id_x 1
\t\t.amdhsa_system_sgpr_workgroup_id_y 1
\t\t.amdhsa_next_free_vgpr 34
\t\t.amdhsa_next_free_sgpr 19
\t\t.amdhsa_accum_offset 36
\t.end_amdhsa_kernel

\t.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
{args}
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 40
    .max_flat_workgroup_size: 64
    .name: '{NAME}'
    .private_segment_fixed_size: 0
    .sgpr_count: 19
    .symbol: '{NAME}.kd'
    .vgpr_count: 34
    .wavefront_size: 64
    .reqd_workgroup_size: [64, 1, 1]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.version:
  - 1
  - 2
...

\t.end_amdgpu_metadata
"""


def build(m_dim: int = 32, n_dim: int = 32, k_dim: int = 256) -> bytes:
    """The code object (built-in assembler, gfx950)."""
    from gcnforge.binary import assemble

    return assemble(assembly(m_dim, n_dim, k_dim), target="gfx950", filename="gemm_mxfp.s")


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
    kernel = gcnforge.load(build(m_dim, n_dim, k_dim))[NAME]
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

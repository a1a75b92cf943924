"""GEMM with MFMA: C[M, N] (f32) = A[M, K] (f16) @ B[K, N] (f16), one wave per 32x32 tile.

B is passed transposed (``bt`` is N x K, row-major) so that both operands are read the
same way: lane ``l`` of the wave owns row ``l % 32`` of its A tile (and column ``l % 32``
of its B tile) and the four consecutive k values ``4 * (l // 32) .. +3`` of each 8-deep
k step, which is the operand layout of ``v_mfma_f32_32x32x8_f16`` (AMD Matrix Instruction
Calculator, CDNA3, 32x32x8 f16: A[i][k] in lane i + 32 * (k // 4), register half k % 4).
The 16 result registers of lane ``l`` hold column ``l % 32`` and rows
``8 * (j // 4) + 4 * (l // 32) + j % 4`` for register j (same source): ``gcnforge.lib``'s
``store_result_tile`` reads that layout from ``gcnforge.isa.mfma_layout`` and stores the
tile through a buffer resource.

The k loop is a Python loop: it unrolls into ``K / 8`` load pairs and MFMAs, so K is a
compile-time parameter of ``build``. The wait for each k step's loads is stated as a
token wait; the wait pass turns it into the smallest ``s_waitcnt vmcnt``.

For gfx950 (``gcnforge compile examples/gemm_mfma_f16.py --target gfx950``, or
``build(target="gfx950")``) the kernel uses CDNA4's ``v_mfma_f32_16x16x32_f16`` (or
``_bf16`` with ``dtype="bf16"``), one wave per 16x16 tile: lane ``l`` owns row ``l % 16`` of
its A tile (column ``l % 16`` of its B tile) and the eight consecutive k values
``8 * (l // 16) .. +7`` of each 32-deep k step (one ``global_load_dwordx4``); its four
result registers hold column ``l % 16`` and rows ``4 * (l // 16) + j`` (the 16x16 output
layout of CDNA3's 16x16 MFMAs, AMD Matrix Instruction Calculator).
"""

from __future__ import annotations

from gcnforge.builder import Arg, Module
from gcnforge.lib import store_result_tile

TILE = 32  # output tile edge per wave (the MFMA's M and N)
KSTEP = 8  # the MFMA's K


# gfx950: v_mfma_f32_16x16x32_{f16,bf16}
TILE_16 = 16
KSTEP_32 = 32


def tile(target: str | None = None) -> int:
    """The output tile edge per wave (grid = (N / tile, M / tile)) for ``target``."""
    return TILE_16 if Module("probe", target=target).target == "gfx950" else TILE


def build(k_dim: int = 64, n_dim: int = 64, name: str | None = None, target: str | None = None,
          dtype: str = "f16") -> Module:
    """A kernel for fixed K and N: on gfx942 (the default target) multiples of 8 and 32,
    grid = (N / 32, M / 32), kernel ``gemm_f16_32x32``; on gfx950 multiples of 32 and 16,
    grid = (N / 16, M / 16), kernel ``gemm_<dtype>_16x16x32``."""
    m = Module(name or "gemm", target=target)
    if m.target == "gfx950":
        return _build_16x16x32(m, k_dim, n_dim, name or f"gemm_{dtype}_16x16x32", dtype)
    if dtype != "f16":
        raise ValueError(f"dtype {dtype} needs --target gfx950 (gfx942's kernel is f16)")
    name = name or "gemm_f16_32x32"
    m = Module(name, target=target)
    if k_dim % KSTEP or n_dim % TILE:
        raise ValueError(f"K must be a multiple of {KSTEP} and N of {TILE}")
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("bt", access="read_only"), Arg.ptr("c", access="write_only")]
    with m.kernel(name, args, workgroup_size=(64, 1, 1)) as k:
        a, bt, c = k.args()
        lane = k.thread_id("x")
        row = k.v_and_b32(TILE - 1, lane)  # l % 32
        half = k.v_lshrrev_b32(5, lane)  # l // 32: which 4-deep k group (and row group of C)
        tile_n = k.s_lshl_b32(k.block_id("x"), 5)  # first column of the tile
        tile_m = k.s_lshl_b32(k.block_id("y"), 5)  # first row of the tile

        # Byte offsets of this lane's first A and B elements: ((tile + row) * K + 4 * half) * 2.
        a_row = k.v_add_u32(tile_m, row)
        b_row = k.v_add_u32(tile_n, row)
        kofs = k.v_lshlrev_b32(3, half)  # 4 halves * 2 bytes
        # VOP3 takes no literal on gfx942: sizes beyond the inline range (0..64) go in SGPRs.
        k_sgpr = k.s_mov_b32(k_dim)
        a_off = k.v_lshlrev_b32(1, k.v_mul_lo_u32(a_row, k_sgpr))
        a_off = k.v_add_u32(a_off, kofs)
        b_off = k.v_lshlrev_b32(1, k.v_mul_lo_u32(b_row, k_sgpr))
        b_off = k.v_add_u32(b_off, kofs)

        acc = None
        for k0 in range(0, k_dim, KSTEP):
            av, ta = k.global_load_dwordx2(a_off, a, offset=2 * k0)
            bv, tb = k.global_load_dwordx2(b_off, bt, offset=2 * k0)
            k.wait(ta, tb)
            acc = k.v_mfma_f32_32x32x8_f16(av, bv, 0 if acc is None else acc)

        # C: the tile starts at byte (tile_m * N + tile_n) * 4; which lane and register hold
        # which element is the MFMA's result layout, applied by gcnforge.lib
        store_result_tile(k, acc, c, tile_m, tile_n, n_dim, "v_mfma_f32_32x32x8_f16")
        k.s_endpgm()
    m.verify()
    return m


def _build_16x16x32(m: Module, k_dim: int, n_dim: int, name: str, dtype: str) -> Module:
    if dtype not in ("f16", "bf16"):
        raise ValueError(f"dtype must be f16 or bf16, got {dtype}")
    if k_dim % KSTEP_32 or n_dim % TILE_16:
        raise ValueError(f"K must be a multiple of {KSTEP_32} and N of {TILE_16}")
    args = [Arg.ptr("a", access="read_only"), Arg.ptr("bt", access="read_only"), Arg.ptr("c", access="write_only")]
    with m.kernel(name, args, workgroup_size=(64, 1, 1)) as k:
        a, bt, c = k.args()
        lane = k.thread_id("x")
        row = k.v_and_b32(TILE_16 - 1, lane)  # l % 16
        grp = k.v_lshrrev_b32(4, lane)  # l // 16: which 8-deep k group (and 4-row group of C)
        tile_n = k.s_lshl_b32(k.block_id("x"), 4)
        tile_m = k.s_lshl_b32(k.block_id("y"), 4)
        k_sgpr = k.s_mov_b32(k_dim)
        kofs = k.v_lshlrev_b32(4, grp)  # 8 halves * 2 bytes
        # byte offsets of the lane's first A and B elements: ((tile + row) * K + 8 * grp) * 2
        a_off = k.v_add_u32(k.v_lshlrev_b32(1, k.v_mul_lo_u32(k.v_add_u32(tile_m, row), k_sgpr)), kofs)
        b_off = k.v_add_u32(k.v_lshlrev_b32(1, k.v_mul_lo_u32(k.v_add_u32(tile_n, row), k_sgpr)), kofs)
        mfma = getattr(k, f"v_mfma_f32_16x16x32_{dtype}")
        acc = None
        for k0 in range(0, k_dim, KSTEP_32):
            av, ta = k.global_load_dwordx4(a_off, a, offset=2 * k0)
            bv, tb = k.global_load_dwordx4(b_off, bt, offset=2 * k0)
            k.wait(ta, tb)
            acc = mfma(av, bv, 0 if acc is None else acc)
        store_result_tile(k, acc, c, tile_m, tile_n, n_dim, f"v_mfma_f32_16x16x32_{dtype}")
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

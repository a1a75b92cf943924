"""GEMM with MFMA: C[M, N] (f32) = A[M, K] (f16) @ B[K, N] (f16), one wave per 32x32 tile.

B is passed transposed (``bt`` is N x K, row-major) so that both operands are read the
same way: lane ``l`` of the wave owns row ``l % 32`` of its A tile (and column ``l % 32``
of its B tile) and the four consecutive k values ``4 * (l // 32) .. +3`` of each 8-deep
k step, which is the operand layout of ``v_mfma_f32_32x32x8_f16`` (AMD Matrix Instruction
Calculator, CDNA3, 32x32x8 f16: A[i][k] in lane i + 32 * (k // 4), register half k % 4).
The 16 result registers of lane ``l`` hold column ``l % 32`` and rows
``8 * (j // 4) + 4 * (l // 32) + j % 4`` for register j (same source).

The k loop is a Python loop: it unrolls into ``K / 8`` load pairs and MFMAs, so K is a
compile-time parameter of ``build``. The wait for each k step's loads is stated as a
token wait; the wait pass turns it into the smallest ``s_waitcnt vmcnt``.
"""

from __future__ import annotations

from gcnforge.builder import Arg, Module

TILE = 32  # output tile edge per wave (the MFMA's M and N)
KSTEP = 8  # the MFMA's K


def build(k_dim: int = 64, n_dim: int = 64, name: str = "gemm_f16_32x32") -> Module:
    """A kernel for fixed K and N (multiples of 8 and 32); grid = (N / 32, M / 32)."""
    if k_dim % KSTEP or n_dim % TILE:
        raise ValueError(f"K must be a multiple of {KSTEP} and N of {TILE}")
    m = Module(name)
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
        n_sgpr = k.s_mov_b32(n_dim)
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

        # C offset of register j: ((tile_m + 8 * (j // 4) + 4 * half + j % 4) * N + tile_n + row) * 4.
        c_row = k.v_add_u32(tile_m, k.v_lshlrev_b32(2, half))
        c_off = k.v_mul_lo_u32(c_row, n_sgpr)
        c_off = k.v_add_u32(c_off, k.v_add_u32(tile_n, row))
        c_off = k.v_lshlrev_b32(2, c_off)
        for j, value in enumerate(acc.split()):
            step = (8 * (j // 4) + j % 4) * n_dim * 4
            k.global_store_dword(k.v_add_u32(step, c_off), value, c)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())

"""Register-to-register moves and exchanges: which instruction copies one register file's
values to another (one fact, one place: the allocator's inserted copies and its parallel-copy
sequencing read them here).

From AMD's "AMD Instinct MI300 (CDNA3) Instruction Set Architecture" reference guide:
V_MOV_B32 and V_MOV_B64 (VOP1: "D.u = S0.u", 64-bit on CDNA3), S_MOV_B32 and S_MOV_B64 (SOP1),
V_ACCVGPR_MOV_B32 (VOP1: AccVGPR to AccVGPR), V_ACCVGPR_READ_B32 / V_ACCVGPR_WRITE_B32
(VOP3P: AccVGPR to VGPR and back) and V_SWAP_B32 (VOP1: exchanges two VGPRs; "tmp = D.u;
D.u = S0.u; S0.u = tmp"). Vector moves copy the active lanes only (EXEC).
There is no SGPR or AccVGPR exchange instruction.
"""

from __future__ import annotations

# (destination file, source file, dwords) -> mnemonic; files "v" (VGPR), "a" (AccVGPR), "s" (SGPR)
MOVES: dict[tuple[str, str, int], str] = {
    ("v", "v", 1): "v_mov_b32_e32",
    ("v", "v", 2): "v_mov_b64_e32",
    ("s", "s", 1): "s_mov_b32",
    ("s", "s", 2): "s_mov_b64",
    ("a", "a", 1): "v_accvgpr_mov_b32",
    ("v", "a", 1): "v_accvgpr_read_b32",
    ("a", "v", 1): "v_accvgpr_write_b32",
}

# file -> the instruction exchanging two of its registers in place (both operands read and written)
SWAPS: dict[str, str] = {"v": "v_swap_b32"}


def move(dst_file: str, src_file: str, dwords: int) -> str | None:
    """The mnemonic copying ``dwords`` registers of ``src_file`` into ``dst_file``, or None."""
    return MOVES.get((dst_file, src_file, dwords))

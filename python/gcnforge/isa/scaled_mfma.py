"""gfx950 block-scaled MFMAs ``v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 D, A, B, C, SA, SB``.

LLVM 22 prints and parses one instruction, encoded as two of the table's records: a
``v_mfma_ld_scale_b32 SA, SB`` word pair (the E8M0 scale VGPRs; ``op_sel`` / ``op_sel_hi``
pick their bytes) followed by the f8f6f4 MFMA with ``abid`` bit 0 set (``asm/vop_scale.py``
pairs the encodings). The record here is the one every layer sees for the pair: the MFMA's
operands plus the two scale VGPRs, and its modifiers ``op_sel``, ``op_sel_hi``, ``cbsz``,
``blgp`` (formats of A and B: ``isa.mfma.F8F6F4_DWORDS``). Probed with
``llvm-mc -mcpu=gfx950`` (tests/asm/test_gfx950_corpus.py).
"""

from __future__ import annotations

from functools import lru_cache

from gcnforge.isa import table
from gcnforge.isa.schema import Instruction, Operand, OperandKind, Role

SCALED = {"v_mfma_scale_f32_16x16x128_f8f6f4": "v_mfma_f32_16x16x128_f8f6f4",
          "v_mfma_scale_f32_32x32x64_f8f6f4": "v_mfma_f32_32x32x64_f8f6f4"}
LD_SCALE = "v_mfma_ld_scale_b32"
SCALE_OPERANDS = tuple(Operand(name=n, kind=OperandKind.VGPR, field=None, role=Role.USE)
                       for n in ("scale_src0", "scale_src1"))
MODIFIERS = ("op_sel", "op_sel_hi", "cbsz", "blgp")
SELECTORS = ("op_sel", "op_sel_hi")  # [scale_src0 byte bit, scale_src1 byte bit(, unencoded 0)]
SELECTOR_ENTRIES = (2, 3)  # llvm-mc accepts two or three entries; the third is not encoded


def selector_error(name: str, value: object) -> str | None:
    """Why ``value`` is not an ``op_sel`` / ``op_sel_hi`` of the pair (a list of 2 or 3 bits)."""
    if (isinstance(value, list | tuple) and len(value) in SELECTOR_ENTRIES
            and all(isinstance(x, int) and x in (0, 1) for x in value)):
        return None
    return f"{name} takes 2 or 3 entries of 0 or 1 ({name}=[0, 0, 0]), got {value!r}"


@lru_cache(maxsize=8)
def records(name: str, target: str) -> tuple[Instruction, Instruction, Instruction] | None:
    """(record of the pair, ld_scale record, MFMA record) on ``target``, or None."""
    if name not in SCALED:
        return None
    ld, mfma = table.by_mnemonic(LD_SCALE, target), table.by_mnemonic(SCALED[name], target)
    if ld is None or mfma is None:
        return None
    pair = mfma.replace(mnemonic=name, base=name, llvm_name="", operands=mfma.operands + SCALE_OPERANDS,
                        modifiers=MODIFIERS)
    return pair, ld, mfma


def record(name: str, target: str | None = None) -> Instruction | None:
    """The pair's record on ``target`` (default: the active one), or None."""
    r = records(name, target or table.active_target()) if name in SCALED else None
    return r[0] if r else None

"""A compare's SCC overwritten before the instruction meant to read it.

SCC is one bit that most SALU instructions write: ``s_add_u32`` its carry, ``s_and_b32`` and
the shifts whether the result is non-zero, ``s_cmp_*`` / ``s_bitcmp*`` the comparison (ISA
guide, "Scalar ALU Operations": SCC "is set by" compares and "by many" other SALU ops). In

    s_cmp_lt_u32 s0, s1
    s_add_u32    s2, s2, 4     // writes SCC (its carry)
    s_cselect_b32 s3, s4, s5   // reads the carry, not the compare

the author meant the compare; nothing fails, the kernel just computes the wrong thing.
``check_scc_order`` finds that shape in each block of straight-line code, in the order the
author wrote it (so before scheduling moves anything): a compare (an instruction whose only effect is SCC, by the ISA table), then
another SCC writer before anything read the compare's SCC, then a reader that takes SCC as a
condition (``s_cselect_*``, ``s_cmov*``, ``s_cbranch_scc*``: it uses SCC and writes none; a
carry chain's ``s_addc_u32`` / ``s_subb_u32`` reads its adder's SCC on purpose). The
diagnostic is at the reader, naming the compare and the clobber with their lines. Blocks start
with no known SCC; a loop, an if or a call in between forgets it.
"""

from __future__ import annotations

from xdsl.ir import Operation

from gcnforge.diagnostics import Diagnostic, op_place
from gcnforge.dialect import isa_info
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.structure_ops import BranchOp


def _inst(op: Operation):
    """The ISA table record of an instruction op or a branch (None for other ops)."""
    if isinstance(op, InstOp):
        inf = op.info
    elif isinstance(op, BranchOp):
        inf = isa_info.info(op.mnemonic)
    else:
        return None
    return None if inf is None else inf.inst


def check_scc_order(top: Operation) -> None:
    """Raise a located ``Diagnostic`` at the first condition reader of SCC whose compare was
    overwritten by another SALU instruction in between (module docstring)."""
    for region_op in top.walk():
        for region in region_op.regions:
            for block in region.blocks:
                _check_block(block)


def _check_block(block) -> None:
    cmp = clobber = None  # the last compare nobody read yet, the first SCC writer after it
    for op in block.ops:
        inst = _inst(op)
        if inst is None:
            if op.regions or op.successors or "call" in op.name:  # a loop, an if, a call
                cmp = clobber = None
            continue  # constants, register views (concat, split, alloca): no SCC
        writes, uses = "scc" in inst.implicit_defs, "scc" in inst.implicit_uses
        if uses and not writes and clobber is not None:  # a condition (not a carry chain's s_addc)
            raise Diagnostic(
                f"'{inst.mnemonic}' reads the SCC that '{_inst(clobber).mnemonic}' ({op_place(clobber)}) wrote, "
                f"not the result of '{_inst(cmp).mnemonic}' ({op_place(cmp)}): that SALU instruction overwrites "
                "SCC in between", op,
                notes=("move the compare after it (or it before the compare), or keep the condition in an SGPR "
                       "(s_cselect_b32 s, 1, 0 right after the compare)",))
        if uses:
            cmp = clobber = None  # SCC was read
        if writes and tuple(inst.implicit_defs) == ("scc",) and \
                not any(o.role in ("def", "defuse") for o in inst.operands):
            cmp, clobber = op, None  # a compare: SCC is its only effect
        elif writes and cmp is not None and clobber is None:
            clobber = op

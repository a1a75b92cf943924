"""The ``amdgcn`` dialect on xDSL: registers as types, instructions as ops.

* ``types``          register types (vgpr/sgpr/agpr in value, unallocated and allocated
                     states), special registers, memory tokens
* ``attrs``          target, instruction, kernel-argument and float-mode attributes
* ``inst_ops``       one op per instruction family, verified against the ISA table
* ``structure_ops``  module, kernel, func/call/return, end, branch, alloca, ranges,
                     kernel arguments, ids, LDS, wait
* ``loop_ops``       counted ``amdgcn.loop`` / ``amdgcn.yield`` (written for the schedule pass)
* ``cond_ops``       ``amdgcn.if``: then/else regions on an ``s_cmp_*`` compare, merged results
* ``constant``       ``arith.constant`` (numbers as operands), without xDSL's whole ``arith``
* ``raw_ops``        ``lift.inst``: an instruction kept as text (raised code the ops cannot describe)
* ``irdl_export``    the dialect as IRDL for LLVM's ``mlir-opt --irdl-file``

``AMDGCN`` is the ``xdsl.ir.Dialect``; ``context()`` gives an ``xdsl.context.Context`` with
it, ``builtin``, ``arith`` (only ``arith.constant``, from ``constant``), ``func`` and ``lift``
loaded.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.ir import Dialect

from gcnforge.dialect.attrs import FloatModeAttr, InstAttr, KernelArgAttr, TargetAttr
from gcnforge.dialect.cond_ops import COND_OPS, IfOp
from gcnforge.dialect.constant import ARITH, ConstantOp
from gcnforge.dialect.inst_ops import FAMILY_OPS, InstOp
from gcnforge.dialect.loop_ops import LOOP_OPS, LoopOp, YieldOp
from gcnforge.dialect.raw_ops import LIFT, RawInstOp
from gcnforge.dialect.structure_ops import (
    STRUCTURE_OPS,
    AllocaOp,
    BlockIdOp,
    BranchOp,
    CallOp,
    EndOp,
    FuncOp,
    KernelOp,
    LdsAllocOp,
    LoadArgOp,
    MakeRangeOp,
    ModuleOp,
    ReturnOp,
    SplitRangeOp,
    ThreadIdOp,
    WaitOp,
)
from gcnforge.dialect.types import (
    AGPRType,
    ReadTokenType,
    RegisterType,
    SGPRType,
    SpecialRegType,
    VGPRType,
    WriteTokenType,
)

TYPES = (VGPRType, SGPRType, AGPRType, SpecialRegType, ReadTokenType, WriteTokenType)
ATTRIBUTES = (TargetAttr, InstAttr, KernelArgAttr, FloatModeAttr)

AMDGCN = Dialect("amdgcn", [*STRUCTURE_OPS, *LOOP_OPS, *COND_OPS, *FAMILY_OPS.values()], [*TYPES, *ATTRIBUTES])


def context() -> Context:
    from xdsl.dialects.builtin import Builtin

    ctx = Context()
    for d in (Builtin, ARITH, AMDGCN, LIFT):
        ctx.load_dialect(d)
    ctx.register_dialect("func", _func)  # imported only when IR names a func op
    return ctx


def _func() -> Dialect:
    from xdsl.dialects.func import Func

    return Func


__all__ = [
    "AMDGCN", "context", "InstOp", "FAMILY_OPS", "RegisterType", "VGPRType", "SGPRType", "AGPRType",
    "SpecialRegType", "ReadTokenType", "WriteTokenType", "TargetAttr", "InstAttr", "KernelArgAttr",
    "FloatModeAttr", "ModuleOp", "KernelOp", "FuncOp", "ReturnOp", "CallOp", "EndOp", "BranchOp",
    "AllocaOp", "LoopOp", "YieldOp", "IfOp", "MakeRangeOp", "SplitRangeOp", "LoadArgOp", "ThreadIdOp", "BlockIdOp", "LdsAllocOp", "WaitOp",
    "LIFT", "RawInstOp", "ARITH", "ConstantOp",
]
